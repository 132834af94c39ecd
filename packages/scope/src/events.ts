import type { Context } from 'cordis'
import { appState, GLOBAL, scopeOf, type AppState, type ScopedListener, type ScopeKey } from './state.js'
import { scopeChainOf } from './parents.js'
import { ownEffect, ownerName } from './effect.js'

/** Options of {@link onScoped}, the same as Cordis's `ctx.on` options. */
export interface ScopedListenerOptions {
  /** Run before the listeners registered so far. */
  prepend?: boolean
  /** See every scope's events, wherever it was registered. */
  global?: boolean
}

/**
 * Registers `callback` for the scoped event `name` through `ctx`: a listener registered through a scope
 * sees that scope's and its descendants' events; an untagged one (or `global: true`) sees all. The
 * registration is owned like any dsh registration (see {@link ownEffect}). Listeners are filed in a
 * per-scope index, so admitting the listeners of one dispatch costs the length of its parent chain, not
 * the number of scopes.
 */
export function onScoped<F extends (...args: any[]) => any>(
  ctx: Context, name: string, callback: F, options: ScopedListenerOptions = {},
): () => boolean {
  const state = appState(ctx)
  const scope = options.global ? undefined : scopeOf(ctx)
  const entry: IndexedListener<F> = {
    callback, ctx, owner: ownerName(ctx), scope, seq: options.prepend ? --state.seq.prepend : ++state.seq.append,
    event: name, state,
  }
  // Owned first (this throws for an inactive owner), then filed: a failure leaves nothing behind.
  const dispose = ownEffect(ctx, unlisten, entry) as () => boolean
  let byScope = state.listeners.get(name)
  if (!byScope) state.listeners.set(name, byScope = new Map())
  const bucketKey = scope ?? GLOBAL
  let bucket = byScope.get(bucketKey)
  if (!bucket) byScope.set(bucketKey, bucket = [])
  if (options.prepend) bucket.unshift(entry)
  else bucket.push(entry)
  return dispose
}

/** A listener as filed: with what is needed to take it out again. */
interface IndexedListener<F extends (...args: any[]) => any> extends ScopedListener<F> {
  readonly event: string
  readonly state: AppState
}

/** Takes a listener out of the index; `true` when it was there. Shared by every listener's disposer. */
function unlisten(entry: IndexedListener<(...args: any[]) => any>): boolean {
  const map = entry.state.listeners.get(entry.event)
  const bucketKey = entry.scope ?? GLOBAL
  const list = map?.get(bucketKey)
  const index = list ? list.indexOf(entry) : -1
  if (index < 0) return false
  list!.splice(index, 1)
  if (!list!.length) map!.delete(bucketKey)
  if (!map!.size) entry.state.listeners.delete(entry.event)
  return true
}

/**
 * Routes every `ctx.on(name, ...)` in `ctx`'s app into the scoped-listener index while `ctx` lives,
 * so plugins subscribe with the ordinary Cordis call and still get scope filtering.
 */
export function defineScopedEvent(ctx: Context, name: string): () => void {
  const state = appState(ctx)
  state.scopedEvents.set(name, (state.scopedEvents.get(name) ?? 0) + 1)
  // Cordis's declared signature says `prepend: boolean`, but `ctx.on` passes its normalised options object.
  const route = function (this: Context, event: string | symbol, listener: any, options: ScopedListenerOptions) {
    if (event !== name) return
    return onScoped(this, name, listener, options)
  }
  const dispose = ctx.on('internal/listener', route as any)
  let done = false
  return () => {
    if (done) return
    done = true
    dispose()
    const count = (state.scopedEvents.get(name) ?? 1) - 1
    if (count) state.scopedEvents.set(name, count)
    else state.scopedEvents.delete(name)
  }
}

/**
 * The listeners admitted to an event dispatched for `scope`, in dispatch order (prepended first,
 * then registration order): the global bucket plus the bucket of each scope on `scope`'s chain.
 */
export function listenersFor<F extends (...args: any[]) => any>(
  ctx: Context, name: string, scope: ScopeKey | undefined,
): ScopedListener<F>[] {
  const state = appState(ctx)
  return listenersIn<F>(state, name, scopeChainOf(scope))
}

/**
 * What one app's scope bookkeeping answers, resolved once: a service that assembles per request keeps
 * it instead of finding the app's state through its Cordis context at every call (each such lookup
 * goes through Cordis's context proxy, about 0.15 µs here).
 */
export interface ScopeIndex {
  /** {@link scopeChain} in this app. */
  chain(key: ScopeKey | undefined): ScopeKey[]
  /** {@link listenersFor} in this app, for a chain {@link ScopeIndex.chain} returned. */
  listeners<F extends (...args: any[]) => any>(name: string, chain: readonly ScopeKey[]): ScopedListener<F>[]
}

/** The scope index of the app `ctx` belongs to. */
export function scopeIndex(ctx: Context): ScopeIndex {
  const state = appState(ctx)
  return {
    chain: scopeChainOf,
    listeners: (name, chain) => listenersIn(state, name, chain),
  }
}

function listenersIn<F extends (...args: any[]) => any>(state: AppState, name: string, chain: readonly ScopeKey[]): ScopedListener<F>[] {
  const byScope = state.listeners.get(name)
  if (!byScope) return []
  let result = byScope.get(GLOBAL) as ScopedListener<F>[] | undefined
  let merged = false
  for (const key of chain) {
    const bucket = byScope.get(key) as ScopedListener<F>[] | undefined
    if (!bucket) continue
    if (result) {
      result = mergeBySeq(result, bucket)
      merged = true
    } else {
      result = bucket
    }
  }
  if (!result) return []
  return merged ? result : result.slice()
}

/** Two lists, each in `seq` order (a bucket is: appends go last, prepends first), merged into a new one. */
function mergeBySeq<L extends { readonly seq: number }>(a: readonly L[], b: readonly L[]): L[] {
  const out = new Array<L>(a.length + b.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < a.length && j < b.length) out[k++] = a[i].seq < b[j].seq ? a[i++] : b[j++]
  while (i < a.length) out[k++] = a[i++]
  while (j < b.length) out[k++] = b[j++]
  return out
}

/** Introspection for tests and tooling: how many listeners and scope buckets an event holds. */
export function scopedListenerStats(ctx: Context, name: string): { listeners: number; buckets: number } {
  const byScope = appState(ctx).listeners.get(name)
  let listeners = 0
  for (const bucket of byScope?.values() ?? []) listeners += bucket.length
  return { listeners, buckets: byScope?.size ?? 0 }
}
