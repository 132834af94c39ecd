/**
 * `dsh-store`: where conversations live between processes (R-STORE). The `ConversationStore`
 * interface (append at an expected head, load as a stream, list, delete, sub-keys), a memory store, a
 * JSON Lines file store that reads dsh-agent's ledger files, and `ledgerStore()`, which hands one key
 * to a `LedgerWriter`. The conformance suite is `dsh-store/conformance`; PostgreSQL (and PGlite) is
 * `dsh-store-postgres`.
 * @module
 */
export { checkConversation, checkEntries, checkExpectedHead, checkFrom, checkKey, loadAll, storedHash } from './store.js'
export type { AppendOptions, ConversationStore, ConversationSummary, LoadOptions, StoreHead, StoreKey } from './store.js'
export { compare, MemoryConversationStore } from './memory-store.js'
export type { MemoryLedger, MemoryStorage } from './memory-store.js'
export { FileConversationStore } from './file-store.js'
export type { FileConversationStoreOptions } from './file-store.js'
export { ledgerStore } from './ledger-adapter.js'
export type { KeyLedger } from './ledger-adapter.js'
export * as StoreErrors from './errors.js'
