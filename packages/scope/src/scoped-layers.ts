/**
 * `ScopedLayers`, the published layer store: a registry's global layer and one layer per scope, where a
 * layer is the registry's own aggregate of tables (typically {@link NamedEntries} and
 * {@link AnonymousEntries}). A registration is one Cordis effect of the registering context, so the context
 * decides both where the registration is seen and when it goes. dsh's own registries use
 * {@link StampedLayers} (with a memo per chain) through `ScopedRegistry`; this class is for services
 * written against the published contract.
 * @module
 */
import type { Context } from 'cordis'
import { scopeOf, type ScopeKey } from './state.js'
import { scopeChainOf } from './parents.js'
import type { NamedEntries } from './entries.js'

/** One registry's whole contribution in one layer: the global layer, or exactly one scope's. */
export interface ScopeLayer {
  /** Whether every table of the layer is empty (an empty scope layer is reclaimed). */
  isEmpty(): boolean
}

/** Options of {@link ScopedLayers.effect}. */
export interface LayerEffectOptions {
  /** The Cordis effect's label (what `fiber.getEffects()` shows). */
  label: string
  /** Call the store's change callback after the registration and after its undo (default `true`). */
  notify?: boolean
}

/**
 * A global layer made at construction and scope layers made on a scope's first registration and dropped
 * when they empty. Reads never make a layer. `onChange` is the registry's change report; whether a
 * failing report throws is the registry's choice (a throw at registration undoes the registration).
 */
export class ScopedLayers<L extends ScopeLayer> {
  /** The global layer, made by the constructor. */
  readonly global: L
  private readonly scoped = new Map<ScopeKey, L>()

  constructor(
    private readonly createLayer: (scope: ScopeKey | undefined) => L,
    private readonly onChange: () => void,
  ) {
    this.global = createLayer(undefined)
  }

  /**
   * The layer of exactly `scope`, if it exists, without its ancestors' (a scope's own restrictions must
   * not pick up a parent's). `undefined` for no scope or a scope without a layer; never makes one.
   */
  peek(scope: ScopeKey | undefined): L | undefined {
    return scope === undefined ? undefined : this.scoped.get(scope)
  }

  /** The existing layers of `scope`'s chain, farthest ancestor first and `scope`'s own last. */
  chainLayers(scope: ScopeKey | undefined): L[] {
    const chain = scopeChainOf(scope)
    const layers: L[] = []
    for (let i = chain.length - 1; i >= 0; i--) {
      const layer = this.scoped.get(chain[i])
      if (layer !== undefined) layers.push(layer)
    }
    return layers
  }

  /**
   * The named table `pick` selects, merged for `scope`: the global layer's entries, then each layer of
   * the chain from the farthest ancestor to `scope`, a nearer entry replacing a farther one's value in
   * the place the name first took.
   */
  merge<V>(scope: ScopeKey | undefined, pick: (layer: L) => NamedEntries<V>): Map<string, V> {
    const merged = new Map<string, V>(pick(this.global).entries())
    for (const layer of this.chainLayers(scope)) {
      for (const [name, value] of pick(layer).entries()) merged.set(name, value)
    }
    return merged
  }

  /**
   * Registers through `ctx`: one `ctx.effect` (labelled `options.label`) that applies `action` to the
   * layer of `scopeOf(ctx)` (made if missing) and keeps the undo `action` returns, then reports the change.
   * Disposing runs the undo, drops the scope layer if it emptied, and reports again. If `action` throws,
   * a layer it leaves empty is dropped and the error is rethrown; if the report throws, the registration
   * is undone (and reported) and the error is rethrown. Returns the Cordis disposer itself, so a composite
   * effect can yield it.
   */
  effect(ctx: Context, action: (layer: L) => () => void, options: LayerEffectOptions): () => void {
    const scope = scopeOf(ctx)
    const notify = options.notify ?? true
    const store = this
    return ctx.effect(function* () {
      const layer = store.open(scope)
      let undo: () => void
      try {
        undo = action(layer)
      } catch (error) {
        store.reclaim(scope, layer)
        throw error
      }
      yield () => {
        undo()
        store.reclaim(scope, layer)
        if (notify) store.onChange()
      }
      if (notify) store.onChange()
    }, options.label) as () => void
  }

  /** The layer a registration through `scope` goes to, made if missing (a failing factory stores nothing). */
  private open(scope: ScopeKey | undefined): L {
    if (scope === undefined) return this.global
    let layer = this.scoped.get(scope)
    if (layer === undefined) this.scoped.set(scope, layer = this.createLayer(scope))
    return layer
  }

  /** Drops `scope`'s layer if it is still `layer` and holds nothing. */
  private reclaim(scope: ScopeKey | undefined, layer: L): void {
    if (scope !== undefined && this.scoped.get(scope) === layer && layer.isEmpty()) this.scoped.delete(scope)
  }
}
