/**
 * One key of a conversation store seen as dsh-agent's `LedgerStore` (`append(lines, { expectedHead })`,
 * `read()`), so a `LedgerWriter` keeps an agent's ledger in any store. The writer passes the head its
 * chain ends at; a writer that does not is given the head this adapter last read or wrote.
 * Structurally typed: dsh-store does not depend on dsh-agent.
 * @module
 */
import { loadAll, storedHash, type ConversationStore, type StoreKey } from './store.js'

/** The `LedgerStore` shape (dsh-agent) over one key of a store. */
export interface KeyLedger {
  append(lines: readonly string[], options?: { expectedHead?: string }): Promise<void>
  read(): Promise<string[]>
  /** The head this adapter last read or wrote (`undefined` before either). */
  readonly head: string | undefined
}

/** `key` of `store` as a ledger store for `new LedgerWriter(agent, ledgerStore(store, key))`. */
export function ledgerStore(store: ConversationStore, key: StoreKey): KeyLedger {
  let known: string | undefined
  return {
    get head() {
      return known
    },
    async append(lines, options) {
      const expectedHead = options?.expectedHead ?? known ?? (await store.head(key)).head
      known = (await store.append(key, lines, { expectedHead })).head
    },
    async read() {
      const lines = await loadAll(store, key)
      known = lines.length ? storedHash(lines[lines.length - 1]) : ''
      return lines
    },
  }
}
