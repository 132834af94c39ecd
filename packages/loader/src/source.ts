import { isAbsolute, relative, resolve } from 'node:path'
import { checkYamlLimits, DEFAULT_MAX_FILE_BYTES, readRegularFile } from './bounded-read.js'
import { DEFAULT_MAX_DOUBLE_QUOTED_CHARS, DEFAULT_MAX_YAML_TOKENS, type YamlLimits } from './yaml-limits.js'
import { isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml'

/** A 1-based place in the deployment file. */
export interface Position {
  line: number
  column: number
}

/** A key path from the top of the file: `['plugins', 2, 'config', 'toolOrder']`. */
export type KeyPath = ReadonlyArray<string | number>

/** The YAML limits of a read when the caller sets none. */
export const DEFAULT_YAML_LIMITS: YamlLimits = { tokens: DEFAULT_MAX_YAML_TOKENS, doubleQuotedChars: DEFAULT_MAX_DOUBLE_QUOTED_CHARS }

/**
 * A parsed deployment file: the `yaml` document (kept as nodes, so every value has a range) and the
 * line counter that turns ranges into lines and columns.
 */
export class DeploymentSource {
  /** The absolute path of the file. */
  readonly file: string
  /** The path shown in messages: relative to the working directory when the file lies inside it. */
  readonly display: string
  /** The parsed document; `doc.errors` holds the YAML syntax errors. */
  readonly doc: Document.Parsed
  /** Maps offsets to lines and columns. */
  readonly lines: LineCounter
  /**
   * Where the file stops being valid UTF-8: the offset (in the decoded text, where U+FFFD stands for the
   * bad bytes) and the first bad byte. The text is then parsed as decoded, for positions only.
   */
  readonly invalidUtf8?: { offset: number; byte: number }
  /** Whether lines end in CR alone (classic Mac OS): the `yaml` package reads such a file as one line. */
  readonly crOnly: boolean

  private constructor(file: string, text: string, invalidUtf8?: { offset: number; byte: number }) {
    this.file = file
    this.crOnly = text.includes('\r') && !text.includes('\n')
    this.display = displayPath(file)
    this.lines = new LineCounter()
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true })
    if (invalidUtf8) this.invalidUtf8 = invalidUtf8
  }

  /** Parses `text` as the content of `file` (no I/O). */
  static parse(file: string, text: string): DeploymentSource {
    return new DeploymentSource(resolve(file), text)
  }

  /**
   * Reads and parses `file`: a regular file of at most `maxBytes` bytes, checked before it is opened (so
   * a FIFO without a writer, a device or a socket is refused at once, and `/dev/zero` is never read;
   * see `bounded-read.ts`), whose YAML stays within `limits`, checked before it is parsed. Rejects with
   * the system error when it cannot be read, or with the coded error of the check it fails (a limit's
   * error has the `position` where the file crosses it).
   */
  static async read(file: string, maxBytes = DEFAULT_MAX_FILE_BYTES, limits: YamlLimits = DEFAULT_YAML_LIMITS): Promise<DeploymentSource> {
    const absolute = resolve(file)
    const bytes = await readRegularFile(absolute, maxBytes)
    const bad = firstInvalidUtf8(bytes)
    const text = bad < 0 ? strict.decode(bytes) : lossy.decode(bytes)
    checkYamlLimits(text, limits)
    if (bad < 0) return new DeploymentSource(absolute, text)
    const offset = lossy.decode(bytes.subarray(0, bad)).length
    return new DeploymentSource(absolute, text, { offset, byte: bytes[bad] })
  }

  /** The position of an offset in the file. */
  positionOf(offset: number): Position {
    const { line, col } = this.lines.linePos(offset)
    return { line, column: col }
  }

  /** The position where a node starts, when it has a range. */
  positionOfNode(node: unknown): Position | undefined {
    if (!isNode(node) || !node.range) return undefined
    return this.positionOf(node.range[0])
  }

  /**
   * The position of the value at `path`: the value node when it has a place in the file, else its key,
   * else the nearest ancestor that has one (a missing required key points at its mapping).
   */
  locate(path: KeyPath): Position | undefined {
    let node: unknown = this.doc.contents
    let best = this.positionOfNode(node)
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => isPair(item) && keyText(item.key) === String(segment))
        if (!pair) break
        const value = this.positionOfNode(pair.value)
        best = value ?? this.positionOfNode(pair.key) ?? best
        node = pair.value
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment]
        if (node === undefined) break
        best = this.positionOfNode(node) ?? best
      } else {
        break
      }
    }
    return best
  }
}

const strict = new TextDecoder('utf-8', { fatal: true })
const lossy = new TextDecoder('utf-8')

/**
 * The index of the first byte of `bytes` that does not belong to a well-formed UTF-8 sequence (overlong
 * forms, surrogates and code points past U+10FFFF included), or -1 when all of it is valid UTF-8.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]
    if (b < 0x80) {
      i++
      continue
    }
    // The sequence length and the range of the second byte (which rules out overlongs and surrogates).
    let length: number, low = 0x80, high = 0xbf
    if (b >= 0xc2 && b <= 0xdf) length = 2
    else if (b >= 0xe0 && b <= 0xef) length = 3, low = b === 0xe0 ? 0xa0 : 0x80, high = b === 0xed ? 0x9f : 0xbf
    else if (b >= 0xf0 && b <= 0xf4) length = 4, low = b === 0xf0 ? 0x90 : 0x80, high = b === 0xf4 ? 0x8f : 0xbf
    else return i
    if (i + 1 >= bytes.length || bytes[i + 1] < low || bytes[i + 1] > high) return i
    for (let k = 2; k < length; k++) {
      if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i
    }
    i += length
  }
  return -1
}

/** The text of a mapping key, as written (`1` for the number key `1`). */
export function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value)
  if (isNode(key)) return String(key)
  return String(key)
}

/** Formats a key path the way messages show it: `plugins[2].config.toolOrder`. */
export function formatKeyPath(path: ReadonlyArray<PropertyKey>): string {
  let text = ''
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$-]*$/.test(segment)) text += (text ? '.' : '') + segment
    else text += `[${JSON.stringify(String(segment))}]`
  }
  return text
}

/** Parses a key path as messages show it (`config.toolOrder[2]`, `["a b"].c`) back into segments. */
export function parseKeyPath(text: string): Array<string | number> {
  const path: Array<string | number> = []
  const token = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|([^.[\]]+)/g
  for (const match of text.matchAll(token)) {
    if (match[1] !== undefined) path.push(Number(match[1]))
    else if (match[2] !== undefined) path.push(JSON.parse(match[2]) as string)
    else path.push(match[3])
  }
  return path
}

/** A short description of what a node holds, for "must be X, found Y" messages. */
export function describeNode(node: Node | null | undefined): string {
  if (node === null || node === undefined) return 'nothing'
  if (isMap(node)) return 'a mapping'
  if (isSeq(node)) return 'a list'
  if (isScalar(node)) {
    const value = node.value
    if (value === null) return 'nothing'
    if (typeof value === 'string') return `a string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
    return `a ${typeof value} (${String(value)})`
  }
  return 'an alias'
}

/** `file` relative to the working directory when inside it, else absolute. */
export function displayPath(file: string): string {
  const rel = relative(process.cwd(), file)
  if (rel === '') return '.'
  return !rel.startsWith('..') && !isAbsolute(rel) ? rel : file
}
