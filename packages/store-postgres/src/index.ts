/**
 * `dsh-store-postgres`: a dsh conversation store on PostgreSQL (R-STORE). `PostgresConversationStore`
 * over a node-postgres pool you pass in, or embedded on PGlite (`PostgresConversationStore.embedded()`),
 * one SQL schema for both, `setup()` migrations, a `schema` option, section texts and tool schemas stored once by hash.
 * It passes dsh-store's conformance suite.
 * @module
 */
export { PostgresConversationStore } from './postgres-store.js'
export type { PostgresStoreOptions } from './postgres-store.js'
export { pgDriver, pgliteDriver } from './sql-driver.js'
export type { SqlDriver, SqlQueryable } from './sql-driver.js'
export { MIGRATIONS, tablesOf } from './schema.js'
export type { Tables } from './schema.js'
export { DEFAULT_BLOB_RULES, joinEntry, splitEntry, textHash } from './blobs.js'
export type { BlobRules, SplitEntry } from './blobs.js'
export * as PostgresStoreErrors from './errors.js'
