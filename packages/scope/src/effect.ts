import type { Context, Fiber } from 'cordis'
import { kOwner, type ScopeRecord } from './state.js'
import { scopeDisposed } from './errors.js'

interface Bucket {
  readonly teardowns: Set<() => unknown>
}

const buckets = new WeakMap<Fiber, Bucket>()

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
 * thousands of registrations. So each fiber gets ONE Cordis effect (made on its first registration),
 * which owns a set of teardowns and runs them last-in first-out when the fiber goes; a scope keeps its
 * own set. Each registration adds and removes one set entry. Nothing outlives the context that made it.
 * Throws when the owner is no longer active.
 */
export function ownEffect<R = void>(ctx: Context, teardown: () => R): () => R | undefined
export function ownEffect<A, R = void>(ctx: Context, teardown: (arg: A) => R, arg: A): () => R | undefined
export function ownEffect<A, R>(ctx: Context, teardown: (arg?: A) => R, arg?: A): () => R | undefined {
  const scope = ownerScope(ctx)
  let set: Set<() => unknown>
  if (scope) {
    if (scope.disposed) throw scopeDisposed(scope.label)
    set = scope.teardowns
  } else {
    set = fiberBucket(ctx.fiber).teardowns
  }
  // One closure per registration: callers pass a shared `teardown` and the registration as `arg`.
  let done = false
  const dispose = (): R | undefined => {
    if (done) return
    done = true
    set.delete(dispose)
    return teardown(arg)
  }
  set.add(dispose)
  return dispose
}

/**
 * Runs every teardown of `set` last-in first-out, leaving it empty. A teardown that throws does not stop
 * the others: all run, then the first error is rethrown (an `AggregateError` when several threw).
 */
export function runTeardowns(set: Set<() => unknown>): void {
  const pending = [...set].reverse()
  set.clear()
  const errors: unknown[] = []
  for (const run of pending) {
    try {
      run()
    } catch (error) {
      errors.push(error)
    }
  }
  if (errors.length === 1) throw errors[0]
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} teardowns failed`)
}

function fiberBucket(fiber: Fiber): Bucket {
  fiber.assertActive()
  let bucket = buckets.get(fiber)
  if (!bucket) {
    const created: Bucket = { teardowns: new Set() }
    fiber.effect(() => () => {
      if (buckets.get(fiber) === created) buckets.delete(fiber)
      runTeardowns(created.teardowns)
    }, 'dsh registrations')
    buckets.set(fiber, bucket = created)
  }
  return bucket
}
