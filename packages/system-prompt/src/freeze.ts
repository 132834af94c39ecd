/**
 * Detachment of tool schemas without a copy per assembly: a schema is deeply frozen the first time an
 * assembly sees it, then the same object is reused. Nothing can mutate it afterwards (a write throws in
 * strict-mode code), so handing it to every assembly and every listener cannot leak a change into the
 * registry or into a later assembly. See `.agents/notes/2026-11-30-assembly-detachment.md`.
 * @module
 */

import { schemaTooDeep } from './errors.js'

const frozen = new WeakSet<object>()
/** How deep the freeze walk follows a schema. */
const DEPTH_LIMIT = 256

/** Deeply freezes `value` once; later calls on the same object cost one WeakSet lookup. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || frozen.has(value)) return value
  freezeWalk(value, 0)
  return value
}

function freezeWalk(value: object, depth: number): void {
  if (frozen.has(value)) return
  if (depth > DEPTH_LIMIT) throw schemaTooDeep(DEPTH_LIMIT)
  frozen.add(value)
  Object.freeze(value)
  for (const key of Reflect.ownKeys(value)) {
    const child = (value as Record<PropertyKey, unknown>)[key]
    if (typeof child === 'object' && child !== null) freezeWalk(child, depth + 1)
  }
}
