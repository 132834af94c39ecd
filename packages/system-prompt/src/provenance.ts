/**
 * Provenance through the waterfall (SPEC §13): which listener's plugin added, rewrote or removed each
 * section, context and tool of an assembly. Each listener's hand-offs are compared (what it received
 * with what it passed to `next()`, and what came back with what it returned); a list a listener handed
 * on untouched is recognised by identity and costs no lookup. Pure and Cordis-free.
 * @module
 */
import type { AssembledContext, AssembledSection, PromptAssembly, ToolSchema } from './types.js'

/** What a listener did to an entry. */
export type ChangeAction = 'added' | 'rewritten' | 'removed'

/** The last change a listener made to one entry. */
export interface EntryChange<E> {
  readonly action: ChangeAction
  /** The plugin of the listener that made it. */
  readonly by: string
  /** The entry as that listener left it (for `removed`: as it stood before). */
  readonly entry: E
}

/** Every entry a listener changed, by name; entries no listener touched are absent. */
export interface Provenance {
  readonly sections: ReadonlyMap<string, EntryChange<AssembledSection>>
  readonly contexts: ReadonlyMap<string, EntryChange<AssembledContext>>
  readonly tools: ReadonlyMap<string, EntryChange<ToolSchema>>
}

type Named = { readonly name: string }

/** A list as it stood at a hand-off: its elements and the field of each that renders (text, description). */
interface ListSnapshot<E extends Named> {
  readonly list: readonly E[]
  readonly items: readonly E[]
  readonly values: readonly unknown[]
}

/** An assembly's three lists as they stood at a hand-off. */
export interface AssemblySnapshot {
  readonly sections: ListSnapshot<AssembledSection>
  readonly contexts: ListSnapshot<AssembledContext>
  readonly tools: ListSnapshot<ToolSchema>
}

const textOf = (entry: { text?: unknown }) => entry.text
const descriptionOf = (tool: { description?: unknown }) => tool.description

/** The lists of `assembly` as they stand now. */
export function snapshot(assembly: PromptAssembly): AssemblySnapshot {
  return {
    sections: listSnapshot(assembly.sections, textOf),
    contexts: listSnapshot(assembly.contexts, textOf),
    tools: listSnapshot(assembly.tools, descriptionOf),
  }
}

function listSnapshot<E extends Named>(list: readonly E[], value: (entry: E) => unknown): ListSnapshot<E> {
  return { list, items: list.slice(), values: list.map(value) }
}

/** Collects the changes of one assembly's waterfall; the last change to a name wins. */
export class ProvenanceRecorder {
  private readonly sections = new Map<string, EntryChange<AssembledSection>>()
  private readonly contexts = new Map<string, EntryChange<AssembledContext>>()
  private readonly tools = new Map<string, EntryChange<ToolSchema>>()

  /**
   * Records what `by` changed between `before` (a snapshot) and `after`; `false` when it changed nothing
   * (then `before` still describes `after`, and the next hand-off can reuse it instead of a new snapshot).
   */
  record(before: AssemblySnapshot, after: PromptAssembly, by: string): boolean {
    const sections = diff(before.sections, after.sections, textOf, by, this.sections)
    const contexts = diff(before.contexts, after.contexts, textOf, by, this.contexts)
    return diff(before.tools, after.tools, descriptionOf, by, this.tools) || sections || contexts
  }

  /** The provenance of `final` (the waterfall's result): only changes that still show in it. */
  result(final: PromptAssembly): Provenance {
    return {
      sections: settle(this.sections, final.sections),
      contexts: settle(this.contexts, final.contexts),
      tools: settle(this.tools, final.tools),
    }
  }
}

/** An assembly no listener changed. */
export const NO_CHANGES: Provenance = Object.freeze({ sections: new Map(), contexts: new Map(), tools: new Map() })

function diff<E extends Named>(before: ListSnapshot<E>, after: readonly E[], value: (entry: E) => unknown, by: string, into: Map<string, EntryChange<E>>): boolean {
  const kept = keptPrefix(before, after, value)
  if (kept === before.items.length) {
    if (kept === after.length) return false
    // Nothing before was touched: only appended entries (if any) are changes. The common case of a
    // listener that hands on an assembly, or appends to a copy of its list, costs no lookup table.
    for (let i = kept; i < after.length; i++) {
      const entry = after[i]
      into.set(entry.name, { action: before.items.some((old) => old.name === entry.name) ? 'rewritten' : 'added', by, entry })
    }
    return true
  }
  const earlier = new Map<string, number>()
  for (let i = 0; i < before.items.length; i++) earlier.set(before.items[i].name, i)
  const seen = new Set<string>()
  for (const entry of after) {
    seen.add(entry.name)
    const at = earlier.get(entry.name)
    if (at === undefined) into.set(entry.name, { action: 'added', by, entry })
    else if (before.items[at] !== entry || before.values[at] !== value(entry)) {
      into.set(entry.name, { action: 'rewritten', by, entry })
    }
  }
  for (const entry of before.items) if (!seen.has(entry.name)) into.set(entry.name, { action: 'removed', by, entry })
  return true
}

/** How many leading entries of `after` are exactly the snapshot's, with the same rendered value. */
function keptPrefix<E extends Named>(before: ListSnapshot<E>, after: readonly E[], value: (entry: E) => unknown): number {
  const length = Math.min(after.length, before.items.length)
  let i = 0
  while (i < length && after[i] === before.items[i] && value(after[i]) === before.values[i]) i++
  return i
}

function settle<E extends Named>(changes: Map<string, EntryChange<E>>, final: readonly E[]): ReadonlyMap<string, EntryChange<E>> {
  if (!changes.size) return changes
  const present = changes.size > 8 ? new Set(final.map((entry) => entry.name)) : undefined
  const has = (name: string) => present ? present.has(name) : final.some((entry) => entry.name === name)
  for (const [name, change] of changes) if ((change.action === 'removed') === has(name)) changes.delete(name)
  return changes
}
