/**
 * Scope carriers: the `this` argument of a Cordis dispatch (`ctx.emit(carrier, name, ...)`) that admits
 * only the listeners of one scope chain. Cordis asks the carrier's `Context.filter` about each listener's
 * context; the carrier answers from the listener's tag and the parent links. This filters Cordis's own
 * listener lists: events routed into dsh's index by `defineScopedEvent` are dispatched with
 * `listenersFor`, which applies the same admission rule.
 * @module
 */
import { Context } from 'cordis'
import { scopeOf, type ScopeKey } from './state.js'
import { scopeParentOf } from './parents.js'

declare const kCarried: unique symbol

/**
 * A carrier made by {@link scopeTarget} for a subject of type `T`. Opaque: it shows none of the subject's
 * fields (the event's arguments carry the subject), and a plain subject is not one, so an event whose
 * `this` must be `Scoped<T>` cannot be dispatched without a carrier.
 */
export type Scoped<T extends object> = object & { readonly [kCarried]: T }

/** The key of every carrier (`undefined` for a carrier without a key); presence marks a carrier. */
const carriers = new WeakMap<object, ScopeKey | undefined>()

type Filter = (this: unknown, ctx: Context) => boolean

/** Whether a listener tagged `tag` (`undefined`: untagged) hears a dispatch for `key`. */
function admits(tag: ScopeKey | undefined, key: ScopeKey | undefined): boolean {
  if (tag === undefined) return true
  for (let cursor = key; cursor !== undefined; cursor = scopeParentOf(cursor)) {
    if (cursor === tag) return true
  }
  return false
}

/**
 * The carrier for a dispatch about `base` in the scope `key`. It admits a listener when `base`'s own
 * `Context.filter` (if any, called with `base` as `this`) admits it and the listener's context is
 * untagged, or tagged with `key` or one of `key`'s ancestors. `key` `undefined` admits untagged
 * listeners only. Cordis lets `{ global: true }` listeners through without asking.
 */
export function scopeTarget<T extends object>(base: T, key: ScopeKey | undefined): Scoped<T> {
  const own = (base as { [Context.filter]?: Filter })[Context.filter]
  const carrier = {
    [Context.filter](ctx: Context): boolean {
      if (own !== undefined && !own.call(base, ctx)) return false
      return admits(scopeOf(ctx), key)
    },
  }
  carriers.set(carrier, key)
  return carrier as unknown as Scoped<T>
}

/** Whether `value` is a carrier made by {@link scopeTarget}. */
export function isScopeCarrier(value: unknown): value is Scoped<object> {
  return typeof value === 'object' && value !== null && carriers.has(value)
}

/** The key a carrier dispatches for; `undefined` for a carrier without a key, or for anything else. */
export function carrierKeyOf(value: unknown): ScopeKey | undefined {
  return typeof value === 'object' && value !== null ? carriers.get(value) : undefined
}
