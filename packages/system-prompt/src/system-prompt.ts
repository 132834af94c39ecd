import { Context, Service } from 'cordis'
import { defineScopedEvent, markNoShadow, type ScopeKey } from 'dsh-scope'
import { Config, type ResolvedConfig } from './config.js'
import { ASSEMBLE_EVENT, DEPLOYMENT_LOADED, PromptCore } from './prompt-core.js'
import type { ToolCheck } from './tool-check.js'
import type { Inspection } from './registry.js'
import { registerOwnSections } from './live-config.js'

const kCore = Symbol('dsh.systemPrompt.core')
import { getContextOrder, getSectionOrder, type ContextPlacementName, type SectionPlacementName } from './placements.js'
import type {
  AssembleContext, PromptAssembly, PromptChangeEvent, PromptContext, PromptSection, ToolProvider, VariableOptions, VariableProvider,
} from './types.js'

declare module 'cordis' {
  interface Context {
    systemPrompt: SystemPrompt
  }
}

export { ASSEMBLE_EVENT, DEPLOYMENT_LOADED }

/**
 * The `systemPrompt` service: plugins register sections, runtime contexts, tool providers and variables,
 * each in the layer of the calling context's scope and owned by the calling fiber; `assemble()` merges
 * the layers for one scope, runs the `system-prompt/assemble` waterfall and returns a detached assembly.
 * Each registration returns its disposer and emits `system-prompt/change` (as does each disposal); a
 * change listener that throws is logged as a warning and changes nothing. When a deployment has finished
 * loading (`deployment/loaded`), the tools of the global assembly are checked once (`toolOrder` naming
 * an unregistered tool, a reserved name) and a problem is logged as a warning, before the first turn.
 */
export class SystemPrompt extends Service {
  static Config = Config
  declare ctx: Context
  /** @internal The state and logic, on plain objects (see prompt-core.ts); symbol-keyed, so reading it is cheap. */
  readonly [kCore]: PromptCore

  /** The configuration with every default applied. */
  readonly config: ResolvedConfig

  /**
   * Loaded as a plugin (`ctx.plugin(SystemPrompt, config)`) Cordis validates `config` first; constructed
   * directly (`new SystemPrompt(ctx, {})`) the same schema applies the defaults and refuses what it refuses.
   */
  constructor(ctx: Context, config: Config = {}) {
    super(ctx, 'systemPrompt')
    const resolved = this.config = Config(config)
    markNoShadow(this)
    const events = ctx.root.events
    const logger = ctx.logger('dsh-system-prompt')
    // A change notification is news, not a veto: the core logs a listener that throws, and the
    // registration (or disposal) it was told about stands.
    this[kCore] = new PromptCore(resolved, (event: PromptChangeEvent) => events.emit('system-prompt/change', event), logger)
    defineScopedEvent(ctx, ASSEMBLE_EVENT)
    // R-TOOL-4: the assembly-time tool check also runs once the deployment has loaded, as a warning.
    ctx.on(DEPLOYMENT_LOADED, () => {
      let problem: Error | undefined
      try {
        problem = this[kCore].checkTools(ctx, {}).problem
      } catch {
        // A failing tool provider is the assembly's to report, with its plugin named.
      }
      if (problem) logger.warn('%s', problem.message)
    })
    // The identity line and the persona pieces; a new text of one of them (fiber.update) applies in place.
    registerOwnSections(ctx, resolved, (section) => this[kCore].section(ctx, section))
  }

  /** Registers a system-prompt section in the calling context's layer. Returns its disposer. */
  section(section: PromptSection): () => void {
    return this[kCore].section(this.ctx, section)
  }

  /** Registers a runtime-context entry in the calling context's layer. Returns its disposer. */
  context(context: PromptContext): () => void {
    return this[kCore].context(this.ctx, context)
  }

  /**
   * Leaves the runtime context out of this layer's assemblies (and its descendants') while the calling
   * context lives. The context providers keep running for other scopes.
   */
  suppressRuntimeContext(): () => void {
    return this[kCore].suppressRuntimeContext(this.ctx)
  }

  /** Registers an anonymous tool-schema provider, consulted at every assembly of its layers. */
  tools(provider: ToolProvider): () => void {
    return this[kCore].tools(this.ctx, provider)
  }

  /** Registers a variable `{{name}}`; the provider returns `undefined` for "no value in this assembly". */
  variable(name: string, provider: VariableProvider, options?: VariableOptions): () => void {
    return this[kCore].variable(this.ctx, name, provider, options)
  }

  /** Assembles for `context.scope` (the global layer only without one). Every failure is a rejection. */
  assemble(context: AssembleContext = {}): Promise<PromptAssembly> {
    try {
      return this[kCore].assemble(this.ctx, context)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * The tool check an assembly for `context` would make (R-TOOL), without running text providers or
   * listeners: the ordered tools, every known name, the `toolOrder` names no provider knows, the plugins
   * that returned the reserved name, and the error the assembly would reject with. Throws when a tool
   * provider fails or returns something malformed.
   */
  checkTools(context: AssembleContext = {}): ToolCheck {
    return this[kCore].checkTools(this.ctx, context)
  }

  /**
   * The order of a named first-party section placement, by its name (`tool:read`) or the published
   * constant name (`TOOL_READ`); `undefined` for a name without one (write `getSectionOrder('X') ?? 1000`).
   */
  getSectionOrder(name: SectionPlacementName): number
  getSectionOrder(name: string): number | undefined
  getSectionOrder(name: string): number | undefined {
    return getSectionOrder(name)
  }

  /** The order of a named first-party runtime-context placement (or its published alias); `undefined` otherwise. */
  getContextOrder(name: ContextPlacementName): number
  getContextOrder(name: string): number | undefined
  getContextOrder(name: string): number | undefined {
    return getContextOrder(name)
  }

  /**
   * What an assembly for `scope` is made of, without evaluating anything: every effective section,
   * context and variable with its owner, layer and what it shadows; tool providers; suppressors.
   */
  inspect(scope?: ScopeKey): Inspection {
    return this[kCore].inspect(this.ctx, scope)
  }

  /** Introspection for tests and tooling: layer, entry and listener counts. */
  stats(): { layers: number; scopeLayers: number; entries: number; listeners: number; listenerBuckets: number } {
    return this[kCore].stats(this.ctx)
  }
}

// The plugin's name, as Cordis names its fiber: the package's name, so every owner of what the service
// registers itself reads the same in a step's report, `explain`, events and the ledger (issue 24).
Object.defineProperty(SystemPrompt, 'name', { value: 'dsh-system-prompt' })
