/**
 * Where a ledger lives between restarts: the `LedgerStore` interface (append lines, read them all) a
 * harness backs with its own database, `FileLedgerStore` (JSON Lines on disk), and `LedgerWriter`,
 * which appends to a store only the lines an agent's record gained since the last `sync()`.
 * @module
 */
import { appendFile, open, readFile, truncate } from 'node:fs/promises'
import { resolve } from 'node:path'
import { storedHash } from 'dsh-store'
import type { Agent } from './agent.js'
import {
  ledgerBlankLine, ledgerCutShort, ledgerInvalidStored, ledgerLineBreak, ledgerStoreMismatch, ledgerWriterExists, ledgerWriterNeedsStored,
} from './errors.js'
import { headerOf, LedgerChain, lineHash, writeLine } from './ledger-format.js'

/**
 * A ledger's storage: lines in order, appended, never rewritten. Each line is one line of JSON
 * without its line break. A database table with an auto-increment key and a text column is enough.
 */
export interface LedgerStore {
  /**
   * Appends `lines` after the stored ones, all or none. `LedgerWriter` passes the head its chain ends
   * at, so a store that checks it (dsh-store's `ledgerStore()`) refuses a second writer's append.
   */
  append(lines: readonly string[], options?: { expectedHead: string }): Promise<void>
  /** Every stored line, in order (an empty array for a ledger not started). */
  read(): Promise<string[]>
}

/** Options of {@link FileLedgerStore}. */
export interface FileLedgerStoreOptions {
  /**
   * What `read()` does with a last line that has no line break after it (an append that was cut
   * short by a crash), and with blank lines at the end of the file: `false` (default) refuses them
   * (`AGENT_LEDGER_CUT_SHORT`, `AGENT_LEDGER_BLANK_LINE`) naming the line; `true` repairs the end of
   * the file and reads on. A last line that is complete (JSON whose hash follows the line before it)
   * and lacks only its line break gets it; any other cut-short line is cut off with the blank lines
   * (the conversation resumes from the line before).
   */
  dropCutShortLine?: boolean
  /** Whether each append waits for the data to reach the disk (`fdatasync`; default `true`). */
  sync?: boolean
}

/**
 * A ledger in a JSON Lines file. Each `append()` is one write of whole lines, each ending with a
 * line break, to a file opened for appending; a write that fails is cut back off the file. A crash
 * during a write can leave a last line without its line break: `read()` refuses it (or drops it, with
 * `dropCutShortLine`), and `append()` never writes after it.
 */
export class FileLedgerStore implements LedgerStore {
  constructor(readonly path: string, readonly options: FileLedgerStoreOptions = {}) {}

  async append(lines: readonly string[]): Promise<void> {
    lines.forEach((line, index) => {
      if (line.includes('\n') || line.includes('\r')) throw ledgerLineBreak(index)
    })
    if (!lines.length) return
    const file = await open(this.path, 'a+')
    try {
      const { size } = await file.stat()
      if (size > 0) {
        const last = Buffer.alloc(2)
        await file.read(last, 0, 2, Math.max(0, size - 2))
        const tail = size === 1 ? last.subarray(0, 1) : last
        if (tail[tail.length - 1] !== 0x0a) throw ledgerCutShort(await this.lineCount())
        // A blank last line: a line written after it would follow a blank line in the middle.
        if (tail.length === 1 || tail[0] === 0x0a) throw ledgerBlankLine(await this.firstTrailingBlank(), true)
      }
      try {
        await file.appendFile(lines.map((line) => line + '\n').join(''), 'utf8')
        if (this.options.sync !== false) await file.datasync()
      } catch (error) {
        await file.truncate(size).catch(() => {})
        throw error
      }
    } finally {
      await file.close()
    }
  }

  async read(): Promise<string[]> {
    let bytes: Buffer
    try {
      bytes = await readFile(this.path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    if (!bytes.length) return []
    // Cut at byte offsets, so a damaged (non-UTF-8) line cannot shift a cut.
    const end = bytes.lastIndexOf(0x0a) + 1
    const cut = end === bytes.length ? undefined : bytes.subarray(end).toString('utf8')
    if (cut !== undefined && !this.options.dropCutShortLine) throw ledgerCutShort((end ? countLines(bytes.subarray(0, end)) : 0) + 1)
    // Blank lines at the end: `keep` is where the last non-blank line's line break ends.
    let keep = end
    while (keep > 0 && (keep === 1 || bytes[keep - 2] === 0x0a)) keep--
    const lines = keep ? bytes.subarray(0, keep - 1).toString('utf8').split('\n') : []
    if (keep < end && !this.options.dropCutShortLine) throw ledgerBlankLine(lines.length + 1, true)
    if (keep === bytes.length) return lines
    // Only a line that is not complete is dropped: a whole line (after no blank line) missing only its line break keeps it.
    // (Only its line break is written: the line itself is never off the disk, even for a moment.)
    if (cut !== undefined && keep === end && completesChain(lines.at(-1), cut)) {
      await appendFile(this.path, '\n', 'utf8')
      return [...lines, cut]
    }
    await truncate(this.path, keep)
    return lines
  }

  /** The number of the first of the blank lines the file ends with. */
  private async firstTrailingBlank(): Promise<number> {
    const all = (await readFile(this.path, 'utf8')).split('\n')
    let n = all.length - 1
    while (n > 0 && all[n - 1] === '') n--
    return n + 1
  }

  /** The number of lines in the file, counting a last line without a line break. */
  private async lineCount(): Promise<number> {
    return (await readFile(this.path, 'utf8')).split('\n').length
  }
}

/** How many lines `bytes` (ending with a line break) holds. */
function countLines(bytes: Buffer): number {
  let count = 0
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) count++
  return count
}

/**
 * Whether `text` is a complete ledger line that follows `previous` (a line, or `undefined` before the
 * header): a JSON object written as the ledger writes lines, whose hash chains to `previous`'s.
 */
function completesChain(previous: string | undefined, text: string): boolean {
  try {
    const before = previous === undefined ? '' : (JSON.parse(previous) as { hash?: unknown }).hash
    const value = JSON.parse(text) as unknown
    if (typeof before !== 'string' || typeof value !== 'object' || value === null || Array.isArray(value)) return false
    const { hash, ...fields } = value as Record<string, unknown>
    return typeof hash === 'string' && lineHash(before, fields) === hash && writeLine(fields, hash) === text
  } catch {
    return false
  }
}

/** Options of {@link LedgerWriter}. */
export interface LedgerWriterOptions {
  /**
   * How many lines of this agent's ledger the store holds already (default 0: none, not even the
   * header). After `agents.restore(lines)`, pass `lines.length` (required for a restored agent:
   * `AGENT_LEDGER_WRITER_NEEDS_STORED`; pass 0 to write the whole ledger to a new store).
   */
  stored?: number
}

/**
 * Keeps a store up to date with one agent's record: `sync()` after each `step()` and `record()`
 * appends only the lines added since the last sync. Syncs run one after another.
 */
export class LedgerWriter {
  private readonly chain = new LedgerChain()
  private written: number
  /** Whether the store was seen to end where this writer's chain does (checked before the first append). */
  private checked = false
  private queue: Promise<unknown> = Promise.resolve()

  /**
   * Refused with `AGENT_LEDGER_WRITER_NEEDS_STORED` for a restored agent without `stored`, and with
   * `AGENT_LEDGER_WRITER_EXISTS` when the agent has a writer for the same store already (the same
   * object, or a `FileLedgerStore` of the same file).
   */
  constructor(readonly agent: Agent, readonly store: LedgerStore, options: LedgerWriterOptions = {}) {
    const restored = agent.restoredLines
    if (options.stored === undefined && restored !== undefined) throw ledgerWriterNeedsStored(agent.id, restored)
    const stored = options.stored ?? 0
    const most = agent.ledgerLength + 1
    if (!Number.isInteger(stored) || stored < 0 || stored > most) throw ledgerInvalidStored(agent.id, stored, most)
    claimStore(this)
    this.written = stored
    // Replays the chain over what is stored, so the next line links to the stored head.
    if (stored > 0) {
      this.chain.header(headerOf(agent))
      for (const item of agent.ledgerItems().slice(0, stored - 1)) this.chain.entry(item)
    }
  }

  /** The hash of the last line in the store (keep it to pass as `head` to a restore). */
  get head(): string {
    return this.chain.head
  }

  /** How many lines of the ledger the store holds. */
  get lines(): number {
    return this.written
  }

  /** Appends the lines the record gained since the last sync; resolves to how many were appended. */
  sync(): Promise<number> {
    const run = this.queue.then(() => this.flush())
    this.queue = run.catch(() => {})
    return run
  }

  private async flush(): Promise<number> {
    const chain = Object.assign(new LedgerChain(), this.chain)
    const lines: string[] = []
    if (this.written === 0) lines.push(chain.header(headerOf(this.agent)))
    for (const item of this.agent.ledgerItems(Math.max(0, this.written - 1))) lines.push(chain.entry(item))
    if (!lines.length) return 0
    if (!this.checked) await this.checkStore()
    await this.store.append(lines, { expectedHead: this.chain.head })
    Object.assign(this.chain, chain)
    this.written += lines.length
    return lines.length
  }

  /**
   * Before the first append: the store must hold exactly the lines this writer counts, ending with its
   * head, or the next line would start a second chain (a wrong `stored`, another writer or process
   * that appended, a new agent on an old file): `AGENT_LEDGER_STORE_MISMATCH`, and nothing is appended.
   */
  private async checkStore(): Promise<void> {
    const stored = await this.store.read()
    const last = stored.length ? storedHash(stored[stored.length - 1]) ?? '(unreadable)' : ''
    if (stored.length !== this.written || last !== this.chain.head) {
      throw ledgerStoreMismatch(this.agent.id, { lines: this.written, head: this.chain.head }, { lines: stored.length, head: last })
    }
    this.checked = true
  }
}

/** The stores each agent has a writer for: by object, and by file for `FileLedgerStore`s (two objects can name one file). */
const claims = new WeakMap<Agent, Set<LedgerStore | string>>()

/** Records that `writer` writes its agent's ledger to its store, refusing a second writer of the same agent and store. */
function claimStore(writer: LedgerWriter): void {
  const { store, agent } = writer
  const key = store instanceof FileLedgerStore ? `file:${resolve(store.path)}` : store
  let held = claims.get(agent)
  if (!held) claims.set(agent, held = new Set())
  if (held.has(key)) throw ledgerWriterExists(agent.id, store instanceof FileLedgerStore ? `file ${JSON.stringify(store.path)}` : 'the store')
  held.add(key)
}
