/**
 * Everything the assembly path keeps for one resolved view, as typed members of one object made with
 * the view (Vite compiles a sorted hook list per plugin set and drops it with its input; this is that
 * object for a scope chain).
 *
 * Lifetime: exactly the view's. `PromptRegistry.view(chain)` makes a new view, and a new compiled
 * object with it, when a layer on the chain changes (the stamp memo of `dsh-scope`); the old one is
 * dropped with the old view, and no module-wide table refers to either.
 *
 * Staleness, one rule for every member: a member is reused only while the input it was computed from
 * equals the input at hand, and that input is compared at each use, never assumed. The facts come from
 * the view's own entries, which never change while the view lives; the tool check from what the tool
 * providers returned (the same elements, compared one by one: identity is enough for a schema because
 * every schema is deeply frozen before it is kept); the render memo from each section's text, band,
 * `interpolate` and the values of the variables it references (compared by value, section by section).
 * Nothing here is handed out: assemblies get fresh objects built from it.
 * @module
 */
import { entryFacts, type ListFacts } from './hand-off.js'
import type { RenderMemoHolder } from './notes.js'
import type { ToolCache } from './tool-check.js'

/** The view's entries the facts are read from. */
interface FactsSource {
  readonly sections: readonly { readonly name: string; readonly order: number; readonly tool?: string }[]
  readonly contexts: readonly { readonly name: string; readonly order: number }[]
  readonly variables: readonly { readonly name: string }[]
}

/** What the assembly path keeps for one resolved view (see the module comment for its lifetime and staleness). */
export class CompiledView {
  /** The names and orders of the view's sections and contexts: the waterfall's first snapshot (`assemble.ts`). */
  readonly sections: ListFacts
  readonly contexts: ListFacts
  /**
   * The names of the view's variables, in the order an assembly's `variables` record holds them: each
   * passed `variable()`'s name check, so the waterfall's check of the record skips them (`hand-off.ts`).
   */
  readonly variables: readonly string[]
  /** The tool each section registered with `tool:` is shown with, by section name (empty when none is). */
  readonly sectionTools: ReadonlyMap<string, string>
  /** The last tool check and the provider results it was made from (`tool-check.ts`). */
  tools: ToolCache | undefined = undefined
  /** The last rendering of the view's sections (`render.ts`), carried by each assembly's notes. */
  readonly render: RenderMemoHolder = { memo: undefined }

  constructor(view: FactsSource) {
    this.sections = entryFacts(view.sections)
    this.contexts = entryFacts(view.contexts)
    this.variables = view.variables.map((entry) => entry.name)
    const tools = new Map<string, string>()
    for (const section of view.sections) if (section.tool !== undefined) tools.set(section.name, section.tool)
    this.sectionTools = tools.size ? tools : NO_SECTION_TOOLS
  }
}

const NO_SECTION_TOOLS: ReadonlyMap<string, string> = new Map()
