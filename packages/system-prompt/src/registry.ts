/**
 * The registry's storage: every registration filed in its layer, and the per-chain resolved view
 * (nearest layer wins a name; sorted once, reused until a layer on the chain changes).
 * @module
 */
import { ScopedLayers, type ScopeKey } from 'dsh-scope'
import { compareCodeUnits } from './tool-order.js'
import { PERSONA_SUFFIX_SECTION } from './placements.js'
import type { PromptText, ToolProvider, VariableProvider } from './types.js'

/** A section or context registration. */
export interface TextEntry {
  readonly kind: 'section' | 'context'
  readonly name: string
  readonly order: number
  readonly text: PromptText
  readonly complete: boolean
  readonly interpolate: boolean
  readonly owner: string
  readonly scope: ScopeKey | undefined
}

/** A variable registration. */
export interface VariableEntry {
  readonly kind: 'variable'
  readonly name: string
  readonly provider: VariableProvider
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

export type Entry = TextEntry | VariableEntry | ToolsEntry | SuppressEntry

/** What an assembly for one chain is made of, before evaluation. */
export interface ResolvedView {
  readonly sections: readonly TextEntry[]
  readonly complete: readonly TextEntry[]
  readonly contexts: readonly TextEntry[]
  readonly variables: readonly VariableEntry[]
  readonly tools: readonly ToolsEntry[]
  readonly suppressed: boolean
}

/** The storage key of an entry: kinds have separate name spaces. */
export function entryKey(entry: Entry): string {
  switch (entry.kind) {
    case 'section': return 's:' + entry.name
    case 'context': return 'c:' + entry.name
    case 'variable': return 'v:' + entry.name
    case 'tools': return 't:' + entry.id
    case 'suppress': return 'x:' + entry.id
  }
}

/** Order, then code-unit name; the persona suffix sorts last whatever its order. */
export function compareText(a: { name: string; order: number }, b: { name: string; order: number }): number {
  const aLast = a.name === PERSONA_SUFFIX_SECTION
  const bLast = b.name === PERSONA_SUFFIX_SECTION
  if (aLast !== bLast) return aLast ? 1 : -1
  return a.order - b.order || compareCodeUnits(a.name, b.name)
}

/** Layered storage of all registrations with a memoised per-chain view. */
export class PromptRegistry {
  readonly layers = new ScopedLayers<Entry>()

  /** Files `entry`; `false` when its name is already taken in its layer. */
  add(entry: Entry): boolean {
    return this.layers.add(entry.scope, entryKey(entry), entry)
  }

  /** Removes `entry` if it is still filed; `true` when it was. */
  remove(entry: Entry): boolean {
    return this.layers.remove(entry.scope, entryKey(entry), entry)
  }

  /** The resolved view for `chain` (nearest first; `[]` for the global layer alone), memoised. */
  view(chain: readonly ScopeKey[]): ResolvedView {
    return this.layers.memo(chain, () => this.compute(chain))
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
    return { sections, complete: sections.filter((s) => s.complete), contexts, variables, tools, suppressed }
  }
}
