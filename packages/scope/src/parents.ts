/**
 * Parent links between scope keys, and the chains they form: what a scope sees above itself. A link is a
 * fact about two key objects, so there is one relation per process, shared by every app (keys are
 * compared by identity; an app's own keys never meet another app's). Links are never cyclic and outlive
 * the scopes (a disposed middle scope still passes its chain on). A link is set once, except through the
 * {@link ScopeParentBinding} that `bindScopeParent` hands to the one who bound it. Depends only on the
 * error catalogue, so every other file can use it.
 * @module
 */
import type { Context } from 'cordis'
import type { ScopeKey } from './state.js'
import { invalidScopeKey, parentAlreadyBound, parentAlreadySet, parentCycle } from './errors.js'

/** Parent links; held weakly, so a link goes with its key object. */
const parents = new WeakMap<ScopeKey, ScopeKey>()
/**
 * The label `createScope` last gave each key, in any app: what `scopeLabel` answers and how link errors
 * name a key (`scope` if none). One table for the process, as the links: a table keeps the size it grew
 * to after its keys are collected, so a second one per app cost a second high-water table (256 KB after
 * 10,000 scopes came and went).
 */
const labels = new WeakMap<ScopeKey, string>()

/** Records `label` as the name link errors give `key`. Called by `createScope`. */
export function nameKey(key: ScopeKey, label: string): void {
  labels.set(key, label)
}

/** The label `createScope` last gave `key`, or `undefined` for a key that never had a scope. */
export function keyLabel(key: ScopeKey): string | undefined {
  return labels.get(key)
}

function labelOf(key: ScopeKey): string {
  return labels.get(key) ?? 'scope'
}

/**
 * Links `key` to `parent`. A link is set once (setting the same parent again is a no-op) and may
 * never make a scope its own ancestor. `ctx` is not needed: links are per process (kept for callers).
 */
export function setScopeParent(_ctx: Context | undefined, key: ScopeKey, parent: ScopeKey): void {
  if (!isKey(key)) throw invalidScopeKey(key)
  checkParent(key, parent)
  parents.set(key, parent)
}

/**
 * Throws unless `parent` may become the parent of `key`: `parent` must be a key, `key` must have no
 * other parent, and the link must not make `key` its own ancestor. `label` names `key` in the error.
 */
export function checkParent(key: ScopeKey, parent: ScopeKey, label = labelOf(key)): void {
  if (!isKey(parent)) throw invalidScopeKey(parent)
  const current = parents.get(key)
  if (current === parent) return
  if (current !== undefined) throw parentAlreadySet(label)
  checkAcyclic(key, parent, label)
}

/** Throws `parentCycle` when `key` is `parent` or one of its ancestors. */
function checkAcyclic(key: ScopeKey, parent: ScopeKey, label = labelOf(key)): void {
  for (let cursor: ScopeKey | undefined = parent; cursor !== undefined; cursor = parents.get(cursor)) {
    if (cursor === key) throw parentCycle(label)
  }
}

/** The handle that alone may move one key's parent link: what {@link bindScopeParent} returns. */
export interface ScopeParentBinding {
  /** The key this binding moves. */
  readonly key: ScopeKey
  /**
   * Links the key to `parent` instead, under the same checks as the bind (a key, no cycle). Every chain
   * through the key reads the new link from its next walk: views memoised per chain are recomputed and
   * event admission follows it. Whatever was made for the key under the old parent (an assembly, a
   * recorded conversation) is the holder's to drop; the relation cannot see it.
   */
  rebind(parent: ScopeKey): void
}

/** A binding; a class, so a bind costs no closure. */
class Binding implements ScopeParentBinding {
  constructor(readonly key: ScopeKey) {}

  rebind(parent: ScopeKey): void {
    if (!isKey(parent)) throw invalidScopeKey(parent)
    checkAcyclic(this.key, parent)
    parents.set(this.key, parent)
  }
}

/**
 * Binds `parent` as `key`'s parent and returns the binding that alone may move the link later. A key that
 * already has a parent, however it got it, is refused (`parentAlreadyBound`), and so is a link that would
 * close a cycle (`parentCycle`); a refused bind changes nothing.
 */
export function bindScopeParent(key: ScopeKey, parent: ScopeKey): ScopeParentBinding {
  if (!isKey(key)) throw invalidScopeKey(key)
  if (!isKey(parent)) throw invalidScopeKey(parent)
  if (parents.has(key)) throw parentAlreadyBound(labelOf(key))
  checkAcyclic(key, parent)
  parents.set(key, parent)
  return new Binding(key)
}

/** Whether `value` can be a scope key: an object or a function (compared by identity). */
export function isKey(value: unknown): value is ScopeKey {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
}

/** The parent key of `key`, if one was set. */
export function scopeParentOf(key: ScopeKey): ScopeKey | undefined {
  return parents.get(key)
}

/** {@link scopeParentOf}; `ctx` is not needed (links are per process) and kept for callers. */
export function parentOf(_ctx: Context | undefined, key: ScopeKey): ScopeKey | undefined {
  return parents.get(key)
}

/**
 * The chain of keys an assembly for `key` sees, nearest first: `[key, parent, grandparent, ...]`, as a
 * fresh array. `undefined` gives `[]` (the global layer only). Disposed scopes stay in the chain (their
 * layers are simply empty), so a sub-agent of a disposed agent still sees the preset above it.
 */
export function scopeChainOf(key: ScopeKey | undefined): ScopeKey[] {
  const chain: ScopeKey[] = []
  for (let cursor: ScopeKey | undefined = key; cursor !== undefined; cursor = parents.get(cursor)) {
    chain.push(cursor)
  }
  return chain
}

/** {@link scopeChainOf}; `ctx` is not needed (links are per process) and kept for callers. */
export function scopeChain(_ctx: Context | undefined, key: ScopeKey | undefined): ScopeKey[] {
  return scopeChainOf(key)
}
