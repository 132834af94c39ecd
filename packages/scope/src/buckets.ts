/**
 * Teardown buckets: how `ownEffect` keeps thousands of registrations cheap and still tears everything
 * down in the reverse order it was made. Registrations made one after another, with no other effect of
 * their owner in between, share one bucket (a `Set` of teardowns). Anything else the owner makes in
 * between (a `ctx.effect`, a listener, a child plugin) closes the bucket, and the next registration opens
 * a new one. So an owner's life is a run: bucket, effects, bucket, effects, ..., and tearing the run down
 * from its end mirrors setup.
 *
 * - A plugin's buckets are Cordis effects of its fiber ({@link fiberBucket}); Cordis tears its effect
 *   list down last-in first-out, so buckets and ordinary effects interleave by themselves.
 * - A scope has no fiber of its own, only a child fiber made for its first generic effect; its buckets
 *   are a {@link ScopeRun} that {@link ScopeRun.tearDown} interleaves with that fiber's effects.
 * @module
 */
import type { Fiber } from 'cordis'
import { effectMark, madeSince, type LiveEffect } from './cordis-effects.js'
import { teardownsFailed } from './errors.js'

/** Consecutive registrations of one owner, torn down together. One class, so every bucket has one shape. */
export class Bucket {
  /** The registrations' disposers, in registration order. */
  readonly teardowns = new Set<() => unknown>()
  /** Torn down (or being torn down): it takes nothing more and is not let go of twice. */
  closed = false
  /** A plugin's bucket: its Cordis effect (the disposer). */
  effect: (() => unknown) | undefined = undefined

  constructor(
    /** What the bucket belongs to. */
    readonly holder: BucketHolder,
    /**
     * The owner's {@link effectMark} when the bucket last took a registration: it takes more while no
     * live effect of the owner was made after it ({@link madeSince}).
     */
    public mark: number,
  ) {}
}

/** The owner side of a bucket: whether a bucket can still take registrations, and how to let one go. */
export interface BucketHolder {
  /** Whether the next registration would join `bucket`: it is the newest, and nothing was made since. */
  joinable(bucket: Bucket): boolean
  /** Lets go of `bucket`, which can take no more registrations and has lost its last one. */
  release(bucket: Bucket): void
}

/**
 * Called by a registration's disposer after it left `bucket`: an emptied bucket that can take no more
 * registrations holds nothing and never will, so it goes (for a plugin, its Cordis effect is disposed).
 * A bucket that is still joinable stays, so register-and-dispose cycles do not open a bucket each time.
 */
export function leftBucket(bucket: Bucket): void {
  if (!bucket.teardowns.size && !bucket.closed && !bucket.holder.joinable(bucket)) bucket.holder.release(bucket)
}

/**
 * Runs every teardown of `set` last-in first-out, leaving it empty, and appends what they threw to
 * `errors`. A teardown that throws does not stop the others.
 */
export function runTeardowns(set: Set<() => unknown>, errors: unknown[]): void {
  const pending = [...set].reverse()
  set.clear()
  for (const run of pending) {
    try {
      run()
    } catch (error) {
      errors.push(error)
    }
  }
}

/** Throws what {@link runTeardowns} collected: the error itself, or `teardownsFailed` for several. */
export function throwCollected(errors: readonly unknown[]): void {
  if (errors.length === 1) throw errors[0]
  if (errors.length > 1) throw teardownsFailed(errors)
}

/**
 * Whether no live effect of `fiber` was made after `bucket`'s last registration; if so, the bucket's mark
 * moves up to now, so the next check is one comparison again.
 */
function stillNewest(bucket: Bucket, fiber: Fiber): boolean {
  const mark = effectMark(fiber)
  if (mark === bucket.mark) return true
  if (madeSince(fiber, bucket.mark)) return false
  bucket.mark = mark
  return true
}

/** The buckets of one fiber: only the newest is tracked; older ones live on as Cordis effects. */
class FiberBuckets implements BucketHolder {
  current: Bucket | undefined

  constructor(private readonly fiber: Fiber) {}

  /** The newest bucket, while no effect of the fiber was made after it. */
  joinable(bucket: Bucket): boolean {
    return bucket === this.current && stillNewest(bucket, this.fiber)
  }

  /** Opens a bucket: one new Cordis effect, now the fiber's newest. An emptied previous bucket goes. */
  open(): Bucket {
    const previous = this.current
    const bucket = new Bucket(this, -1)
    bucket.effect = this.fiber.effect(() => () => {
      bucket.closed = true
      if (this.current === bucket) this.current = undefined
      const errors: unknown[] = []
      runTeardowns(bucket.teardowns, errors)
      throwCollected(errors)
    }, 'dsh registrations')
    // Read after the effect was filed: the mark is the list's counter with this bucket as its newest entry.
    bucket.mark = effectMark(this.fiber)
    this.current = bucket
    if (previous && !previous.teardowns.size) this.release(previous)
    return bucket
  }

  /** Disposes the bucket's Cordis effect. */
  release(bucket: Bucket): void {
    bucket.effect?.()
  }
}

const fibers = new WeakMap<Fiber, FiberBuckets>()

/**
 * The bucket a registration owned by `fiber` joins: the fiber's newest bucket while its Cordis effect is
 * still the fiber's most recent effect, otherwise a new bucket (one new Cordis effect). Throws Cordis's
 * own error for an inactive fiber.
 */
export function fiberBucket(fiber: Fiber): Bucket {
  fiber.assertActive()
  let buckets = fibers.get(fiber)
  if (!buckets) fibers.set(fiber, buckets = new FiberBuckets(fiber))
  const current = buckets.current
  return current && buckets.joinable(current) ? current : buckets.open()
}

/**
 * The buckets of one scope. A scope's generic effects live in its child fiber, so a bucket's mark is that
 * fiber's {@link effectMark} when the bucket last took a registration (`0` while the scope has none).
 * Most scopes only ever have one bucket, so older buckets get an array only once there are some.
 */
export class ScopeRun implements BucketHolder {
  private newest: Bucket | undefined
  /** Buckets before the newest, oldest first. */
  private older: Bucket[] | undefined

  /** The scope's child fiber, once made: the fiber its generic effects live in. */
  fiber: Fiber | undefined

  /** How many registrations the scope still owns. */
  get size(): number {
    let size = this.newest?.teardowns.size ?? 0
    for (const bucket of this.older ?? []) size += bucket.teardowns.size
    return size
  }

  /** The bucket a registration made now joins: the newest, unless the child fiber made an effect since. */
  bucket(): Bucket {
    const newest = this.newest
    if (newest && this.joinable(newest)) return newest
    if (newest?.teardowns.size) (this.older ??= []).push(newest)
    return this.newest = new Bucket(this, this.mark())
  }

  /** The newest bucket, while the child fiber (if any) made no effect after it. */
  joinable(bucket: Bucket): boolean {
    return bucket === this.newest && (!this.fiber || stillNewest(bucket, this.fiber))
  }

  /** Drops an emptied bucket from the run. */
  release(bucket: Bucket): void {
    if (bucket === this.newest) {
      this.newest = this.older?.pop()
      return
    }
    const index = this.older ? this.older.indexOf(bucket) : -1
    if (index >= 0) this.older!.splice(index, 1)
  }

  /**
   * Tears the scope down from its newest registration to its oldest, synchronously: before each bucket,
   * the child fiber's `effects` made after it (`disposeEffect` is handed each, newest first). Effects made
   * before the first bucket are left to the child fiber's own disposal, which comes last. Appends what the
   * registrations' teardowns threw to `errors`.
   */
  tearDown(effects: readonly LiveEffect[], disposeEffect: (dispose: () => unknown) => void, errors: unknown[]): void {
    const buckets = this.older ?? []
    if (this.newest) buckets.push(this.newest)
    this.newest = this.older = undefined
    let next = effects.length - 1
    for (let index = buckets.length - 1; index >= 0; index--) {
      const bucket = buckets[index]
      for (; next >= 0 && effects[next][0] > bucket.mark; next--) disposeEffect(effects[next][1])
      bucket.closed = true
      runTeardowns(bucket.teardowns, errors)
    }
  }

  private mark(): number {
    return this.fiber ? effectMark(this.fiber) : 0
  }
}
