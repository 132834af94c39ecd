/**
 * One look at each hand-off of the waterfall. Every assembly a listener passes to `next()` or returns
 * is compared, in one pass per list, with the snapshot of what that listener received (or got back):
 * the leading elements it kept (the same objects with the same name, rendered value and order or
 * parameters) are known good and cost no check, no hashing and no provenance lookup; only what it
 * changed is checked (`assembly-shape.ts`) and recorded (`provenance.ts`). The snapshot that passes is
 * the one the next hand-off is compared with, so the name check and provenance share it. Pure but for
 * one write: an assembly of the published three-field shape (no `contexts`) is given the contexts of
 * the snapshot it is compared with (`HandedAssembly` in `types.ts` states the rule).
 * @module
 */
import { listProblem, variablesProblem } from './assembly-shape.js'
import type { AssembledContext, AssembledSection, PromptAssembly, ToolSchema } from './types.js'

type Named = { readonly name: string }

/**
 * A list as it stood at a hand-off that passed the check: its elements, their names (unique), the
 * field of each that renders (`text`, a tool's `description`) and one more field a listener may
 * rewrite in place (`order`, a tool's `parameters`).
 */
export interface ListSnapshot<E extends Named> {
  readonly items: readonly E[]
  readonly names: readonly string[]
  readonly values: readonly unknown[]
  readonly extras: readonly unknown[]
}

/** An assembly's three lists as they stood at a hand-off that passed the check, and its variables' known names. */
export interface AssemblySnapshot {
  readonly sections: ListSnapshot<AssembledSection>
  readonly contexts: ListSnapshot<AssembledContext>
  readonly tools: ListSnapshot<ToolSchema>
  /** Variable names known to pass the name check, in the order the service wrote them (the view's). */
  readonly variables: readonly string[]
}

/** The outcome of one hand-off. */
export interface HandOff {
  /** The first structural problem; the rest is then meaningless. */
  readonly problem?: string
  /** A snapshot that describes the assembly now (the one compared with, when nothing changed). */
  readonly snap: AssemblySnapshot
  /** Whether anything differs from the snapshot compared with. */
  readonly changed: boolean
  /** From which index the tools differ (their length when they do not): those must be frozen. */
  readonly toolsFrom: number
}

/**
 * What stays true of a list's elements while the view (or the tool check) it was built from lives:
 * their names and their `order` (a tool's `parameters`), index for index.
 */
export interface ListFacts {
  readonly names: readonly string[]
  readonly extras: readonly unknown[]
}

/** The facts of a view's text entries. */
export function entryFacts(entries: readonly { readonly name: string; readonly order: number }[]): ListFacts {
  return { names: entries.map((entry) => entry.name), extras: entries.map((entry) => entry.order) }
}

/**
 * The snapshot of a list the service has just built from known `facts`, with the rendered field of
 * each element (`values`): nothing is read from the elements themselves.
 */
export function builtSnapshot<E extends Named>(items: readonly E[], facts: ListFacts, values: readonly unknown[]): ListSnapshot<E> {
  return { items: items.slice(), names: facts.names, values, extras: facts.extras }
}

/** The field of an entry that renders (provenance compares it). */
export const textOf = (entry: { text?: unknown }) => entry.text
export const descriptionOf = (tool: { description?: unknown }) => tool.description

// Two copies on purpose: one function reading the fields through `textOf`-style readers measured about
// 2 µs slower per heavy assembly (21.5 vs 24 µs, medians of eight interleaved runs), each copy seeing
// one shape of entry only.
/**
 * The snapshot of a list of sections or contexts; its first `kept` elements are exactly `known`'s
 * (same objects, same fields), so their facts are copied, not read again.
 */
export function textsSnapshot<E extends AssembledSection | AssembledContext>(list: readonly E[], known?: ListSnapshot<E>, kept = 0): ListSnapshot<E> {
  const length = list.length
  const items = list.slice()
  const names = kept ? known!.names.slice(0, kept) : []
  const values = kept ? known!.values.slice(0, kept) : []
  const extras = kept ? known!.extras.slice(0, kept) : []
  for (let i = kept; i < length; i++) {
    const item = items[i]
    names.push(item.name)
    values.push(item.text)
    extras.push(item.order)
  }
  return { items, names, values, extras }
}

function toolsSnapshot(list: readonly ToolSchema[], known?: ListSnapshot<ToolSchema>, kept = 0): ListSnapshot<ToolSchema> {
  const length = list.length
  const items = list.slice()
  const names = kept ? known!.names.slice(0, kept) : []
  const values = kept ? known!.values.slice(0, kept) : []
  const extras = kept ? known!.extras.slice(0, kept) : []
  for (let i = kept; i < length; i++) {
    const item = items[i]
    names.push(item.name)
    values.push(item.description)
    extras.push(item.parameters)
  }
  return { items, names, values, extras }
}

/** What a hand-off reports a changed list to (the assembly's `ProvenanceRecorder`, in `provenance.ts`). */
export interface ChangeRecorder {
  record(key: 'sections' | 'contexts' | 'tools', before: ListSnapshot<Named>, after: readonly Named[], kept: number, by: string): void
}

/**
 * Checks `value`, handed on or returned by the listener of plugin `by`, against `before` (what that
 * listener received or got back), and records in `recorder` what it changed.
 */
export function examine(before: AssemblySnapshot, value: unknown, by: string, recorder: ChangeRecorder): HandOff {
  if (typeof value !== 'object' || value === null) {
    return { problem: `expected an assembly object, got ${value === null ? 'null' : typeof value}`, snap: before, changed: false, toolsFrom: 0 }
  }
  const assembly = value as Partial<PromptAssembly>
  const { sections, tools } = assembly
  let { contexts } = assembly
  let problem: string | undefined
  let sectionsKept = 0
  let contextsKept = 0
  let toolsKept = 0
  if (!Array.isArray(sections)) problem = 'sections is not an array'
  else problem = listProblem(sections, 'sections', sectionsKept = keptTexts(before.sections, sections), before.sections.names)
  if (problem === undefined && contexts === undefined) {
    contexts = before.contexts.items.slice()
    problem = keepContexts(assembly, contexts)
  }
  if (problem === undefined) {
    if (!Array.isArray(contexts)) problem = 'contexts is not an array'
    else problem = listProblem(contexts, 'contexts', contextsKept = keptTexts(before.contexts, contexts), before.contexts.names)
  }
  if (problem === undefined) {
    if (!Array.isArray(tools)) problem = 'tools is not an array'
    else problem = listProblem(tools, 'tools', toolsKept = keptTools(before.tools, tools), before.tools.names)
  }
  problem ??= variablesProblem(assembly.variables, before.variables)
  if (problem !== undefined) return { problem, snap: before, changed: false, toolsFrom: 0 }
  const sectionsSame = sectionsKept === sections!.length && sectionsKept === before.sections.items.length
  const contextsSame = contextsKept === contexts!.length && contextsKept === before.contexts.items.length
  const toolsSame = toolsKept === tools!.length && toolsKept === before.tools.items.length
  if (sectionsSame && contextsSame && toolsSame) return { snap: before, changed: false, toolsFrom: tools!.length }
  if (!sectionsSame) recorder.record('sections', before.sections, sections!, sectionsKept, by)
  if (!contextsSame) recorder.record('contexts', before.contexts, contexts!, contextsKept, by)
  if (!toolsSame) recorder.record('tools', before.tools, tools!, toolsKept, by)
  const snap: AssemblySnapshot = {
    sections: sectionsSame ? before.sections : textsSnapshot(sections as AssembledSection[], before.sections, sectionsKept),
    contexts: contextsSame ? before.contexts : textsSnapshot(contexts as AssembledContext[], before.contexts, contextsKept),
    tools: toolsSame ? before.tools : toolsSnapshot(tools as ToolSchema[], before.tools, toolsKept),
    variables: before.variables,
  }
  return { snap, changed: true, toolsFrom: toolsSame ? tools!.length : toolsKept }
}

/**
 * Gives `assembly`, which has no `contexts`, the kept ones; the problem when it cannot take them (a frozen
 * or otherwise unwritable object).
 */
function keepContexts(assembly: Partial<PromptAssembly>, contexts: AssembledContext[]): string | undefined {
  try {
    if (Object.isExtensible(assembly) && Reflect.set(assembly, 'contexts', contexts) && assembly.contexts === contexts) return undefined
  } catch {
    // A proxy that throws: the problem below names it.
  }
  return 'contexts is absent and the assembly cannot take the kept ones (it is not writable)'
}

/**
 * How many leading elements of `list` are exactly the snapshot's, with the same name, text and order.
 * One function per kind of list (and direct field reads), so each read sees the few shapes of one kind.
 */
function keptTexts(before: ListSnapshot<AssembledSection | AssembledContext>, list: readonly unknown[]): number {
  const { items, names, values, extras } = before
  const length = Math.min(list.length, items.length)
  let i = 0
  while (i < length) {
    const item = list[i] as AssembledSection
    // A snapshot's elements are objects: anything else differs before a field is read.
    if (item !== items[i] || item.text !== values[i] || item.name !== names[i] || item.order !== extras[i]) break
    i++
  }
  return i
}

/** How many leading tools of `list` are exactly the snapshot's, with the same name, description and parameters. */
function keptTools(before: ListSnapshot<ToolSchema>, list: readonly unknown[]): number {
  const { items, names, values, extras } = before
  const length = Math.min(list.length, items.length)
  let i = 0
  while (i < length) {
    const item = list[i] as ToolSchema
    if (item !== items[i] || item.description !== values[i] || item.name !== names[i] || item.parameters !== extras[i]) break
    i++
  }
  return i
}
