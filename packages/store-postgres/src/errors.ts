/**
 * Every error message of `dsh-store-postgres`, made in one place. Each carries a stable `code`
 * (`PGSTORE_*`) and its `details`. A conflict, a bad entry, key or option is dsh-store's own error
 * (`STORE_*`), the same as every store throws.
 * @module
 */

/** A `schema` option that is not a plain SQL identifier. */
export const invalidSchema = (schema: unknown) =>
  Object.assign(new TypeError(`schema ${JSON.stringify(schema) ?? String(schema)} is not a plain identifier (letters, digits and _, not starting with a digit, at most 63 characters)`), {
    code: 'PGSTORE_INVALID_SCHEMA' as const, details: { schema },
  })

/** The store's tables are missing: `setup()` was not run on this database and schema. */
export const notSetUp = (schema: string, problem: string) =>
  Object.assign(new Error(`the conversation store's tables are missing in schema "${schema}" (${problem}): call setup() once before using the store`), {
    code: 'PGSTORE_NOT_SET_UP' as const, details: { schema, problem },
  })

/** The database holds a newer schema than this package knows: an older worker beside newer ones. */
export const newerSchema = (schema: string, found: number, known: number) =>
  Object.assign(new Error(`schema "${schema}" is at version ${found} of the conversation store, this package knows up to ${known}: upgrade dsh-store-postgres on this worker`), {
    code: 'PGSTORE_NEWER_SCHEMA' as const, details: { schema, found, known },
  })

/** An entry refers to a stored text that is missing (the database was edited by hand, or restored in part). */
export const missingBlob = (conversation: string, sub: string | undefined, index: number, hash: string) =>
  Object.assign(new Error(`conversation ${JSON.stringify(conversation)}${sub === undefined ? '' : ` sub-key ${JSON.stringify(sub)}`}: entry ${index} refers to stored text ${hash}, which the blobs table lacks`), {
    code: 'PGSTORE_MISSING_BLOB' as const, details: { conversation, sub, index, hash },
  })
