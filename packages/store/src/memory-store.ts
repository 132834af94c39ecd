/**
 * A conversation store in memory: for tests, single-process harnesses, and as the plain reference a
 * model-based test compares other stores against. Instances made over the same `data` share it (the
 * conformance suite opens a second instance to play another worker).
 * @module
 */
import { conflict } from './errors.js'
import {
  checkConversation, checkEntries, checkExpectedHead, checkFrom, checkKey, type AppendOptions, type ConversationStore, type ConversationSummary,
  type LoadOptions, type StoreHead, type StoreKey,
} from './store.js'

/** One key's entries and head. */
export interface MemoryLedger {
  readonly conversation: string
  readonly sub: string | undefined
  readonly entries: string[]
  head: string
}

/** What instances of {@link MemoryConversationStore} share: each key's ledger, by `[conversation, sub]`. */
export type MemoryStorage = Map<string, MemoryLedger>

const id = (conversation: string, sub: string | undefined) => JSON.stringify([conversation, sub ?? null])

/** A conversation store in a `Map`. An append is checked whole, then made in one synchronous step. */
export class MemoryConversationStore implements ConversationStore {
  constructor(readonly data: MemoryStorage = new Map()) {}

  async append(key: StoreKey, entries: readonly string[], options: AppendOptions): Promise<StoreHead> {
    const { conversation, sub } = checkKey(key)
    const expected = checkExpectedHead(options)
    const { hashes } = checkEntries(conversation, sub, entries)
    const ledger = this.data.get(id(conversation, sub))
    const head = ledger?.head ?? ''
    if (head !== expected) throw conflict(conversation, sub, expected, head, ledger?.entries.length ?? 0)
    if (!entries.length) return { head, length: ledger?.entries.length ?? 0 }
    const target = ledger ?? { conversation, sub, entries: [], head: '' }
    target.entries.push(...entries)
    target.head = hashes[hashes.length - 1]
    this.data.set(id(conversation, sub), target)
    return { head: target.head, length: target.entries.length }
  }

  async *load(key: StoreKey, options?: LoadOptions): AsyncIterable<string> {
    const { conversation, sub } = checkKey(key)
    const from = checkFrom(options)
    const ledger = this.data.get(id(conversation, sub))
    if (!ledger) return
    // The entries stored when loading began: a later append is not read half.
    const end = ledger.entries.length
    for (let index = from; index < end; index++) yield ledger.entries[index]
  }

  async head(key: StoreKey): Promise<StoreHead> {
    const { conversation, sub } = checkKey(key)
    const ledger = this.data.get(id(conversation, sub))
    return { head: ledger?.head ?? '', length: ledger?.entries.length ?? 0 }
  }

  async *list(): AsyncIterable<ConversationSummary> {
    const own = [...this.data.values()].filter((ledger) => ledger.sub === undefined).sort((a, b) => compare(a.conversation, b.conversation))
    for (const ledger of own) yield { conversation: ledger.conversation, length: ledger.entries.length, head: ledger.head }
  }

  async listSubkeys(conversation: string): Promise<string[]> {
    checkConversation(conversation)
    return [...this.data.values()].filter((ledger) => ledger.conversation === conversation && ledger.sub !== undefined).map((ledger) => ledger.sub!).sort(compare)
  }

  async delete(key: StoreKey): Promise<void> {
    const { conversation, sub } = checkKey(key)
    for (const [name, ledger] of this.data) {
      if (ledger.conversation === conversation && (sub === undefined || ledger.sub === sub)) this.data.delete(name)
    }
  }
}

/** Code-unit order, the order every store lists in (PostgreSQL sorts with `COLLATE "C"`). */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
