/**
 * Every error message of `dsh-scope`, made in one place so tests and docs quote the same strings.
 * @module
 */

/** Thrown when a scope is minted for a key that already has a live scope in this app. */
export function scopeAlreadyActive(label: string): Error {
  return new Error(`scope "${label}" is already active for this key`)
}

/** Thrown when a scope's parent link is set a second time to a different parent. */
export function parentAlreadySet(label: string): Error {
  return new Error(`scope "${label}" already has a parent; a parent link is set once`)
}

/** Thrown when a parent link would make a scope its own ancestor. */
export function parentCycle(label: string): Error {
  return new Error(`scope "${label}" cannot take this parent: the parent chain would form a cycle`)
}

/** Thrown when a scope key is not an object (keys are compared by identity). */
export function invalidScopeKey(received: unknown): TypeError {
  return new TypeError(`scope key must be an object or a function (compared by identity), received ${received === null ? 'null' : typeof received}`)
}

/** Thrown when something is registered through the context of a disposed scope. */
export function scopeDisposed(label: string): Error {
  return new Error(`scope "${label}" has been disposed; nothing more can be registered through its context`)
}
