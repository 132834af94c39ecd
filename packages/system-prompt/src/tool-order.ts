/**
 * Canonical tool order (R-TOOL-2). Pure and Cordis-free.
 * @module
 */
import { toolOrderDuplicate, toolOrderMissingRest } from './errors.js'
import type { ToolSchema } from './types.js'

/** The reserved rest entry of `toolOrder`: where unlisted tools are inserted, in name order. */
export const TOOL_ORDER_REST = '<unlisted-tools>'

/** Returns the first load-time problem of a `toolOrder` list, or `undefined` when it is valid. */
export function toolOrderProblem(order: readonly string[]): string | undefined {
  const seen = new Set<string>()
  for (const name of order) {
    if (seen.has(name)) return toolOrderDuplicate(name)
    seen.add(name)
  }
  if (!seen.has(TOOL_ORDER_REST)) return toolOrderMissingRest(TOOL_ORDER_REST)
}

/** Code-unit comparison (not locale): the tie-break rule of the whole package. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The names `order` lists that no provider knows (`known` is the union of every provider's `knownNames`), in list order. */
export function unregisteredTools(order: readonly string[] | undefined, known: ReadonlySet<string>): string[] {
  return order ? order.filter((name) => name !== TOOL_ORDER_REST && !known.has(name)) : []
}

/**
 * Sorts tools: with no `order`, by code-unit name; with one, listed tools at their positions and the
 * rest at the rest entry, in name order. Returns a new array.
 */
export function orderTools<T extends Pick<ToolSchema, 'name'>>(tools: readonly T[], order?: readonly string[]): T[] {
  const byName = tools.slice().sort((a, b) => compareCodeUnits(a.name, b.name))
  if (!order) return byName
  const listed = new Map<string, T>()
  const listedNames = new Set(order)
  const rest: T[] = []
  for (const tool of byName) {
    if (listedNames.has(tool.name)) listed.set(tool.name, tool)
    else rest.push(tool)
  }
  const result: T[] = []
  for (const name of order) {
    if (name === TOOL_ORDER_REST) result.push(...rest)
    else {
      const tool = listed.get(name)
      if (tool) result.push(tool)
    }
  }
  return result
}
