/**
 * Whether two values serialise to the same JSON, decided without serialising either. The same object
 * is the same JSON only when it is frozen plain data all the way down (an object changed in place
 * since it was serialised, or a `toJSON` whose answer moves, would otherwise pass); plain objects with the same keys in the same order over such
 * values, and arrays of the same length over such values, are the same JSON too. Anything else (a
 * class instance, a `toJSON`, differing keys) counts as different, so a caller that reuses JSON on
 * `true` is never wrong, only sometimes slower. A request's head is rebuilt at every step, but its
 * large parts (tool parameters, which dsh-system-prompt freezes deeply, and the prompt's text) are the
 * very same objects and strings as before, so this costs a walk over the small wrappers around them
 * instead of serialising tens of kilobytes again.
 * Pure.
 * @module
 */

/**
 * Tells whether an object and everything under it is frozen plain data: arrays and plain objects
 * without `toJSON`, frozen (and remembers the ones that are).
 */
export type FrozenCheck = (value: object) => boolean

/**
 * A {@link FrozenCheck} with its own memory of the objects found deeply frozen (freezing cannot be
 * undone, so a yes stays true). Keep one per session: a module-wide table would only grow.
 */
export function frozenCheck(): FrozenCheck {
  const known = new WeakSet<object>()
  const check = (value: object, depth: number): boolean => {
    if (known.has(value)) return true
    if (!Object.isFrozen(value) || !plainTree(value) || depth > 256) return false
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key]
      if (typeof child === 'object' && child !== null && !check(child, depth + 1)) return false
    }
    known.add(value)
    return true
  }
  return (value) => check(value, 0)
}

/** `true` only when `JSON.stringify(a) === JSON.stringify(b)` is certain (see the module). */
export function sameJson(a: unknown, b: unknown, frozen: FrozenCheck): boolean {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b && typeof a !== 'object'
  if (a === b) return frozen(a)
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], frozen)) return false
    return true
  }
  if (Array.isArray(b) || !plain(a) || !plain(b)) return false
  const keys = Object.keys(a)
  const other = Object.keys(b)
  if (keys.length !== other.length) return false
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    if (key !== other[i] || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], frozen)) return false
  }
  return true
}

/** A plain object without a `toJSON` of its own or inherited (its JSON is its enumerable fields). */
function plain(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function'
}

/** Whether the top of `value` serialises by its fields alone (an array, or a plain object). */
function plainTree(value: object): boolean {
  return Array.isArray(value) || plain(value)
}
