import type { ScopeKey } from 'dsh-scope'

/**
 * What one `assemble()` call is for. Declaration-merge extensible: packages add the fields they
 * supply (`dsh-agent` adds `agent`). Providers must tolerate absent fields: a bare `assemble()` has none.
 */
export interface AssembleContext {
  /** The scope whose layers (with its parent chain) are merged over the global layer. */
  scope?: ScopeKey
  /** Aborts this assembly: it then rejects with an `AbortError`. Not to be kept for another turn. */
  signal?: AbortSignal
}

/**
 * How often a part may render differently by design (R-CACHE-8): `static` (default: never), `conversation`
 * (once per conversation), `daily` (at a day boundary, such as a date), `turn` (at any request). `check`
 * accepts a declared change and still refuses an undeclared one.
 */
export type Volatility = 'static' | 'conversation' | 'daily' | 'turn'

/**
 * What becomes of a section at a compaction (`agent.compact()`, dsh-agent): `verbatim` (default) stays
 * in the system prompt word for word and is never in the text handed to the summarizer; `summary` is
 * handed to the summarizer and leaves the system prompt; `drop` leaves it without being summarised. A
 * section that left comes back when its text changes.
 */
export type CompactionSurvival = 'verbatim' | 'summary' | 'drop'

/** The options of `systemPrompt.variable()`. */
export interface VariableOptions {
  /** How often the value may change by design (default `static`). */
  volatility?: Volatility
}

/** A text: fixed, or computed from the assembly context at every assembly. */
export type PromptText = string | ((context: AssembleContext) => string)

/**
 * An ordering band: a `first` section renders before every section without a band, a `last` one after
 * them, whatever the orders (within a band: order, then name). The persona suffix is in band `last`.
 */
export type SectionBand = 'first' | 'last'

/** A named, ordered block of system-prompt text. */
export interface PromptSection {
  /** Unique within its layer; a nearer layer's section of the same name shadows it. */
  name: string
  /** Placement: ascending, ties by code-unit name order. Must be finite. */
  order: number
  /** The text, or a provider evaluated at each assembly (shadowed providers are not evaluated). */
  text: PromptText
  /** Claims the whole prompt: the assembly renders exactly this section. */
  complete?: boolean
  /** `false` emits the text verbatim (no `{{variable}}` interpolation). Default `true`. */
  interpolate?: boolean
  /** Renders before (`first`) or after (`last`) every section without a band, whatever the orders. */
  band?: SectionBand
  /** How often the text may render differently by design (default `static`; see {@link Volatility}). */
  volatility?: Volatility
  /**
   * The tool this section belongs with (tool guidance): the section is part of an assembly only when
   * that tool is among the assembly's tools, and, when the tool's provider reports the tool's layer,
   * only when the tool comes from this section's own layer. A hidden section is listed in the
   * assembly's notes (`assemblyNotes()`), not dropped silently.
   */
  tool?: string
  /** What becomes of the section at a compaction (default `verbatim`; see {@link CompactionSurvival}). */
  compaction?: CompactionSurvival
}

/** A named, ordered block of runtime context (part of the snapshot, not of the system prompt). */
export interface PromptContext {
  name: string
  order: number
  text: PromptText
  interpolate?: boolean
  /** How often the text may render differently by design (default `static`). */
  volatility?: Volatility
}

/**
 * A section as it stands in an assembly: text resolved but not yet interpolated. `order` is what the
 * registration said; a listener may add a section without one (`{ name, text }`, as plugins written for
 * the published package do): it keeps the position the listener gave it. When present it is finite.
 */
export interface AssembledSection {
  name: string
  order?: number
  text: string
  complete?: boolean
  interpolate?: boolean
  /** The section's ordering band; render honours it even for sections a listener moved. */
  band?: SectionBand
  /** The plugin (fiber name) that registered it; absent for sections a listener added. */
  owner?: string
  /** The layer it came from: a scope key, or `undefined` for the global layer. */
  scope?: ScopeKey
}

/** A runtime context as it stands in an assembly (`order` optional, as for sections). */
export interface AssembledContext {
  name: string
  order?: number
  text: string
  interpolate?: boolean
  owner?: string
  scope?: ScopeKey
}

/**
 * A tool schema offered to the model. In an assembly each schema is a fresh shallow copy (its top-level
 * fields may be reassigned by a listener); what it holds (`parameters`) is deeply frozen and shared.
 */
export interface ToolSchema {
  name: string
  description?: string
  /** JSON Schema of the parameters. */
  parameters?: Record<string, unknown>
  [key: string]: unknown
}

/** What a tool provider returns at each assembly. */
export interface ToolProviderResult {
  /** The schemas visible to this assembly (after any restriction). */
  schemas: readonly ToolSchema[]
  /** The pre-restriction universe of names, used to validate `toolOrder`. Defaults to the schema names. */
  knownNames?: readonly string[]
  /**
   * The layer each visible tool comes from (a scope key, `undefined` for the global layer), when the
   * provider knows it: a section registered with `tool: name` is then shown only with the tool of its own
   * layer (a scope that shadows the tool does not get the wider layer's guidance).
   */
  layers?: ReadonlyMap<string, ScopeKey | undefined>
}

/** A tool provider: consulted at every assembly of the layers it belongs to. */
export type ToolProvider = (context: AssembleContext) => ToolProviderResult

/** A variable provider: `undefined` means "no value in this assembly". */
export type VariableProvider = (context: AssembleContext) => string | undefined

/**
 * The structured result of one `assemble()`: ordered sections, ordered contexts, ordered tools and every
 * registered variable resolved. Declaration-merge extensible. Detached: mutating it never reaches the registry.
 */
export interface PromptAssembly {
  sections: AssembledSection[]
  contexts: AssembledContext[]
  tools: ToolSchema[]
  variables: Record<string, string | undefined>
}

/** A registry change, emitted as `system-prompt/change` after each registration and disposal. */
export interface PromptChangeEvent {
  /** What changed. */
  kind: 'section' | 'context' | 'variable' | 'tools' | 'suppress-runtime-context'
  /** `register` or `dispose`. */
  action: 'register' | 'dispose'
  /** The entry's name (sections, contexts, variables). */
  name?: string
  /** The layer: a scope key, or `undefined` for the global layer. */
  scope?: ScopeKey
  /** The plugin (fiber name) that made the registration. */
  owner: string
}

/**
 * An assembly as a `system-prompt/assemble` listener may hand it on or return it: a `PromptAssembly`, or
 * the published three-field shape `{ sections, tools, variables }`. Left out (`contexts` absent or
 * `undefined`), `contexts` is kept from the assembly the listener had: the one it got back from `next()`,
 * or the one it received when it did not call `next()`. A `contexts` that is present and not an array is
 * still `PROMPT_MALFORMED_ASSEMBLY`. What the waterfall hands a listener always has `contexts`.
 */
export type HandedAssembly = Omit<PromptAssembly, 'contexts'> & { contexts?: AssembledContext[] }

/** `next()` of the waterfall: runs the remaining listeners on `assembly` (default: the one received). */
export type AssembleNext = (assembly?: HandedAssembly) => Promise<PromptAssembly>

/**
 * A `system-prompt/assemble` listener. It must return a `PromptAssembly` (usually `next()`'s result or
 * the one it was given): the type makes a forgotten return a compile error.
 */
export type AssembleListener = (
  assembly: PromptAssembly, context: AssembleContext, next: AssembleNext,
) => HandedAssembly | Promise<HandedAssembly>

declare module 'cordis' {
  interface Events {
    'system-prompt/assemble': AssembleListener
    'system-prompt/change'(event: PromptChangeEvent): void
    /**
     * A deployment has finished loading (`dsh-loader` emits it with the deployment): the service checks its
     * tools. Typed `unknown` exactly as `dsh-loader` declares it, so both declarations merge.
     */
    'deployment/loaded'(deployment: unknown): void
  }
}
