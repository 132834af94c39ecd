/**
 * The structural check of an assembly a `system-prompt/assemble` listener hands on or returns: arrays
 * where arrays belong, named entries with string texts and finite orders, no name twice. The check is
 * incremental: the caller says how many leading elements of a list are known good (unchanged since a
 * hand-off that passed, see `hand-off.ts`), and only the rest is looked at. Pure.
 * @module
 */
import { VARIABLE_NAME_RULE, describe, isVariableName } from './errors.js'
import type { AssembledSection, ToolSchema } from './types.js'

/** The three named lists of an assembly. */
export type ListKey = 'sections' | 'contexts' | 'tools'

/**
 * The first structural problem of `list`, the `key` list of an assembly, or `undefined`. Its first
 * `from` elements are known good: valid, with the unique names `names[0 .. from)`. When `from` is
 * `names.length` (the list kept every known element and may have appended some), only the appended
 * elements are checked, each name against the known ones; otherwise the names are checked in full.
 * `list` must be an array.
 */
export function listProblem(list: readonly unknown[], key: ListKey, from: number, names: readonly string[]): string | undefined {
  for (let i = from; i < list.length; i++) {
    const problem = key === 'tools' ? toolProblem(list[i], i) : textProblem(list[i], key, i)
    if (problem) return problem
  }
  const twice = from === names.length ? appendedRepeat(list as readonly { name: string }[], from, names) : repeatedName(list as readonly { name: string }[])
  if (twice !== undefined) return `${key} contain ${JSON.stringify(twice)} twice`
}

/**
 * Variables are checked like registered ones: each name one a template can reference (as
 * `variable()` requires), each value a string or `undefined` (as a provider's value). `known` are names
 * that passed that check, in the order the record is expected to hold them: a name at its known
 * position is not checked again.
 */
export function variablesProblem(variables: unknown, known: readonly string[]): string | undefined {
  if (typeof variables !== 'object' || variables === null) return 'variables is not an object'
  let i = 0
  for (const name in variables) {
    if (name !== known[i++] && !isVariableName(name)) return `variables has ${JSON.stringify(name)}, a name no template can reference (variable names match ${VARIABLE_NAME_RULE})`
    const value = (variables as Record<string, unknown>)[name]
    if (value !== undefined && typeof value !== 'string') return `variables.${name} is ${describe(value)}; expected a string or undefined`
  }
}

function textProblem(value: unknown, key: 'sections' | 'contexts', i: number): string | undefined {
  const item = value as Partial<AssembledSection> | null
  if (typeof item !== 'object' || item === null) return `${key}[${i}] is not an object`
  const name = item.name
  if (typeof name !== 'string' || !name) return `${key}[${i}] has no name`
  if (typeof item.text !== 'string') return `${key}[${i}] (${JSON.stringify(name)}) text is not a string`
  // Order-less additions keep the position given (R-WF-3); a given order must be finite.
  if (item.order !== undefined && !Number.isFinite(item.order)) return `${key}[${i}] (${JSON.stringify(name)}) order is not a finite number`
}

function toolProblem(value: unknown, i: number): string | undefined {
  const tool = value as Partial<ToolSchema> | null
  if (typeof tool !== 'object' || tool === null || typeof tool.name !== 'string' || !tool.name) return `tools[${i}] has no name`
}

/** The first name of `items[from ..]` that is one of `names` or repeats an earlier appended one. */
function appendedRepeat(items: readonly { name: string }[], from: number, names: readonly string[]): string | undefined {
  if (items.length - from > 8) return repeatedName(items)
  for (let i = from; i < items.length; i++) {
    const name = items[i].name
    if (names.includes(name)) return name
    for (let j = from; j < i; j++) if (items[j].name === name) return name
  }
}

/** The first name that occurs twice in `items`, or `undefined`. */
function repeatedName(items: readonly { name: string }[]): string | undefined {
  // Very short lists are checked pairwise without allocating.
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
