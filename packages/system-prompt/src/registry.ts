/**
 * The registry's storage: every registration filed in its layer, and the per-chain resolved view
 * (nearest layer wins a name; sorted once, reused until a layer on the chain changes).
 * @module
 */
import { ScopedRegistry, type StampedLayers, type ScopedRegistryOptions, type ScopeKey } from 'dsh-scope'
import { compareCodeUnits } from './tool-order.js'
import { CompiledView } from './compiled-view.js'
import type { CompactionSurvival, PromptText, SectionBand, ToolProvider, VariableProvider, Volatility } from './types.js'

/** A section or context registration. */
export interface TextEntry {
  readonly kind: 'section' | 'context'
  readonly name: string
  readonly order: number
  readonly text: PromptText
  readonly complete: boolean
  readonly interpolate: boolean
  /** Sections only: the ordering band. */
  readonly band: SectionBand | undefined
  /** Sections only: the tool the section is shown with. */
  readonly tool: string | undefined
  /** How often the text may change by design. */
  readonly volatility: Volatility
  /** Sections: what becomes of it at a compaction (contexts: `verbatim`, unused). */
  readonly compaction: CompactionSurvival
  readonly owner: string
  readonly scope: ScopeKey | undefined
}

/** A variable registration. */
export interface VariableEntry {
  readonly kind: 'variable'
  readonly name: string
  readonly provider: VariableProvider
  /** How often the value may change by design. */
  readonly volatility: Volatility
  readonly owner: string
  readonly scope: ScopeKey | undefined
}

/** A tool provider registration. */
export interface ToolsEntry {
  readonly kind: 'tools'
  readonly id: number
  readonly provider: ToolProvider
  readonly owner: string
  readonly scope: ScopeKey | undefined
}

/** A runtime-context suppressor. */
export interface SuppressEntry {
  readonly kind: 'suppress'
  readonly id: number
  readonly owner: string
  readonly scope: ScopeKey | undefined
}

/** Any registration the service files: text, variable, tool provider or suppressor. */
export type Entry = TextEntry | VariableEntry | ToolsEntry | SuppressEntry

/** What an assembly for one chain is made of, before evaluation. */
export interface ResolvedView {
  readonly sections: readonly TextEntry[]
  readonly complete: readonly TextEntry[]
  readonly contexts: readonly TextEntry[]
  readonly variables: readonly VariableEntry[]
  readonly tools: readonly ToolsEntry[]
  readonly suppressed: boolean
  /** Whether any section is shown only with a tool (`tool:`), so the assembly must look. */
  readonly withTool: boolean
  /**
   * What the assembly path keeps for this view (facts, tool check, render memo), typed, with one lifetime
   * (the view's) and one staleness rule (`compiled-view.ts`). On the view rather than in a WeakMap keyed
   * by it: views come and go with scopes, and a WeakMap's table never shrinks by collection.
   */
  readonly compiled: CompiledView
}

const BAND_RANK = { first: -1, last: 1 } as const

/** Band (`first`, none, `last`), then order, then code-unit name. */
export function compareText(a: Pick<TextEntry, 'name' | 'order' | 'band'>, b: Pick<TextEntry, 'name' | 'order' | 'band'>): number {
  return (a.band ? BAND_RANK[a.band] : 0) - (b.band ? BAND_RANK[b.band] : 0) || a.order - b.order || compareCodeUnits(a.name, b.name)
}

/** Where a registration came from: its plugin (or scope label) and its layer. */
export interface EntryOrigin {
  readonly owner: string
  /** The layer: a scope key, or `undefined` for the global layer. */
  readonly scope: ScopeKey | undefined
}

/** One effective section or context of a chain, with what it shadows. */
export interface InspectedText extends EntryOrigin {
  readonly kind: 'section' | 'context'
  readonly name: string
  readonly order: number
  readonly complete: boolean
  readonly interpolate: boolean
  /** Sections only: the ordering band, if any. */
  readonly band: SectionBand | undefined
  /** Sections only: the tool the section is shown with, if any. */
  readonly tool: string | undefined
  /** How often the text may render differently by design (its own declaration; see `variableVolatility`). */
  readonly volatility: Volatility
  /** What becomes of a section at a compaction (`verbatim` for contexts). */
  readonly compaction: CompactionSurvival
  /** The text is computed at each assembly. */
  readonly dynamic: boolean
  /** The same-named registrations farther up the chain that this one hides, nearest first. */
  readonly shadows: readonly EntryOrigin[]
}

/** One effective variable of a chain, with what it shadows. */
export interface InspectedVariable extends EntryOrigin {
  readonly name: string
  /** How often the value may change by design. */
  readonly volatility: Volatility
  readonly shadows: readonly EntryOrigin[]
}

/** What an assembly for one chain is made of, with provenance: the data behind `dsh-prompt explain`. */
export interface Inspection {
  readonly sections: readonly InspectedText[]
  readonly contexts: readonly InspectedText[]
  readonly variables: readonly InspectedVariable[]
  readonly toolProviders: readonly EntryOrigin[]
  /** Suppressors of the runtime context on the chain (or in the global layer). */
  readonly suppressors: readonly EntryOrigin[]
}

/**
 * Every registration of the service, filed by `dsh-scope`'s `ScopedRegistry` (keys, owner, layer,
 * duplicate check, change reports, last-in first-out teardown), with the memoised per-chain view and
 * the inspection built on its layers.
 */
export class PromptRegistry {
  /** The scoped registry the service registers through. */
  readonly store: ScopedRegistry<Entry, ResolvedView>

  constructor(options: ScopedRegistryOptions<Entry>) {
    this.store = new ScopedRegistry<Entry, ResolvedView>(options)
  }

  /** The layers the entries are filed in. */
  get layers(): StampedLayers<Entry, ResolvedView> {
    return this.store.layers
  }

  /** The resolved view for `chain` (nearest first; `[]` for the global layer alone), memoised. */
  view(chain: readonly ScopeKey[]): ResolvedView {
    return this.layers.memo(chain, () => this.compute(chain))
  }

  /** The effective registrations of `chain`, in assembly order, with what each one shadows. */
  inspect(chain: readonly ScopeKey[]): Inspection {
    const view = this.view(chain)
    const layers: (ScopeKey | undefined)[] = [...chain, undefined]
    const shadows = (entry: Entry): EntryOrigin[] => {
      const key = this.store.keyOf(entry)
      const found: EntryOrigin[] = []
      for (const layer of layers.slice(layers.indexOf(entry.scope) + 1)) {
        const hidden = this.layers.get(layer, key)
        if (hidden) found.push({ owner: hidden.owner, scope: hidden.scope })
      }
      return found
    }
    const text = (entry: TextEntry): InspectedText => ({
      kind: entry.kind, name: entry.name, order: entry.order, complete: entry.complete, interpolate: entry.interpolate, band: entry.band, tool: entry.tool, volatility: entry.volatility, compaction: entry.compaction,
      dynamic: typeof entry.text === 'function', owner: entry.owner, scope: entry.scope, shadows: shadows(entry),
    })
    const suppressors: EntryOrigin[] = []
    for (const layer of layers) {
      for (const [, entry] of this.layers.entries(layer)) {
        if (entry.kind === 'suppress') suppressors.push({ owner: entry.owner, scope: entry.scope })
      }
    }
    return {
      sections: view.sections.map(text),
      contexts: view.contexts.map(text),
      variables: view.variables.map((v) => ({ name: v.name, owner: v.owner, scope: v.scope, volatility: v.volatility, shadows: shadows(v) })),
      toolProviders: view.tools.map((t) => ({ owner: t.owner, scope: t.scope })),
      suppressors,
    }
  }

  private compute(chain: readonly ScopeKey[]): ResolvedView {
    const sections: TextEntry[] = []
    const contexts: TextEntry[] = []
    const variables: VariableEntry[] = []
    const tools: ToolsEntry[] = []
    let suppressed = false
    for (const { value } of this.layers.resolve(chain).values()) {
      switch (value.kind) {
        case 'section': sections.push(value); break
        case 'context': contexts.push(value); break
        case 'variable': variables.push(value); break
        case 'tools': tools.push(value); break
        case 'suppress': suppressed = true; break
      }
    }
    sections.sort(compareText)
    contexts.sort(compareText)
    variables.sort((a, b) => compareCodeUnits(a.name, b.name))
    tools.sort((a, b) => a.id - b.id)
    return {
      sections, complete: sections.filter((s) => s.complete), contexts, variables, tools, suppressed, withTool: sections.some((s) => s.tool !== undefined),
      compiled: new CompiledView({ sections, contexts, variables }),
    }
  }
}
