/**
 * Parent links between scope keys, and the chains they form: what a scope sees above itself. Links are
 * per app, set once, never cyclic, and outlive the scopes (a disposed middle scope still passes its chain
 * on). Depends only on the app state and the error catalogue, so every other file can use it.
 * @module
 */
import type { Context } from 'cordis'
import { appState, type AppState, type ScopeKey } from './state.js'
import { invalidScopeKey, parentAlreadySet, parentCycle } from './errors.js'

/**
 * Links `key` to `parent`. A link is set once (setting the same parent again is a no-op) and may
 * never make a scope its own ancestor.
 */
export function setScopeParent(ctx: Context, key: ScopeKey, parent: ScopeKey): void {
  if (!isKey(key)) throw invalidScopeKey(key)
  const state = appState(ctx)
  checkParent(state, key, parent, state.labels.get(key) ?? 'scope')
  state.parents.set(key, parent)
}

/**
 * Throws unless `parent` may become the parent of `key` (`label` names `key` in the error): `parent` must
 * be a key, `key` must have no other parent, and the link must not make `key` its own ancestor.
 */
export function checkParent(state: AppState, key: ScopeKey, parent: ScopeKey, label: string): void {
  if (!isKey(parent)) throw invalidScopeKey(parent)
  const current = state.parents.get(key)
  if (current === parent) return
  if (current !== undefined) throw parentAlreadySet(label)
  for (let cursor: ScopeKey | undefined = parent; cursor !== undefined; cursor = state.parents.get(cursor)) {
    if (cursor === key) throw parentCycle(label)
  }
}

/** Whether `value` can be a scope key: an object or a function (compared by identity). */
export function isKey(value: unknown): value is ScopeKey {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
}

/** The parent key of `key`, if one was set. */
export function parentOf(ctx: Context, key: ScopeKey): ScopeKey | undefined {
  return appState(ctx).parents.get(key)
}

/**
 * The chain of keys an assembly for `key` sees, nearest first: `[key, parent, grandparent, ...]`.
 * `undefined` gives `[]` (the global layer only). Disposed scopes stay in the chain (their layers are
 * simply empty), so a sub-agent of a disposed agent still sees the preset above it.
 */
export function scopeChain(ctx: Context, key: ScopeKey | undefined): ScopeKey[] {
  return chainIn(appState(ctx), key)
}

/** {@link scopeChain} in the app whose bookkeeping is `state`. */
export function chainIn(state: AppState, key: ScopeKey | undefined): ScopeKey[] {
  const chain: ScopeKey[] = []
  if (key === undefined) return chain
  const parents = state.parents
  for (let cursor: ScopeKey | undefined = key; cursor !== undefined; cursor = parents.get(cursor)) {
    chain.push(cursor)
  }
  return chain
}
