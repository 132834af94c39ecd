/**
 * The structural check of an assembly a `system-prompt/assemble` listener hands on or returns: arrays
 * where arrays belong, named entries with string texts and finite orders, no name twice. Pure.
 * @module
 */
import { describe } from './errors.js'
import type { AssembledSection, PromptAssembly, ToolSchema } from './types.js'

/** The first structural problem of a listener's result, or `undefined`. A list checked before, unchanged, costs no hashing. */
export function assemblyProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `expected an assembly object, got ${value === null ? 'null' : typeof value}`
  const assembly = value as Partial<PromptAssembly>
  return textsProblem(assembly.sections, 'sections') ?? textsProblem(assembly.contexts, 'contexts') ?? toolsProblem(assembly.tools)
    ?? variablesProblem(assembly.variables)
}

/** Variables are checked like a variable provider's values: each a string or `undefined`. */
function variablesProblem(variables: unknown): string | undefined {
  if (typeof variables !== 'object' || variables === null) return 'variables is not an object'
  for (const name in variables) {
    const value = (variables as Record<string, unknown>)[name]
    if (value !== undefined && typeof value !== 'string') return `variables.${name} is ${describe(value)}; expected a string or undefined`
  }
}

function textsProblem(list: unknown, key: 'sections' | 'contexts'): string | undefined {
  if (!Array.isArray(list)) return `${key} is not an array`
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as Partial<AssembledSection>
    if (typeof item !== 'object' || item === null) return `${key}[${i}] is not an object`
    const name = item.name
    if (typeof name !== 'string' || !name) return `${key}[${i}] has no name`
    if (typeof item.text !== 'string') return `${key}[${i}] (${JSON.stringify(name)}) text is not a string`
    // Order-less additions keep the position given (SPEC §5); a given order must be finite.
    if (item.order !== undefined && !Number.isFinite(item.order)) return `${key}[${i}] (${JSON.stringify(name)}) order is not a finite number`
  }
  const twice = repeatedName(list as { name: string }[], memos[key])
  if (twice !== undefined) return `${key} contain ${JSON.stringify(twice)} twice`
}

function toolsProblem(list: unknown): string | undefined {
  if (!Array.isArray(list)) return 'tools is not an array'
  for (let i = 0; i < list.length; i++) {
    const tool = list[i] as Partial<ToolSchema> | null
    if (typeof tool !== 'object' || tool === null || typeof tool.name !== 'string' || !tool.name) return `tools[${i}] has no name`
  }
  const twice = repeatedName(list as { name: string }[], memos.tools)
  if (twice !== undefined) return `tools contain ${JSON.stringify(twice)} twice`
}

/**
 * The last list of each key known to be free of repeated names: its elements and their names as they
 * were. The waterfall checks the same lists again at every `next()` and every return. A list that still
 * holds exactly those elements with exactly those names cannot hold a name twice, so it is not hashed
 * again; a new list that starts with exactly those elements (a listener appended to a copy) needs only
 * its new elements checked. Only a shortcut: any other difference checks in full.
 */
interface NameMemo {
  list: readonly { name: string }[] | undefined
  items: readonly object[]
  names: readonly string[]
}

const memos: Record<'sections' | 'contexts' | 'tools', NameMemo> = {
  sections: { list: undefined, items: [], names: [] },
  contexts: { list: undefined, items: [], names: [] },
  tools: { list: undefined, items: [], names: [] },
}

/**
 * Records lists the assembly built itself from one resolved view, whose names are unique by
 * construction, so the waterfall's first check of them costs no hashing.
 */
export function knownUnique(assembly: Pick<PromptAssembly, 'sections' | 'contexts' | 'tools'>): void {
  remember(memos.sections, assembly.sections)
  remember(memos.contexts, assembly.contexts)
  remember(memos.tools, assembly.tools)
}

function remember(memo: NameMemo, items: readonly { name: string }[]): void {
  memo.list = items
  memo.items = items.slice()
  memo.names = items.map((item) => item.name)
}

/** The first name that occurs twice in `items`, or `undefined`. */
function repeatedName(items: readonly { name: string }[], memo: NameMemo): string | undefined {
  // Very short lists are checked pairwise without allocating.
  if (items.length <= 8) {
    for (let i = 1; i < items.length; i++) {
      const name = items[i].name
      for (let j = 0; j < i; j++) if (items[j].name === name) return name
    }
    return undefined
  }
  const known = knownPrefix(memo, items)
  if (known === items.length && memo.list === items) return undefined
  if (known === memo.items.length && items.length - known <= 8) {
    // Only the appended elements are new: each against the known names and the ones before it.
    for (let i = known; i < items.length; i++) {
      const name = items[i].name
      if (memo.names.includes(name)) return name
      for (let j = known; j < i; j++) if (items[j].name === name) return name
    }
  } else {
    const seen = new Set<string>()
    for (const item of items) {
      if (seen.has(item.name)) return item.name
      seen.add(item.name)
    }
  }
  remember(memo, items)
}

/** How many leading elements of `items` are exactly the memo's elements, with the memo's names. */
function knownPrefix(memo: NameMemo, items: readonly { name: string }[]): number {
  const length = Math.min(memo.items.length, items.length)
  let i = 0
  while (i < length && memo.items[i] === items[i] && memo.names[i] === items[i].name) i++
  return i
}
