/**
 * The conversation store interface (R-STORE): where a conversation's ledger lines live between
 * processes. Keyed by conversation, with sub-keys for its forks and sub-agents. Entries are opaque
 * lines of canonical JSON, each an object whose `hash` is the chain's head after it; a store keeps their
 * bytes exactly and uses the chain as optimistic concurrency: an append names the head it expects, and
 * a stale head is `STORE_CONFLICT` with nothing written. Shaped after the Claude Agent SDK's
 * `SessionStore` and LangGraph's checkpoint savers. Pure types and the checks every adapter shares.
 * @module
 */
import { invalidEntry, invalidKey, invalidOption } from './errors.js'

/** A conversation, or one of its sub-keys (a fork, a sub-agent's ledger). */
export interface StoreKey {
  /** The conversation's id: a non-empty string. */
  readonly conversation: string
  /** A sub-key under the conversation (`fork/title`, `agent/reviewer`); absent for the conversation's own ledger. */
  readonly sub?: string
}

/** Where a key's chain ends. */
export interface StoreHead {
  /** The `hash` of the last entry (`''` when the key holds none). */
  readonly head: string
  /** How many entries the key holds. */
  readonly length: number
}

/** Options of {@link ConversationStore.append}. */
export interface AppendOptions {
  /** The head the writer last saw (`''` for a key it starts). Any other stored head is `STORE_CONFLICT`. */
  readonly expectedHead: string
}

/** Options of {@link ConversationStore.load}. */
export interface LoadOptions {
  /** How many entries to skip (default 0: from the first). */
  readonly from?: number
}

/** One conversation as {@link ConversationStore.list} reports it. */
export interface ConversationSummary {
  readonly conversation: string
  /** Entries of the conversation's own ledger (sub-keys not counted). */
  readonly length: number
  readonly head: string
}

/**
 * A conversation store. Every method is safe to call from several instances on the same storage
 * (each adapter says how far: processes, machines). Appends are all or nothing.
 */
export interface ConversationStore {
  /**
   * Appends `entries` after the key's stored ones, if the stored head is `expectedHead`; resolves to
   * the new head. `STORE_CONFLICT` when it is not, `STORE_INVALID_ENTRY` for an entry that is not one
   * line of JSON holding an object with a string `hash`: in both cases nothing is written.
   */
  append(key: StoreKey, entries: readonly string[], options: AppendOptions): Promise<StoreHead>
  /** The key's entries in order, from `from`, read as they are iterated (never all at once). */
  load(key: StoreKey, options?: LoadOptions): AsyncIterable<string>
  /** Where the key's chain ends (`{ head: '', length: 0 }` for a key never written). */
  head(key: StoreKey): Promise<StoreHead>
  /** Every conversation with a ledger of its own, in the order of their ids. */
  list(): AsyncIterable<ConversationSummary>
  /** The sub-keys under `conversation`, sorted. */
  listSubkeys(conversation: string): Promise<string[]>
  /** Removes the key's entries; a conversation's own key takes its sub-keys with it. */
  delete(key: StoreKey): Promise<void>
  /** Releases what the store holds open (connections, handles). Optional. */
  close?(): Promise<void>
}

/** Checks `key` (`STORE_INVALID_KEY`) and returns its parts. */
export function checkKey(key: StoreKey): { conversation: string; sub: string | undefined } {
  if (typeof key !== 'object' || key === null) throw invalidKey(key, 'a key must be an object { conversation, sub? }')
  if (typeof key.conversation !== 'string' || !key.conversation) throw invalidKey(key, 'conversation must be a non-empty string')
  if (key.sub !== undefined && (typeof key.sub !== 'string' || !key.sub)) throw invalidKey(key, 'sub must be a non-empty string when given')
  return { conversation: key.conversation, sub: key.sub }
}

/** Checks a conversation id given alone (`listSubkeys`). */
export function checkConversation(conversation: string): string {
  return checkKey({ conversation }).conversation
}

/** Checks `options.expectedHead` (`STORE_INVALID_OPTION`). */
export function checkExpectedHead(options: AppendOptions | undefined): string {
  const head = options?.expectedHead
  if (typeof head !== 'string') throw invalidOption('append', 'expectedHead', 'must be a string (the head the writer last saw; "" for a new key)')
  return head
}

/** Checks `options.from` (`STORE_INVALID_OPTION`); 0 when absent. */
export function checkFrom(options: LoadOptions | undefined): number {
  const from = options?.from ?? 0
  if (!Number.isSafeInteger(from) || from < 0) throw invalidOption('load', 'from', `must be a count of entries (an integer from 0), received ${JSON.stringify(from) ?? String(from)}`)
  return from
}

/**
 * The `hash` of each entry, checked: one line (no line break), JSON, an object, a non-empty string
 * `hash`. Throws `STORE_INVALID_ENTRY` naming the first entry at fault; returns the parsed objects too
 * (adapters that store parts of an entry apart read them).
 */
export function checkEntries(conversation: string, sub: string | undefined, entries: readonly string[]): { hashes: string[]; values: Record<string, unknown>[] } {
  if (!Array.isArray(entries)) throw invalidEntry(conversation, sub, 0, 'list is not an array of lines')
  const hashes: string[] = []
  const values: Record<string, unknown>[] = []
  entries.forEach((line, index) => {
    if (typeof line !== 'string') throw invalidEntry(conversation, sub, index, `is not a string (a line of JSON), found ${typeof line}`)
    if (line.includes('\n') || line.includes('\r')) throw invalidEntry(conversation, sub, index, 'holds a line break (an entry is one line)')
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      throw invalidEntry(conversation, sub, index, `is not JSON (${(error as Error).message})`)
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidEntry(conversation, sub, index, 'is not a JSON object')
    const hash = (value as { hash?: unknown }).hash
    if (typeof hash !== 'string' || !hash) throw invalidEntry(conversation, sub, index, 'has no "hash" (a non-empty string: the chain\'s head after the entry)')
    hashes.push(hash)
    values.push(value as Record<string, unknown>)
  })
  return { hashes, values }
}

/**
 * The `hash` of a stored line: the chain's head after it, or `undefined` for a line that is not a JSON
 * object with a string `hash` (an old ledger file's damaged line). The one reading of a line's hash that
 * stores, `ledgerStore()` and dsh-agent's `LedgerWriter` share.
 */
export function storedHash(line: string): string | undefined {
  try {
    const hash = (JSON.parse(line) as { hash?: unknown } | null)?.hash
    return typeof hash === 'string' ? hash : undefined
  } catch {
    return undefined
  }
}

/** Every entry of `key`, in one array: for a caller that needs them all (`agents.restore()`). */
export async function loadAll(store: ConversationStore, key: StoreKey, options?: LoadOptions): Promise<string[]> {
  const lines: string[] = []
  for await (const line of store.load(key, options)) lines.push(line)
  return lines
}
