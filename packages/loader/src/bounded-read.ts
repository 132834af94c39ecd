/**
 * How every file dsh reads from a path is read (deployments, and the CLI's replay scripts and ledgers):
 * a regular file of at most a size limit, checked before it is opened, so a FIFO without a writer, a
 * device or a socket is refused at once (`/dev/zero` is never read), and a file too large for memory
 * is refused before its bytes are. A YAML file's text is then checked against the YAML limits
 * (`yaml-limits.ts`) before anything parses it. One function for all of them, so a newcomer finds the
 * rule in one place and every reader refuses the same things with the same codes.
 * @module
 */
import { readFile, stat } from 'node:fs/promises'
import { fileTooLarge, notRegularFile, thrown, yamlDoubleQuotedTooLong, yamlTooManyTokens } from './errors.js'
import { crossedLimit, positionIn, type YamlLimits } from './yaml-limits.js'

/** The largest file read by default (`maxFileBytes`, `--max-file-size` raises it): far above any real deployment. */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024

/** What a bounded read is of, for its messages. */
export interface FileRole {
  /** The file in words: `the deployment file` (default), `the replay script`, `the ledger`. */
  what?: string
  /** How to raise the size limit, for the message (default: `--max-file-size <bytes>, or maxFileBytes when loading`). */
  raise?: string
}

/** What kind of file system entry `info` describes, for the message. */
function kindOf(info: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  return info.isFIFO() ? 'a FIFO' : info.isSocket() ? 'a socket' : info.isCharacterDevice() ? 'a character device' : info.isBlockDevice() ? 'a block device' : 'not a regular file'
}

/**
 * The bytes of `file` (an absolute or working-directory-relative path): a regular file of at most
 * `maxBytes` bytes, checked before it is opened. A directory is let through to `readFile`, which
 * rejects with `EISDIR`. Rejects with the system error when it cannot be read, else with
 * `LOADER_NOT_A_FILE` or `LOADER_FILE_TOO_LARGE` (worded by `role`).
 */
export async function readRegularFile(file: string, maxBytes: number = DEFAULT_MAX_FILE_BYTES, role: FileRole = {}): Promise<Buffer> {
  const info = await stat(file)
  if (!info.isFile() && !info.isDirectory()) throw notRegularFile(kindOf(info), role.what)
  if (info.isFile() && info.size > maxBytes) throw fileTooLarge(info.size, maxBytes, role.what, role.raise)
  const bytes = await readFile(file)
  // The file may have grown between the check and the read.
  if (bytes.length > maxBytes) throw fileTooLarge(bytes.length, maxBytes, role.what, role.raise)
  return bytes
}

/**
 * Throws the coded error of the first YAML limit `text` crosses (with the `position` where it crosses
 * it), worded for `what` (default `the deployment`) and `raise` (how to raise each limit).
 */
export function checkYamlLimits(text: string, limits: YamlLimits, what?: string, raise?: { tokens: string; doubleQuotedChars: string }): void {
  const crossed = crossedLimit(text, limits)
  if (!crossed) return
  const message = crossed.limit === 'tokens'
    ? yamlTooManyTokens(limits.tokens, what, raise?.tokens)
    : yamlDoubleQuotedTooLong(limits.doubleQuotedChars, what, raise?.doubleQuotedChars)
  throw thrown(message, { position: positionIn(text, crossed.offset) })
}
