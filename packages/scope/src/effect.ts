import type { Context } from 'cordis'
import { kOwner, type ScopeRecord } from './state.js'
import { scopeDisposed } from './errors.js'
import { fiberBucket, leftBucket, type Bucket } from './buckets.js'

/**
 * The scope that owns registrations made through `ctx`: set on a scope's context and on contexts
 * derived from it with `extend()`; absent on plugin contexts (which own their registrations).
 */
export function ownerScope(ctx: Context): ScopeRecord | undefined {
  return (ctx as unknown as Record<symbol, ScopeRecord | undefined>)[kOwner]
}

/** The name registrations made through `ctx` are attributed to: the scope label, or the plugin name. */
export function ownerName(ctx: Context): string {
  return ownerScope(ctx)?.label ?? ctx.fiber.name
}

/**
 * Ties `teardown` to the lifetime of the owner of `ctx`, cheaply: `teardown(arg)` runs exactly once, when
 * the returned disposer is called or when the owner goes, whichever comes first. The disposer returns
 * what `teardown` returned on the call that ran it, `undefined` on later calls. The owner is the scope
 * of a scope context, otherwise the context's fiber.
 *
 * A Cordis effect costs two stack captures, several closures and a WeakMap entry; dsh registries make
 * thousands of registrations. So consecutive registrations of one owner share a bucket (one Cordis
 * effect for a plugin; a set in the scope's record for a scope), and each registration adds and removes
 * one set entry. Any other effect the owner makes in between (`ctx.effect`, a listener, a child plugin)
 * starts a new bucket, so the owner's teardown runs everything, registrations and ordinary effects
 * alike, last-in first-out (see `buckets.ts`). Nothing outlives the context that made it.
 * Throws when the owner is no longer active.
 */
export function ownEffect<R = void>(ctx: Context, teardown: () => R): () => R | undefined
export function ownEffect<A, R = void>(ctx: Context, teardown: (arg: A) => R, arg: A): () => R | undefined
export function ownEffect<A, R>(ctx: Context, teardown: (arg?: A) => R, arg?: A): () => R | undefined {
  const scope = ownerScope(ctx)
  let bucket: Bucket
  if (scope) {
    if (scope.disposed) throw scopeDisposed(scope.label)
    bucket = scope.teardowns.bucket()
  } else {
    bucket = fiberBucket(ctx.fiber)
  }
  // One closure per registration: callers pass a shared `teardown` and the registration as `arg`.
  let done = false
  const dispose = (): R | undefined => {
    if (done) return
    done = true
    bucket.teardowns.delete(dispose)
    leftBucket(bucket)
    return teardown(arg)
  }
  bucket.teardowns.add(dispose)
  return dispose
}
