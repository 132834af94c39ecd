/**
 * What `dsh-scope` reads of a Cordis fiber's effect list that Cordis does not publish: whether a live
 * effect was made since a given moment, and the live effects in the order they were made.
 * Both come from the fiber's `_disposables`, a `DisposableList` (`node_modules/cordis/lib/index.js`):
 * `push()` files each effect's disposer under `++sn` in a `Map` (so insertion order is creation order),
 * and a disposed effect deletes its own entry. This is the only file that touches it; the tests in
 * `tests/cordis-effects.spec.ts` pin the behaviour, so a Cordis release that changes it fails loudly.
 * @module
 */
import type { Fiber } from 'cordis'

/** What `dsh-scope` reads of Cordis's `DisposableList` (private in Cordis's declarations). */
interface EffectList {
  readonly sn?: unknown
  readonly map?: unknown
}

function listOf(fiber: Fiber): EffectList | undefined {
  return (fiber as unknown as { _disposables?: EffectList })._disposables
}

/**
 * A number that changes whenever an effect is added to `fiber` (a `ctx.effect`, a listener, a child
 * plugin, a provided service: every Cordis call that makes an effect). Two equal marks mean nothing was
 * added in between. `NaN` when the list does not expose its counter: `NaN` equals nothing, so every
 * registration then opens a bucket of its own, which keeps the order right and only costs time.
 */
export function effectMark(fiber: Fiber): number {
  const sn = listOf(fiber)?.sn
  return typeof sn === 'number' ? sn : NaN
}

// Past this many live effects, madeSince() stops looking and answers "yes": the answer is then only
// conservative (a new bucket where an old one would have done), and a registration never pays a long scan.
const SCAN_LIMIT = 32

/**
 * Whether `fiber` holds a live effect made after `mark` (an earlier {@link effectMark}). Effects made since
 * and already disposed do not count. Answers `true` when it cannot tell cheaply (an unreadable list, or
 * more than a few dozen live effects), which is always safe for its callers.
 */
export function madeSince(fiber: Fiber, mark: number): boolean {
  const list = listOf(fiber)
  if (typeof list?.sn !== 'number' || !(list.map instanceof Map)) return true
  if (list.sn === mark) return false
  const map = list.map as Map<number, unknown>
  if (map.size > SCAN_LIMIT) return true
  for (const key of map.keys()) if (key > mark) return true
  return false
}

/** A live effect of a fiber: its mark (see {@link effectMark}) and its Cordis disposer. */
export type LiveEffect = readonly [mark: number, dispose: () => unknown]

/** The live effects of `fiber`, oldest first; empty when the list cannot be read. */
export function liveEffects(fiber: Fiber): LiveEffect[] {
  const map = listOf(fiber)?.map
  if (!(map instanceof Map)) return []
  return [...(map as Map<number, () => unknown>)]
}
