/**
 * The service's state and registration logic as a plain object. The Cordis service forwards to it, so
 * the hot paths (registration, assembly) run on ordinary objects instead of through the per-access
 * proxies Cordis builds around a service for each caller.
 * @module
 */
import type { Context } from 'cordis'
import { ownerName, scopeIndex, scopedListenerStats, type ScopeIndex, type ScopeKey, type WarningLogger } from 'dsh-scope'
import { runAssembly, withLateVariables } from './assemble.js'
import { guardAssembly } from './reentry.js'
import { checkTools, type ToolCheck } from './tool-check.js'
import type { ResolvedConfig } from './config.js'
import {
  changeListenerFailed, changeVetoed, isOldBandOrder, oldBandOrder, duplicateGlobal, invalidVolatility, VOLATILITIES, duplicateScoped, invalidBand, invalidName, invalidProvider, invalidSectionTool, invalidSectionCompaction, invalidText,
  invalidVariableName, isVariableName, nonFiniteOrder, type TextKind,
} from './errors.js'
import { placementBand, sectionName } from './placements.js'
import { PromptRegistry, type Entry, type Inspection } from './registry.js'
import type {
  AssembleContext, AssembleListener, PromptAssembly, PromptChangeEvent, PromptContext, PromptSection, ToolProvider,
  VariableOptions, VariableProvider, Volatility,
} from './types.js'

// C0 and C1 control characters: names travel into logs, tables and error messages.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const NO_SECTION_FIELDS: Pick<PromptSection, 'band' | 'tool' | 'compaction'> = {}

/** The scoped event every `ctx.on('system-prompt/assemble', ...)` is routed through. */
export const ASSEMBLE_EVENT = 'system-prompt/assemble'

/** The event a deployment loader emits once a deployment has finished loading (`dsh-loader` does). */
export const DEPLOYMENT_LOADED = 'deployment/loaded'

/** Registration and assembly, on plain objects. One per `systemPrompt` service instance. */
export class PromptCore {
  readonly registry: PromptRegistry
  /** The app's scope bookkeeping, found through the first context that asks (one app per service). */
  private index?: ScopeIndex

  /**
   * `emit` reports a change (`system-prompt/change`). A listener that throws on a registration vetoes
   * it, as in the published package: it is taken back and `PROMPT_CHANGE_VETOED` is thrown to the
   * registering plugin. A throw on a disposal is a warning to `logger`, and the disposal stands.
   */
  /** The plugins already warned of an order in an old published band (once each). */
  private readonly oldBands = new Set<string>()

  constructor(readonly config: ResolvedConfig, emit: (event: PromptChangeEvent) => void, private readonly logger: WarningLogger) {
    this.registry = new PromptRegistry({
      onDuplicate: (entry, scoped) => (scoped ? duplicateScoped : duplicateGlobal)(entry.kind as TextKind | 'variable', entry.name),
      onChange: ({ action, entry }) => emit(changeEvent(entry, action)),
      changeFailed: ({ action, entry }, error) => changeListenerFailed(changeEvent(entry, action), error),
      vetoed: (entry, error) => changeVetoed(changeEvent(entry, 'register'), error),
      logger,
    })
  }

  section(ctx: Context, section: PromptSection): () => void {
    return this.registerText(ctx, 'section', section, !!section?.complete)
  }

  context(ctx: Context, context: PromptContext): () => void {
    return this.registerText(ctx, 'context', context, false)
  }

  suppressRuntimeContext(ctx: Context): () => void {
    return this.registry.store.register(ctx, { kind: 'suppress' })
  }

  tools(ctx: Context, provider: ToolProvider): () => void {
    if (typeof provider !== 'function') throw invalidProvider('tool provider', provider)
    return this.registry.store.register(ctx, { kind: 'tools', provider })
  }

  variable(ctx: Context, name: string, provider: VariableProvider, options: VariableOptions = {}): () => void {
    if (!isVariableName(name)) throw invalidVariableName(name)
    if (typeof provider !== 'function') throw invalidProvider(`prompt variable "${name}" provider`, provider)
    const volatility = volatilityOf('variable', name, options?.volatility)
    return this.registry.store.register(ctx, { kind: 'variable', name, provider, volatility })
  }

  assemble(ctx: Context, context: AssembleContext): Promise<PromptAssembly> {
    const index = this.scopes(ctx)
    const chain = index.chain(context.scope)
    const listeners = index.listeners<AssembleListener>(ASSEMBLE_EVENT, chain)
    const view = this.registry.view(chain)
    return guardAssembly(context.scope, listeners.length > 0, (frame) => runAssembly({
      view,
      context,
      runtimeContext: this.config.includeRuntimeContext,
      toolOrder: this.config.toolOrder,
      listeners,
      watch: frame.watch,
    }).then((assembly) => {
      // A registration during the assembly gives the chain a new view: its new variables are seen.
      const after = this.registry.view(chain)
      return after === view ? assembly : withLateVariables(assembly, view, after, context)
    }))
  }

  private scopes(ctx: Context): ScopeIndex {
    return this.index ??= scopeIndex(ctx)
  }

  /** The tool check an assembly for `context` would make (R-TOOL); throws when a tool provider fails. */
  checkTools(ctx: Context, context: AssembleContext): ToolCheck {
    return checkTools(this.registry.view(this.scopes(ctx).chain(context.scope)), context, this.config.toolOrder)
  }

  inspect(ctx: Context, scope: ScopeKey | undefined): Inspection {
    return this.registry.inspect(this.scopes(ctx).chain(scope))
  }

  stats(ctx: Context) {
    const listeners = scopedListenerStats(ctx, ASSEMBLE_EVENT)
    return { ...this.registry.layers.stats(), listeners: listeners.listeners, listenerBuckets: listeners.buckets }
  }

  private registerText(ctx: Context, kind: TextKind, input: PromptSection | PromptContext, complete: boolean): () => void {
    if (typeof input !== 'object' || input === null) throw invalidName(kind, input)
    const { order, text } = input
    const name = kind === 'section' && typeof input.name === 'string' ? sectionName(input.name) : input.name
    if (typeof name !== 'string' || !name || CONTROL.test(name)) throw invalidName(kind, name)
    if (typeof order !== 'number' || !Number.isFinite(order)) throw nonFiniteOrder(kind, name)
    if (typeof text !== 'string' && typeof text !== 'function') throw invalidText(kind, name, text)
    const { band = kind === 'section' ? placementBand(name) : undefined, tool, compaction } = kind === 'section' ? input as PromptSection : NO_SECTION_FIELDS
    if (band !== undefined && band !== 'first' && band !== 'last') throw invalidBand(name, band)
    if (tool !== undefined && (typeof tool !== 'string' || !tool)) throw invalidSectionTool(name, tool)
    if (compaction !== undefined && compaction !== 'verbatim' && compaction !== 'summary' && compaction !== 'drop') throw invalidSectionCompaction(name, compaction)
    const volatility = volatilityOf(kind, name, input.volatility)
    const dispose = this.registry.store.register(ctx, { kind, name, order, text, complete, interpolate: input.interpolate !== false, band, tool, volatility, compaction: compaction ?? 'verbatim' })
    if (kind === 'section' && band === undefined && isOldBandOrder(name, order)) this.warnOldBand(ownerName(ctx), name, order)
    return dispose
  }

  /** Warns, once per plugin, of a section placed in an old published band (a plugin written for the older package). */
  private warnOldBand(owner: string, name: string, order: number): void {
    if (this.oldBands.has(owner)) return
    this.oldBands.add(owner)
    this.logger.warn('%s', oldBandOrder(owner, name, order).message)
  }
}

function changeEvent(entry: Entry, action: PromptChangeEvent['action']): PromptChangeEvent {
  const event: PromptChangeEvent = { kind: entry.kind === 'suppress' ? 'suppress-runtime-context' : entry.kind, action, owner: entry.owner }
  if ('name' in entry) event.name = entry.name
  if (entry.scope !== undefined) event.scope = entry.scope
  return event
}

/** The declared volatility (default `static`), or the error naming the entry. */
function volatilityOf(kind: TextKind | 'variable', name: string, volatility: unknown): Volatility {
  if (volatility === undefined) return 'static'
  if (!(VOLATILITIES as readonly unknown[]).includes(volatility)) throw invalidVolatility(kind, name, volatility)
  return volatility as Volatility
}
