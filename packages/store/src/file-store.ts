/**
 * A conversation store in a folder of JSON Lines files, one per key: `<conversation>.jsonl`, and
 * `<conversation>.subs/<sub>.jsonl` for sub-keys (names percent-encoded). Each file is a ledger file as
 * dsh-agent's `FileLedgerStore` writes it, so old ledger files read as they are. Beside each file, a
 * commit record `<file>.head` (`{"bytes","length","head"}`, replaced atomically by rename after the data
 * reached the disk) says where the last whole append ends: bytes after it are an append a crash cut
 * short, never read and cut off by the next append. A file without a record (an old ledger) is
 * committed up to its last line break. Appends to one file are serialised within a process; for
 * several processes on one conversation use a database store (dsh-store-postgres).
 * @module
 */
import { createReadStream } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { conflict, lostEntries, unreadableCommit } from './errors.js'
import { compare } from './memory-store.js'
import {
  checkConversation, checkEntries, checkExpectedHead, checkFrom, checkKey, storedHash, type AppendOptions, type ConversationStore, type ConversationSummary,
  type LoadOptions, type StoreHead, type StoreKey,
} from './store.js'

/** Options of {@link FileConversationStore}. */
export interface FileConversationStoreOptions {
  /** Whether each append waits for its data and commit record to reach the disk (`fdatasync`; default `true`). */
  sync?: boolean
}

/** Where a file's last whole append ends. */
interface Commit {
  bytes: number
  length: number
  head: string
}

const EXTENSION = '.jsonl'
const SUBS = '.subs'
/** Appends and deletes in flight, by file: one at a time per file in this process. */
const locks = new Map<string, Promise<unknown>>()

/** A conversation store in the folder `folder` (made on the first append). */
export class FileConversationStore implements ConversationStore {
  readonly folder: string

  constructor(folder: string, readonly options: FileConversationStoreOptions = {}) {
    this.folder = resolve(folder)
  }

  /** The JSON Lines file of `key`. */
  fileOf(key: StoreKey): string {
    const { conversation, sub } = checkKey(key)
    const base = encodeURIComponent(conversation)
    return sub === undefined ? join(this.folder, base + EXTENSION) : join(this.folder, base + SUBS, encodeURIComponent(sub) + EXTENSION)
  }

  async append(key: StoreKey, entries: readonly string[], options: AppendOptions): Promise<StoreHead> {
    const { conversation, sub } = checkKey(key)
    const expected = checkExpectedHead(options)
    const { hashes } = checkEntries(conversation, sub, entries)
    const file = this.fileOf(key)
    return serialised(file, async () => {
      const commit = await readCommit(file)
      if (commit.head !== expected) throw conflict(conversation, sub, expected, commit.head, commit.length)
      if (!entries.length) return { head: commit.head, length: commit.length }
      if (sub !== undefined) await mkdir(join(file, '..'), { recursive: true })
      else await mkdir(this.folder, { recursive: true })
      const data = Buffer.from(entries.map((line) => line + '\n').join(''), 'utf8')
      const handle = await open(file, 'a')
      try {
        // Bytes after the commit are an append a crash cut short: cut them off before writing after them.
        if ((await handle.stat()).size > commit.bytes) await handle.truncate(commit.bytes)
        await handle.appendFile(data)
        if (this.options.sync !== false) await handle.datasync()
      } finally {
        await handle.close()
      }
      const next: Commit = { bytes: commit.bytes + data.length, length: commit.length + entries.length, head: hashes[hashes.length - 1] }
      await writeCommit(file, next, this.options.sync !== false)
      return { head: next.head, length: next.length }
    })
  }

  async *load(key: StoreKey, options?: LoadOptions): AsyncIterable<string> {
    const from = checkFrom(options)
    const file = this.fileOf(key)
    const { bytes } = await readCommit(file)
    let index = 0
    for await (const line of readLines(file, bytes)) if (index++ >= from) yield line
  }

  async head(key: StoreKey): Promise<StoreHead> {
    const { head, length } = await readCommit(this.fileOf(key))
    return { head, length }
  }

  async *list(): AsyncIterable<ConversationSummary> {
    const names = (await readdirOrNone(this.folder)).filter((name) => name.endsWith(EXTENSION)).map((name) => decodeURIComponent(name.slice(0, -EXTENSION.length)))
    for (const conversation of names.sort(compare)) {
      const { head, length } = await readCommit(this.fileOf({ conversation }))
      if (length) yield { conversation, length, head }
    }
  }

  async listSubkeys(conversation: string): Promise<string[]> {
    const folder = join(this.folder, encodeURIComponent(checkConversation(conversation)) + SUBS)
    const names = (await readdirOrNone(folder)).filter((name) => name.endsWith(EXTENSION)).map((name) => decodeURIComponent(name.slice(0, -EXTENSION.length)))
    const kept: string[] = []
    for (const sub of names) if ((await readCommit(this.fileOf({ conversation, sub }))).length) kept.push(sub)
    return kept.sort(compare)
  }

  async delete(key: StoreKey): Promise<void> {
    const { conversation, sub } = checkKey(key)
    const file = this.fileOf(key)
    if (sub === undefined) {
      const folder = join(this.folder, encodeURIComponent(conversation) + SUBS)
      for (const name of (await readdirOrNone(folder)).filter((entry) => entry.endsWith(EXTENSION))) {
        const path = join(folder, name)
        await serialised(path, () => removeFile(path))
      }
      await rm(folder, { recursive: true, force: true })
    }
    await serialised(file, () => removeFile(file))
  }
}

/** Runs `task` after every earlier task on `file` in this process. */
function serialised<T>(file: string, task: () => Promise<T>): Promise<T> {
  const run = (locks.get(file) ?? Promise.resolve()).then(task)
  const settled = run.catch(() => {})
  locks.set(file, settled)
  void settled.then(() => { if (locks.get(file) === settled) locks.delete(file) })
  return run
}

async function removeFile(file: string): Promise<void> {
  await rm(file + '.head', { force: true })
  await rm(file, { force: true })
}

/** A file's commit: its record, or (an old ledger file) its last line break, last line and line count. */
async function readCommit(file: string): Promise<Commit> {
  let text: string | undefined
  try {
    text = await readFile(file + '.head', 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  if (text === undefined) return plainCommit(file)
  let commit: Commit
  try {
    commit = JSON.parse(text) as Commit
  } catch (error) {
    throw unreadableCommit(file, (error as Error).message)
  }
  if (!Number.isSafeInteger(commit?.bytes) || !Number.isSafeInteger(commit.length) || typeof commit.head !== 'string') {
    throw unreadableCommit(file, 'expected {"bytes","length","head"}')
  }
  const size = await sizeOf(file)
  if (size < commit.bytes) throw lostEntries(file, commit.bytes, size)
  return commit
}

/** The commit of a file that has no record: every whole line. */
async function plainCommit(file: string): Promise<Commit> {
  let bytes = 0
  let length = 0
  let last: string | undefined
  for await (const line of readLines(file, Infinity)) {
    bytes += Buffer.byteLength(line, 'utf8') + 1
    length++
    last = line
  }
  return { bytes, length, head: last === undefined ? '' : storedHash(last) ?? '(unreadable)' }
}

/** Replaces the commit record: written beside it, then renamed over it (a reader sees the old or the new one). */
async function writeCommit(file: string, commit: Commit, sync: boolean): Promise<void> {
  const temporary = `${file}.head.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify(commit), { flush: sync })
  await rename(temporary, file + '.head')
}

/** The whole lines in the first `bytes` bytes of `file` (none when it does not exist), read in chunks. */
async function* readLines(file: string, bytes: number): AsyncIterable<string> {
  if (bytes <= 0) return
  let stream
  try {
    await stat(file)
    stream = createReadStream(file, bytes === Infinity ? {} : { start: 0, end: bytes - 1 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  let pending: Buffer = Buffer.alloc(0)
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
    let start = 0
    for (let at = pending.indexOf(0x0a); at !== -1; at = pending.indexOf(0x0a, start)) {
      yield pending.subarray(start, at).toString('utf8')
      start = at + 1
    }
    pending = pending.subarray(start)
  }
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
    throw error
  }
}

async function readdirOrNone(folder: string): Promise<string[]> {
  try {
    return await readdir(folder)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
}
