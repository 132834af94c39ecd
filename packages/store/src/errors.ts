/**
 * Every error message of `dsh-store`, made in one place so tests and docs quote the same strings. Each
 * error carries a stable `code` (`STORE_*`) and the `details` it is about: code that reacts to an error
 * (a worker that reloads and retries after a conflict) reads those, never the message. Adapters in
 * other packages (dsh-store-postgres) throw these same errors for the same cases.
 * @module
 */

/** How a key is named in a message: `conversation "a"`, `conversation "a" sub-key "fork/1"`. */
export const keyWords = (conversation: string, sub: string | undefined) =>
  `conversation ${JSON.stringify(conversation)}${sub === undefined ? '' : ` sub-key ${JSON.stringify(sub)}`}`

/** An append whose expected head is not the stored head: another writer appended first. Nothing was written. */
export const conflict = (conversation: string, sub: string | undefined, expectedHead: string, head: string, length: number) =>
  Object.assign(new Error(`${keyWords(conversation, sub)}: the append expected head ${JSON.stringify(expectedHead)}, but the store's head is ${JSON.stringify(head)} after ${length} entries (another writer appended first); nothing was written: reload and retry`), {
    code: 'STORE_CONFLICT' as const, details: { conversation, sub, expectedHead, head, length },
  })

/** An entry that is not one line of JSON holding an object with a string `hash`. None of the append's entries was written. */
export const invalidEntry = (conversation: string, sub: string | undefined, index: number, problem: string) =>
  Object.assign(new TypeError(`${keyWords(conversation, sub)}: entry ${index} of the append ${problem}; none of the append's entries was written`), {
    code: 'STORE_INVALID_ENTRY' as const, details: { conversation, sub, index, problem },
  })

/** A key that is not `{ conversation, sub? }` with non-empty strings. */
export const invalidKey = (key: unknown, problem: string) =>
  Object.assign(new TypeError(`store key ${safeJson(key)}: ${problem}`), {
    code: 'STORE_INVALID_KEY' as const, details: { key, problem },
  })

/** An option of a store method that is not of its type (`from` not a count, `expectedHead` not a string). */
export const invalidOption = (method: string, option: string, problem: string) =>
  Object.assign(new TypeError(`store ${method}(): ${option} ${problem}`), {
    code: 'STORE_INVALID_OPTION' as const, details: { method, option, problem },
  })

/** A file store's commit record (`<file>.head`) that cannot be read: the file's committed length is unknown. */
export const unreadableCommit = (file: string, problem: string) =>
  Object.assign(new Error(`${file}: the commit record cannot be read (${problem}); the file's committed entries are unknown: restore the file from a backup or remove the record to read the file as a plain ledger`), {
    code: 'STORE_UNREADABLE_COMMIT' as const, details: { file, problem },
  })

/** A key's stored data is shorter than its commit record says (a file cut by hand, a lost disk write). */
export const lostEntries = (file: string, committed: number, found: number) =>
  Object.assign(new Error(`${file}: the commit record says ${committed} bytes were written, the file holds ${found}: committed entries are lost`), {
    code: 'STORE_LOST_ENTRIES' as const, details: { file, committed, found },
  })

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
