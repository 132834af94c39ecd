/**
 * The structural check of an assembly a `system-prompt/assemble` listener hands on or returns: arrays
 * where arrays belong, named entries with string texts and finite orders, no name twice. Pure.
 * @module
 */
import type { AssembledSection, PromptAssembly, ToolSchema } from './types.js'

/** The first structural problem of a listener's result, or `undefined`. Allocates nothing when valid. */
export function assemblyProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `expected an assembly object, got ${value === null ? 'null' : typeof value}`
  const assembly = value as Partial<PromptAssembly>
  return textsProblem(assembly.sections, 'sections') ?? textsProblem(assembly.contexts, 'contexts') ?? toolsProblem(assembly.tools)
    ?? (typeof assembly.variables !== 'object' || assembly.variables === null ? 'variables is not an object' : undefined)
}

function textsProblem(list: unknown, key: 'sections' | 'contexts'): string | undefined {
  if (!Array.isArray(list)) return `${key} is not an array`
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as Partial<AssembledSection>
    if (typeof item !== 'object' || item === null) return `${key}[${i}] is not an object`
    const name = item.name
    if (typeof name !== 'string' || !name) return `${key}[${i}] has no name`
    if (typeof item.text !== 'string') return `${key}[${i}] (${JSON.stringify(name)}) text is not a string`
    if (!Number.isFinite(item.order)) return `${key}[${i}] (${JSON.stringify(name)}) order is not a finite number`
  }
  const twice = repeatedName(list as { name: string }[])
  if (twice !== undefined) return `${key} contain ${JSON.stringify(twice)} twice`
}

function toolsProblem(list: unknown): string | undefined {
  if (!Array.isArray(list)) return 'tools is not an array'
  for (let i = 0; i < list.length; i++) {
    const tool = list[i] as Partial<ToolSchema> | null
    if (typeof tool !== 'object' || tool === null || typeof tool.name !== 'string' || !tool.name) return `tools[${i}] has no name`
  }
  const twice = repeatedName(list as { name: string }[])
  if (twice !== undefined) return `tools contain ${JSON.stringify(twice)} twice`
}

/** The first name that occurs twice in `items`, or `undefined`. */
function repeatedName(items: readonly { name: string }[]): string | undefined {
  // Very short lists are checked pairwise without allocating; longer ones with a fresh set.
  if (items.length <= 8) {
    for (let i = 1; i < items.length; i++) {
      const name = items[i].name
      for (let j = 0; j < i; j++) if (items[j].name === name) return name
    }
    return undefined
  }
  const seen = new Set<string>()
  for (const item of items) {
    if (seen.has(item.name)) return item.name
    seen.add(item.name)
  }
}
