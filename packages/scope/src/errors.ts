/**
 * Every error and warning of `dsh-scope`, made in one place so tests and docs quote the same strings.
 * Each error keeps its message and class and carries a stable `code` (`SCOPE_*`) and a `details` object
 * with the fields it is about: code that reacts to an error reads those, never the message. A warning is
 * a plain `{ code, message, details }` object; the logger prints its `message`.
 * @module
 */

/** A warning of `dsh-scope`: logged as `message`, recognisable by `code`. */
export interface ScopeWarning<C extends string = string, D extends object = object> {
  readonly code: C
  readonly message: string
  readonly details: D
}

/** Thrown when a scope is minted for a key that already has a live scope in this app (`label`: the live one's). */
export function scopeAlreadyActive(label: string) {
  return Object.assign(new Error(`scope "${label}" is already active for this key`), {
    code: 'SCOPE_ALREADY_ACTIVE' as const, details: { label },
  })
}

/** Thrown when a scope's parent link is set a second time to a different parent. */
export function parentAlreadySet(label: string) {
  return Object.assign(new Error(`scope "${label}" already has a parent; a parent link is set once`), {
    code: 'SCOPE_PARENT_ALREADY_SET' as const, details: { label },
  })
}

/**
 * Thrown by `bindScopeParent` for a key that already has a parent (bound, set or given at `createScope`):
 * only the binding returned by the key's first bind may move its link.
 */
export function parentAlreadyBound(label: string) {
  return Object.assign(new Error(`scope "${label}" is already bound to a parent; only the binding returned by its first bindScopeParent can rebind it`), {
    code: 'SCOPE_PARENT_ALREADY_BOUND' as const, details: { label },
  })
}

/** Thrown when a parent link would make a scope its own ancestor. */
export function parentCycle(label: string) {
  return Object.assign(new Error(`scope "${label}" cannot take this parent: the parent chain would form a cycle`), {
    code: 'SCOPE_PARENT_CYCLE' as const, details: { label },
  })
}

/** Thrown when a scope key is not an object (keys are compared by identity); `received` is its type, or `null`. */
export function invalidScopeKey(value: unknown) {
  const received = value === null ? 'null' : typeof value
  return Object.assign(new TypeError(`scope key must be an object or a function (compared by identity), received ${received}`), {
    code: 'SCOPE_INVALID_KEY' as const, details: { received },
  })
}

/** Thrown when something is registered through the context of a disposed scope. */
export function scopeDisposed(label: string) {
  return Object.assign(new Error(`scope "${label}" has been disposed; nothing more can be registered through its context`), {
    code: 'SCOPE_DISPOSED' as const, details: { label },
  })
}

/**
 * Thrown (as a rejection of `dispose()`, or by a plugin's teardown) when several teardowns of one owner
 * threw: all ran, and `errors` holds what each threw, newest first. A single failure is rethrown as is.
 */
export function teardownsFailed(errors: readonly unknown[]) {
  return Object.assign(new AggregateError(errors, `${errors.length} teardowns failed`), {
    code: 'SCOPE_TEARDOWNS_FAILED' as const, details: { count: errors.length },
  })
}

/**
 * Logged on the `dsh-scope` logger when a scope that ended with its creator (so nobody awaits its
 * `dispose()`) had a teardown that threw.
 */
export function teardownFailed(label: string, error: unknown): ScopeWarning<'SCOPE_TEARDOWN_FAILED', { label: string; error: unknown }> {
  const reason = error instanceof Error ? error.message : String(error)
  return {
    code: 'SCOPE_TEARDOWN_FAILED',
    message: `scope "${label}": a teardown failed while its creator was disposed: ${reason}`,
    details: { label, error },
  }
}
