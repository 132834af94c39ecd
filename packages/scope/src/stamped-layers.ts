/**
 * `StampedLayers`: dsh's layer store, with a memo per chain validated by stamps (what `ScopedRegistry`
 * and every dsh registry read their views through).
 * @module
 */
import { GLOBAL, type ScopeKey } from './state.js'

/** A resolved entry: the value and the layer it came from (`undefined` for the global layer). */
export interface LayeredEntry<V> {
  readonly value: V
  readonly scope: ScopeKey | undefined
}

interface Layer<V> {
  readonly entries: Map<string, V>
  stamp: number
}

interface Memo<T> {
  chain: readonly ScopeKey[]
  stamps: number[]
  value: T
}

// Memo cleanups by chain head (a scope key), run when that scope is disposed. V8 never shrinks a WeakMap's
// table for entries the collector clears, only on delete(); memos (whose values hold their key) of scopes
// that come and go by the thousand would keep every table at its high-water mark. See forgetScopeMemos.
const memoCleanups = new WeakMap<object, Array<() => void>>()

/** Drops the memos of every {@link StampedLayers} whose chain starts at `key`; called when `key`'s scope is disposed. */
export function forgetScopeMemos(key: ScopeKey): void {
  const cleanups = memoCleanups.get(key)
  if (!cleanups) return
  memoCleanups.delete(key)
  for (const cleanup of cleanups) cleanup()
}

/**
 * A layered store: one global layer plus one layer per scope, each a map from key to value. A scope's
 * layer exists only while it holds something. Reading for a scope chain merges the layers, nearest
 * first, so a scope shadows its ancestors and the global layer by key. Every layer carries a stamp that
 * changes with each edit, so the one value `M` its owner derives from a chain (its view) can be memoised
 * until one of the chain's layers changes, or the chain itself does (a parent link moved by a
 * `ScopeParentBinding`): the memo keeps the chain it was made for and compares it with the one it is
 * asked for. dsh's own layer store, with a memo; the published `ScopedLayers` is another contract.
 */
export class StampedLayers<V, M = unknown> {
  private readonly layers = new Map<ScopeKey | typeof GLOBAL, Layer<V>>()
  private readonly memos = new WeakMap<object, Memo<M>>()
  private readonly globalMemo: object = {}
  private counter = 0
  private scopeMemos = 0

  /** Whether the layer of `scope` (global if `undefined`) holds `key`. */
  has(scope: ScopeKey | undefined, key: string): boolean {
    return this.layers.get(scope ?? GLOBAL)?.entries.has(key) ?? false
  }

  /** The value of `key` in exactly the layer of `scope`. */
  get(scope: ScopeKey | undefined, key: string): V | undefined {
    return this.layers.get(scope ?? GLOBAL)?.entries.get(key)
  }

  /** Files `value` under `key` in the layer of `scope`, replacing nothing: returns `false` if the key is taken. */
  add(scope: ScopeKey | undefined, key: string, value: V): boolean {
    const layerKey = scope ?? GLOBAL
    let layer = this.layers.get(layerKey)
    if (!layer) this.layers.set(layerKey, layer = { entries: new Map(), stamp: 0 })
    else if (layer.entries.has(key)) return false
    layer.entries.set(key, value)
    layer.stamp = ++this.counter
    return true
  }

  /** Removes `key` from the layer of `scope` if it still holds `value`; an emptied scope layer is reclaimed. */
  remove(scope: ScopeKey | undefined, key: string, value: V): boolean {
    const layerKey = scope ?? GLOBAL
    const layer = this.layers.get(layerKey)
    if (!layer || layer.entries.get(key) !== value) return false
    layer.entries.delete(key)
    layer.stamp = ++this.counter
    if (!layer.entries.size && layerKey !== GLOBAL) this.layers.delete(layerKey)
    return true
  }

  /** Merges the layers of `chain` (nearest first) and the global layer; the nearest layer wins a key. */
  resolve(chain: readonly ScopeKey[]): Map<string, LayeredEntry<V>> {
    const result = new Map<string, LayeredEntry<V>>()
    for (const scope of chain) this.mergeInto(result, scope, scope)
    this.mergeInto(result, GLOBAL, undefined)
    return result
  }

  /**
   * `compute()` memoised for `chain` (nearest first; `[]` for the global layer alone): recomputed only
   * when a layer on the chain, or the global layer, changed since the last call for the same chain head,
   * or when that call's chain was another (a parent link moved by a binding), compared key by key.
   */
  memo(chain: readonly ScopeKey[], compute: () => M): M {
    const head = chain.length ? chain[0] : this.globalMemo
    const stamps = this.stamps(chain)
    const memo = this.memos.get(head)
    if (memo && sameChain(memo.chain, chain) && sameStamps(memo.stamps, stamps)) return memo.value
    const value = compute()
    if (!memo && chain.length) {
      let cleanups = memoCleanups.get(head)
      if (!cleanups) memoCleanups.set(head, cleanups = [])
      cleanups.push(() => {
        if (this.memos.delete(head)) this.scopeMemos--
      })
      this.scopeMemos++
    }
    this.memos.set(head, { chain: chain.slice(), stamps, value })
    return value
  }

  /** Introspection: how many memos keyed by a scope are held (released when the scope is disposed). */
  memoStats(): { scopeMemos: number } {
    return { scopeMemos: this.scopeMemos }
  }

  /** Introspection: the number of layers held (the global layer counts while it exists) and of entries. */
  stats(): { layers: number; scopeLayers: number; entries: number } {
    let entries = 0
    for (const layer of this.layers.values()) entries += layer.entries.size
    return { layers: this.layers.size, scopeLayers: this.layers.size - (this.layers.has(GLOBAL) ? 1 : 0), entries }
  }

  /** The entries of exactly one layer, in insertion order. */
  entries(scope: ScopeKey | undefined): IterableIterator<[string, V]> {
    return (this.layers.get(scope ?? GLOBAL)?.entries ?? new Map<string, V>()).entries()
  }

  private stamps(chain: readonly ScopeKey[]): number[] {
    const stamps = new Array<number>(chain.length + 1)
    for (let i = 0; i < chain.length; i++) stamps[i] = this.layers.get(chain[i])?.stamp ?? 0
    stamps[chain.length] = this.layers.get(GLOBAL)?.stamp ?? 0
    return stamps
  }

  private mergeInto(result: Map<string, LayeredEntry<V>>, layerKey: ScopeKey | typeof GLOBAL, scope: ScopeKey | undefined): void {
    const layer = this.layers.get(layerKey)
    if (!layer) return
    for (const [key, value] of layer.entries) {
      if (!result.has(key)) result.set(key, { value, scope })
    }
  }
}

function sameChain(a: readonly ScopeKey[], b: readonly ScopeKey[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function sameStamps(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
