/**
 * A format's tool lowering, shared between the steps of a session's head. The head is lowered at every
 * step, and a lowered tool that is the very same frozen object as last time is known to serialise the
 * same without a walk (`same-json.ts`): on 29 tools that walk's `Object.keys` arrays were a fifth of
 * what a step allocated. A lowering is kept by the tool's `parameters` (deeply frozen by
 * dsh-system-prompt, the same object at every step while the registration stands) in a weak table per
 * format: a module-wide table on purpose, like `freeze.ts`'s, whose entries go with their schemas.
 * Only a session's head uses it: a body handed to the caller is made of its own objects.
 * @module
 */
import type { WireTool } from './record.js'

/** `lower`, with its result frozen and reused for a tool of the same name, description and frozen `parameters`. */
export function sharedLowering<T extends object>(lower: (tool: WireTool) => T): (tool: WireTool) => T {
  const lowered = new WeakMap<object, { name: string; description: string | undefined; value: T }>()
  return (tool) => {
    const { parameters } = tool
    if (typeof parameters !== 'object' || parameters === null || !Object.isFrozen(parameters)) return lower(tool)
    const last = lowered.get(parameters)
    if (last !== undefined && last.name === tool.name && last.description === tool.description) return last.value
    const value = freezeWrappers(lower(tool))
    lowered.set(parameters, { name: tool.name, description: tool.description, value })
    return value
  }
}

/** Freezes `value` and the objects under it that are not frozen yet (the lowering's own wrappers). */
function freezeWrappers<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) freezeWrappers((value as Record<string, unknown>)[key])
  }
  return value
}
