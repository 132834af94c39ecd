/**
 * What changed between the tools one request declared and the tools the next one could declare:
 * each tool's kind (`added`, `edited`, `reordered`, `removed`, else `same`). Pure; `tool-changes.ts`
 * decides what each kind does under the agent's policy.
 * @module
 */
import type { ToolChangeKind, WireTool } from 'dsh-wire'

/**
 * Each tool of `before` and `after` with its kind: `after`'s tools in order, then those only in
 * `before`. A tool in both reads `edited` when its definition serialises differently, `reordered` when
 * it is one of the fewest tools whose moving explains the new order (the others keep their relative
 * order), else `same`.
 */
export function classifyTools(before: readonly WireTool[], after: readonly WireTool[]): { tool: string; kind: ToolChangeKind }[] {
  const old = new Map(before.map((tool, i) => [tool.name, { tool, i }]))
  const now = new Set(after.map((tool) => tool.name))
  const common = after.filter((tool) => old.has(tool.name))
  const stay = longestIncreasing(common.map((tool) => old.get(tool.name)!.i))
  const moved = new Set(common.filter((_, i) => !stay.has(i)).map((tool) => tool.name))
  const rows = after.map((tool): { tool: string; kind: ToolChangeKind } => {
    const was = old.get(tool.name)
    const kind: ToolChangeKind = !was ? 'added' : !sameTool(was.tool, tool) ? 'edited' : moved.has(tool.name) ? 'reordered' : 'same'
    return { tool: tool.name, kind }
  })
  for (const tool of before) if (!now.has(tool.name)) rows.push({ tool: tool.name, kind: 'removed' })
  return rows
}

const JSON_OF = new WeakMap<WireTool, string>()

/** A tool's definition as JSON (memoised per tool object: the assembly's tools are frozen). */
export function toolJson(tool: WireTool): string {
  let json = JSON_OF.get(tool)
  if (json === undefined) JSON_OF.set(tool, json = JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }))
  return json
}

export function sameTool(a: WireTool, b: WireTool): boolean {
  // Registered schemas are frozen once (R-TOOL-6): the same parameters object reads the same.
  return a === b || (a.name === b.name && a.description === b.description && a.parameters === b.parameters) || toolJson(a) === toolJson(b)
}

/** The indexes of one longest strictly increasing subsequence of `values`. */
function longestIncreasing(values: readonly number[]): Set<number> {
  const tails: number[] = []
  const before = new Array<number>(values.length).fill(-1)
  values.forEach((value, i) => {
    let lo = 0
    let hi = tails.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (values[tails[mid]] < value) lo = mid + 1
      else hi = mid
    }
    if (lo > 0) before[i] = tails[lo - 1]
    tails[lo] = i
  })
  const kept = new Set<number>()
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = before[i]) kept.add(i)
  return kept
}
