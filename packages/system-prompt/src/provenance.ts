/**
 * Provenance through the waterfall (R-WF-8): which listener's plugin added, rewrote or removed each
 * section, context and tool of an assembly. Each listener's hand-offs are compared (what it received
 * with what it passed to `next()`, and what came back with what it returned) by `hand-off.ts`, which
 * calls {@link ProvenanceRecorder.record} only for a list that differs, past the elements it kept.
 * Pure and Cordis-free.
 * @module
 */
import { descriptionOf, textOf, type AssemblySnapshot, type ListSnapshot } from './hand-off.js'
import type { AssembledContext, AssembledSection, ToolSchema } from './types.js'

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

/** An assembly no listener changed. */
export const NO_CHANGES: Provenance = Object.freeze({ sections: new Map(), contexts: new Map(), tools: new Map() })

/** Collects the changes of one assembly's waterfall; the last change to a name wins. */
export class ProvenanceRecorder {
  // Made on the first change to each list: most assemblies change one list, or none.
  private sections?: Map<string, EntryChange<AssembledSection>>
  private contexts?: Map<string, EntryChange<AssembledContext>>
  private tools?: Map<string, EntryChange<ToolSchema>>

  /**
   * Records what `by` changed in the `key` list between `before` and `after` (well formed), whose
   * first `kept` elements are exactly the snapshot's.
   */
  record(key: 'sections' | 'contexts' | 'tools', before: ListSnapshot<Named>, after: readonly Named[], kept: number, by: string): void {
    const into = (key === 'sections' ? this.sections ??= new Map() : key === 'contexts' ? this.contexts ??= new Map() : this.tools ??= new Map()) as unknown as Map<string, EntryChange<Named>>
    diff(before, after, kept, (key === 'tools' ? descriptionOf : textOf) as (entry: Named) => unknown, by, into)
  }

  /**
   * The provenance of the waterfall's result, described by `final`: only changes that still show in the
   * assembly handed back. A list the service puts back after the waterfall (the sections when a complete
   * section is restored, `sectionsKept` false; the contexts while the runtime context is off,
   * `contextsKept` false) shows no listener's change, so its provenance is empty.
   */
  result(final: AssemblySnapshot, sectionsKept: boolean, contextsKept: boolean): Provenance {
    return {
      sections: this.sections && sectionsKept ? settle(this.sections, final.sections.names) : NO_CHANGES.sections,
      contexts: this.contexts && contextsKept ? settle(this.contexts, final.contexts.names) : NO_CHANGES.contexts,
      tools: this.tools ? settle(this.tools, final.tools.names) : NO_CHANGES.tools,
    }
  }
}


function diff<E extends Named>(before: ListSnapshot<E>, after: readonly E[], kept: number, value: (entry: E) => unknown, by: string, into: Map<string, EntryChange<E>>): void {
  if (kept === before.items.length) {
    // Nothing before was touched: only appended entries (if any) are changes. The common case of a
    // listener that appends to a copy of its list costs no lookup table.
    for (let i = kept; i < after.length; i++) {
      const entry = after[i]
      into.set(entry.name, { action: before.names.includes(entry.name) ? 'rewritten' : 'added', by, entry })
    }
    return
  }
  const earlier = new Map<string, number>()
  for (let i = 0; i < before.items.length; i++) earlier.set(before.names[i], i)
  const seen = new Set<string>()
  for (const entry of after) {
    seen.add(entry.name)
    const at = earlier.get(entry.name)
    if (at === undefined) into.set(entry.name, { action: 'added', by, entry })
    else if (before.items[at] !== entry || before.values[at] !== value(entry)) {
      into.set(entry.name, { action: 'rewritten', by, entry })
    }
  }
  for (let i = 0; i < before.items.length; i++) {
    const name = before.names[i]
    if (!seen.has(name)) into.set(name, { action: 'removed', by, entry: before.items[i] })
  }
}

function settle<E extends Named>(changes: Map<string, EntryChange<E>>, final: readonly string[]): ReadonlyMap<string, EntryChange<E>> {
  if (!changes.size) return changes
  const present = changes.size > 8 ? new Set(final) : undefined
  const has = (name: string) => present ? present.has(name) : final.includes(name)
  for (const [name, change] of changes) if ((change.action === 'removed') === has(name)) changes.delete(name)
  return changes
}
