import { Context, Service } from 'cordis'
import { defineScopedEvent, listenersFor, scopeChain, scopedListenerStats, scopeOf } from 'dsh-scope'
import { runAssembly } from './assemble.js'
import { Config } from './config.js'
import {
  duplicateGlobal, duplicateScoped, invalidName, invalidProvider, invalidText, invalidVariableName, nonFiniteOrder,
  type TextKind,
} from './errors.js'
import {
  getContextOrder, getSectionOrder, IDENTITY_SECTION, PERSONA_ORDER, PERSONA_SECTION, PERSONA_SUFFIX_ORDER,
  PERSONA_SUFFIX_SECTION, SECTION_PLACEMENTS,
} from './placements.js'
import { PromptRegistry, type Entry, type TextEntry } from './registry.js'
import type {
  AssembleContext, AssembleListener, PromptAssembly, PromptChangeEvent, PromptContext, PromptSection, ToolProvider,
  VariableProvider,
} from './types.js'

declare module 'cordis' {
  interface Context {
    systemPrompt: SystemPrompt
  }
}

const VARIABLE_NAME = /^[a-z][a-z0-9_]*$/
// C0 and C1 control characters: names travel into logs, tables and error messages.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/** The scoped event every `ctx.on('system-prompt/assemble', ...)` is routed through. */
export const ASSEMBLE_EVENT = 'system-prompt/assemble'

/**
 * The `systemPrompt` service: plugins register sections, runtime contexts, tool providers and variables,
 * each in the layer of the calling context's scope and owned by the calling fiber; `assemble()` merges
 * the layers for one scope, runs the `system-prompt/assemble` waterfall and returns a detached assembly.
 */
export class SystemPrompt extends Service {
  static Config = Config
  declare ctx: Context
  /** The registrations, by layer. */
  readonly registry = new PromptRegistry()
  private toolProviderIds = 0

  constructor(ctx: Context, readonly config: Config) {
    super(ctx, 'systemPrompt')
    defineScopedEvent(ctx, ASSEMBLE_EVENT)
    if (config.includeHarnessIdentity) {
      this.section({ name: IDENTITY_SECTION, order: SECTION_PLACEMENTS[IDENTITY_SECTION], text: config.identity, interpolate: false })
    }
    this.section({ name: PERSONA_SECTION, order: PERSONA_ORDER, text: config.persona })
    this.section({ name: PERSONA_SUFFIX_SECTION, order: PERSONA_SUFFIX_ORDER, text: config.personaSuffix })
  }

  /** Registers a system-prompt section in the calling context's layer. Returns its disposer. */
  section(section: PromptSection): () => void {
    return this.registerText('section', section, !!section?.complete)
  }

  /** Registers a runtime-context entry in the calling context's layer. Returns its disposer. */
  context(context: PromptContext): () => void {
    return this.registerText('context', context, false)
  }

  /**
   * Leaves the runtime context out of this layer's assemblies (and its descendants') while the calling
   * context lives. The contexts themselves keep running for other scopes.
   */
  suppressRuntimeContext(): () => void {
    const ctx = this.ctx
    return this.register({ kind: 'suppress', id: ++this.toolProviderIds, owner: ctx.fiber.name, scope: scopeOf(ctx) }, 'systemPrompt.suppressRuntimeContext()')
  }

  /** Registers an anonymous tool-schema provider, consulted at every assembly of its layers. */
  tools(provider: ToolProvider): () => void {
    if (typeof provider !== 'function') throw invalidProvider('tool provider', provider)
    const ctx = this.ctx
    return this.register({ kind: 'tools', id: ++this.toolProviderIds, provider, owner: ctx.fiber.name, scope: scopeOf(ctx) }, 'systemPrompt.tools()')
  }

  /** Registers a variable `{{name}}`; the provider returns `undefined` for "no value in this assembly". */
  variable(name: string, provider: VariableProvider): () => void {
    if (typeof name !== 'string' || !VARIABLE_NAME.test(name)) throw invalidVariableName(name)
    if (typeof provider !== 'function') throw invalidProvider(`prompt variable "${name}" provider`, provider)
    const ctx = this.ctx
    return this.register({ kind: 'variable', name, provider, owner: ctx.fiber.name, scope: scopeOf(ctx) }, `systemPrompt.variable(${JSON.stringify(name)})`)
  }

  /** Assembles for `context.scope` (global layer only without one). Every failure is a rejection. */
  async assemble(context: AssembleContext = {}): Promise<PromptAssembly> {
    const chain = scopeChain(this.ctx, context.scope)
    return runAssembly({
      view: this.registry.view(chain),
      context,
      runtimeContext: this.config.includeRuntimeContext,
      toolOrder: this.config.toolOrder,
      listeners: listenersFor<AssembleListener>(this.ctx, ASSEMBLE_EVENT, context.scope),
    })
  }

  /** The order of a named first-party section placement; unknown names throw. */
  getSectionOrder(name: string): number {
    return getSectionOrder(name)
  }

  /** The order of a named first-party runtime-context placement; unknown names throw. */
  getContextOrder(name: string): number {
    return getContextOrder(name)
  }

  /** Introspection for tests and tooling: layer, entry and listener counts. */
  stats(): { layers: number; scopeLayers: number; entries: number; listeners: number; listenerBuckets: number } {
    const listeners = scopedListenerStats(this.ctx, ASSEMBLE_EVENT)
    return { ...this.registry.layers.stats(), listeners: listeners.listeners, listenerBuckets: listeners.buckets }
  }

  private registerText(kind: TextKind, input: PromptSection | PromptContext, complete: boolean): () => void {
    if (typeof input !== 'object' || input === null) throw invalidName(kind, input)
    const { name, order, text } = input
    if (typeof name !== 'string' || !name || CONTROL.test(name)) throw invalidName(kind, name)
    if (typeof order !== 'number' || !Number.isFinite(order)) throw nonFiniteOrder(kind, name)
    if (typeof text !== 'string' && typeof text !== 'function') throw invalidText(kind, name, text)
    const ctx = this.ctx
    const entry: TextEntry = {
      kind, name, order, text, complete, interpolate: input.interpolate !== false, owner: ctx.fiber.name, scope: scopeOf(ctx),
    }
    return this.register(entry, `systemPrompt.${kind}(${JSON.stringify(name)})`)
  }

  private register(entry: Entry, label: string): () => void {
    const ctx = this.ctx
    const registry = this.registry
    const emit = (action: PromptChangeEvent['action']) => {
      const event: PromptChangeEvent = { kind: entry.kind === 'suppress' ? 'suppress-runtime-context' : entry.kind, action, owner: entry.owner }
      if ('name' in entry) event.name = entry.name
      if (entry.scope !== undefined) event.scope = entry.scope
      ctx.emit('system-prompt/change', event)
    }
    return ctx.effect(() => {
      if (!registry.add(entry)) {
        const kind = entry.kind as TextKind | 'variable'
        const name = (entry as { name: string }).name
        throw entry.scope === undefined ? duplicateGlobal(kind, name) : duplicateScoped(kind, name)
      }
      emit('register')
      return () => {
        if (registry.remove(entry)) emit('dispose')
      }
    }, label)
  }
}
