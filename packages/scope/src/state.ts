import type { Context } from 'cordis'
import type { ScopeRun } from './buckets.js'

/** A scope's identity: any object, compared by identity. */
export type ScopeKey = object

/** The context property that tags a context (and every context derived from it) with its scope. */
export const kScope: unique symbol = Symbol.for('dsh.scope')

/** The scope key a context belongs to, or `undefined` for an untagged (global) context. */
export function scopeOf(ctx: Context): ScopeKey | undefined {
  return (ctx as unknown as Record<symbol, ScopeKey | undefined>)[kScope]
}

/** The context property that makes a scope the owner of registrations made through its context. */
export const kOwner: unique symbol = Symbol.for('dsh.scope.owner')

/** A live (or disposed) scope: the owner of what is registered through its context. */
export interface ScopeRecord {
  readonly key: ScopeKey
  readonly label: string
  /**
   * The registrations owned by the scope, in buckets interleaved with the child fiber's effects; torn
   * down last-in first-out, together with those effects, on disposal.
   */
  readonly teardowns: ScopeRun
  /** The context the scope was minted from (its owner). */
  creator?: Context
  /** The child fiber made on demand for generic Cordis effects (`ctx.effect`, `ctx.plugin`, ...). */
  lazy?: { ctx: Context; dispose(): Promise<void> }
  disposed: boolean
  disposing?: Promise<void>
  /** `dispose()` returned the disposal's outcome to a caller (who then owns any rejection). */
  handedOut?: boolean
}

/**
 * Per-app bookkeeping shared by every helper of this package: live scopes and the scoped-listener
 * index (parent links and labels are per process: `parents.ts`). One instance per Cordis root,
 * found through {@link appState}.
 */
export interface AppState {
  /** Live scopes by key. */
  live: Map<ScopeKey, ScopeRecord>
  /** Scoped listeners by event name, then by the scope they were registered through. */
  listeners: Map<string, Map<ScopeKey | typeof GLOBAL, ScopedListener[]>>
  /** Event names routed into the scoped-listener index, with how many definers keep each. */
  scopedEvents: Map<string, number>
  /** Registration counters that order listeners across buckets exactly as Cordis orders one list. */
  seq: { append: number; prepend: number }
}

/** The bucket of listeners registered through untagged contexts, or with `global: true`. */
export const GLOBAL: unique symbol = Symbol('dsh.scope.global')

/** One listener in the scoped-listener index. */
export interface ScopedListener<F extends (...args: any[]) => any = (...args: any[]) => any> {
  /** The listener itself. */
  readonly callback: F
  /** The context it was registered through. */
  readonly ctx: Context
  /** The plugin (fiber) name that registered it, for error messages. */
  readonly owner: string
  /** The scope whose events it sees (with descendants); `undefined` sees all. */
  readonly scope: ScopeKey | undefined
  /** Dispatch position: prepended listeners are negative, appended ones positive. */
  readonly seq: number
}

const states = new WeakMap<object, AppState>()

/** The bookkeeping of the app `ctx` belongs to (created on first use). */
export function appState(ctx: Context): AppState {
  const root = ctx.root as object
  let state = states.get(root)
  if (!state) {
    state = { live: new Map(), listeners: new Map(), scopedEvents: new Map(), seq: { append: 0, prepend: 0 } }
    states.set(root, state)
  }
  return state
}
