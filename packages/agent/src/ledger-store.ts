/**
 * Where a ledger lives between restarts: the `LedgerStore` interface (append lines, read them all) a
 * harness backs with its own database, `FileLedgerStore` (JSON Lines on disk), and `LedgerWriter`,
 * which appends to a store only the lines an agent's record gained since the last `sync()`.
 * @module
 */
import { open, readFile, truncate } from 'node:fs/promises'
import type { Agent } from './agent.js'
import { ledgerCutShort, ledgerInvalidStored, ledgerLineBreak } from './errors.js'
import { headerOf, LedgerChain } from './ledger-format.js'

/**
 * A ledger's storage: lines in order, appended, never rewritten. Each line is one line of JSON
 * without its line break. A database table with an auto-increment key and a text column is enough.
 */
export interface LedgerStore {
  /** Appends `lines` after the stored ones, all or none. */
  append(lines: readonly string[]): Promise<void>
  /** Every stored line, in order (an empty array for a ledger not started). */
  read(): Promise<string[]>
}

/** Options of {@link FileLedgerStore}. */
export interface FileLedgerStoreOptions {
  /**
   * What `read()` does with a last line that has no line break after it (an append that was cut
   * short by a crash): `false` (default) refuses it with `AGENT_LEDGER_CUT_SHORT` naming the line;
   * `true` truncates the file to the line before and reads on (the conversation resumes from there).
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
        const last = Buffer.alloc(1)
        await file.read(last, 0, 1, size - 1)
        if (last[0] !== 0x0a) throw ledgerCutShort(await this.lineCount())
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
    // Cut at the last line break as bytes, so a damaged (non-UTF-8) tail cannot shift the cut.
    const end = bytes.lastIndexOf(0x0a) + 1
    const lines = end ? bytes.subarray(0, end - 1).toString('utf8').split('\n') : []
    if (end === bytes.length) return lines
    if (!this.options.dropCutShortLine) throw ledgerCutShort(lines.length + 1)
    await truncate(this.path, end)
    return lines
  }

  /** The number of lines in the file, counting a last line without a line break. */
  private async lineCount(): Promise<number> {
    return (await readFile(this.path, 'utf8')).split('\n').length
  }
}

/** Options of {@link LedgerWriter}. */
export interface LedgerWriterOptions {
  /**
   * How many lines of this agent's ledger the store holds already (default 0: none, not even the
   * header). After `agents.restore(lines)`, pass `lines.length`.
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
  private queue: Promise<unknown> = Promise.resolve()

  constructor(readonly agent: Agent, readonly store: LedgerStore, options: LedgerWriterOptions = {}) {
    const stored = options.stored ?? 0
    const most = agent.conversation.length + 1
    if (!Number.isInteger(stored) || stored < 0 || stored > most) throw ledgerInvalidStored(agent.id, stored, most)
    this.written = stored
    // Replays the chain over what is stored, so the next line links to the stored head.
    if (stored > 0) {
      this.chain.header(headerOf(agent))
      for (const item of agent.conversation.slice(0, stored - 1)) this.chain.entry(item)
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
    for (const item of this.agent.conversation.slice(Math.max(0, this.written - 1))) lines.push(chain.entry(item))
    if (!lines.length) return 0
    await this.store.append(lines)
    Object.assign(this.chain, chain)
    this.written += lines.length
    return lines.length
  }
}
