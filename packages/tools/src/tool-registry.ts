import { Context, Service } from 'cordis'
import z from 'schemastery'
import { markNoShadow, ScopedRegistry, scopeChain, scopeOf, type ScopeKey } from 'dsh-scope'
import type { AssembleContext, SystemPrompt, ToolSchema } from 'dsh-system-prompt'
import { compareCodeUnits, deepFreeze, getSectionOrder } from 'dsh-system-prompt/internal'
import {
  changeListenerFailed, duplicateGlobalTool, duplicateScopedTool, guidanceWithoutOrder, invalidDescription, invalidGuidance,
  invalidRestriction, invalidToolName, restrictNeedsScope, unknownRestrictedTools,
} from './errors.js'
import { isToolName } from './names.js'
import { validateParameters } from './schema.js'

declare module 'cordis' {
  interface Context {
    tools: ToolRegistry
  }
  interface Events {
    'tools/change'(event: ToolChangeEvent): void
  }
}

/** A tool as registered. */
export interface ToolDefinition {
  /** The model-facing function name (`/^[a-zA-Z0-9_-]{1,64}$/`), unique within its layer. */
  name: string
  /** What the tool does, for the model. */
  description: string
  /** JSON Schema of the arguments (top-level `type: "object"`). */
  parameters: Record<string, unknown>
  /**
   * Cross-call guidance, registered as section `tool:<name>` in the same layer, emitted verbatim
   * (interpolation off) in the assemblies where the tool is visible. Its order is the named placement
   * of `tool:<name>`, or the explicit `order`.
   */
  guidance?: string | { text: string; order?: number }
}

/** Which tools a scope may see, on top of what it inherits. */
export interface ToolRestriction {
  /** Only these tools stay visible (several `allow` lists intersect). */
  allow?: readonly string[]
  /** These tools are hidden. */
  deny?: readonly string[]
}

/** Emitted as `tools/change` after a tool or restriction is registered or disposed. */
export interface ToolChangeEvent {
  kind: 'tool' | 'restriction'
  action: 'register' | 'dispose'
  name?: string
  scope?: ScopeKey
  owner: string
}

interface ToolEntry {
  readonly kind: 'tool'
  readonly name: string
  readonly schema: ToolSchema
  readonly owner: string
  readonly scope: ScopeKey | undefined
}

interface RestrictionEntry {
  readonly kind: 'restriction'
  readonly id?: number
  readonly allow: ReadonlySet<string> | undefined
  readonly deny: ReadonlySet<string>
  readonly owner: string
  readonly scope: ScopeKey | undefined
}

/** The tools a chain sees. */
export interface ToolView {
  /** Visible after restrictions, in name order. */
  readonly visible: readonly ToolSchema[]
  /** Every name the chain inherits before restrictions (the universe `toolOrder` is checked against). */
  readonly known: readonly string[]
  /** The visible names. */
  readonly names: ReadonlySet<string>
  /** Owner and layer of each visible tool. */
  readonly origin: ReadonlyMap<string, { owner: string; scope: ScopeKey | undefined }>
  /** The layer of each visible tool (what the tool provider reports, so guidance shows only with its own tool). */
  readonly layers: ReadonlyMap<string, ScopeKey | undefined>
}

/**
 * The `tools` service: tools with JSON Schema parameters and optional guidance, registered in the layer
 * of the calling context and owned by its fiber; per-scope restrictions; and one tool provider for the
 * `systemPrompt` service that offers each assembly the tools its scope may see.
 */
export class ToolRegistry extends Service {
  static inject = ['systemPrompt']
  static Config: z<{}> = z.object({})
  declare ctx: Context
  /** Tools by name and restrictions by id, filed by `dsh-scope`'s scoped registry. */
  private readonly registry: ScopedRegistry<ToolEntry | RestrictionEntry, ToolView>
  private readonly prompt: SystemPrompt

  constructor(ctx: Context) {
    super(ctx, 'tools')
    markNoShadow(this)
    this.prompt = ctx.systemPrompt
    // A change notification is news, not a veto: a throwing listener is reported, the change stands.
    this.registry = new ScopedRegistry<ToolEntry | RestrictionEntry, ToolView>({
      onDuplicate: (entry, scoped) => (scoped ? duplicateScopedTool : duplicateGlobalTool)(entry.name),
      onChange: ({ action, entry }) => ctx.root.events.emit('tools/change', changeEvent(entry, action)),
      changeFailed: ({ action, entry }, error) => changeListenerFailed(changeEvent(entry, action), error),
      logger: ctx.logger('dsh-tools'),
    })
    ctx.systemPrompt.tools((context: AssembleContext) => {
      const view = this.view(context.scope)
      return { schemas: view.visible, knownNames: view.known, layers: view.layers }
    })
  }

  /** Registers a tool (and its guidance section) in the calling context's layer. Returns the disposer. */
  register(tool: ToolDefinition): () => void {
    const { name, description, parameters, guidance } = tool ?? ({} as ToolDefinition)
    if (!isToolName(name)) throw invalidToolName(name)
    if (typeof description !== 'string') throw invalidDescription(name)
    validateParameters(name, parameters)
    const section = guidance === undefined ? undefined : guidanceSection(name, guidance)
    const ctx = this.ctx
    const schema = deepFreeze({ name, description, parameters: structuredClone(parameters) })
    // The guidance goes through the caller's context, so it lands in the same layer with the same owner,
    // once the tool's name is known to be free. It is shown with its tool (`tool: name`): where a scope
    // restricts the tool away, or shadows it with a tool of its own (the provider reports each tool's
    // layer), the assembly leaves it out and says so.
    const attach = section && (() => (ctx.reflect.trace(this.prompt) as SystemPrompt)
      .section({ name: section.name, order: section.order, interpolate: false, tool: name, text: section.text }))
    return this.registry.register(ctx, { kind: 'tool', name, schema }, attach)
  }

  /**
   * Narrows what the calling scope (and its descendants) inherit from the layers above it: `allow` keeps
   * only the listed tools, `deny` hides the listed ones. Tools registered in the scope itself or below it
   * are not filtered. Only through a scoped context; names must be inherited by that scope.
   */
  restrict(restriction: ToolRestriction): () => void {
    const ctx = this.ctx
    const scope = scopeOf(ctx)
    if (scope === undefined) throw restrictNeedsScope()
    const allow = nameList(restriction?.allow, 'allow')
    const deny = nameList(restriction?.deny, 'deny') ?? []
    if (!allow && !deny.length) throw invalidRestriction('needs an allow list or a non-empty deny list')
    // What the scope inherits: the view of its parent (the global layer alone for a root scope).
    const known = this.view(scopeChain(ctx, scope)[1]).known
    const knownSet = new Set(known)
    const unknown = [...(allow ?? []), ...deny].filter((name) => !knownSet.has(name))
    if (unknown.length) throw unknownRestrictedTools([...new Set(unknown)], known)
    return this.registry.register(ctx, { kind: 'restriction', allow: allow && new Set(allow), deny: new Set(deny) })
  }

  /** The tools an assembly for `scope` sees (memoised per chain until a layer on it changes). */
  view(scope?: ScopeKey): ToolView {
    const chain = scopeChain(this.ctx, scope)
    return this.registry.layers.memo(chain, () => this.computeView(chain))
  }

  /** A visible tool's schema for `scope`, e.g. to execute a call the model made; `undefined` if hidden. */
  get(name: string, scope?: ScopeKey): ToolSchema | undefined {
    return this.view(scope).visible.find((tool) => tool.name === name)
  }

  /** Introspection for tests and tooling. */
  stats(): { layers: number; scopeLayers: number; entries: number } {
    return this.registry.layers.stats()
  }

  private computeView(chain: readonly ScopeKey[]): ToolView {
    const tools: ToolEntry[] = []
    const restrictions: RestrictionEntry[] = []
    for (const { value } of this.registry.layers.resolve(chain).values()) {
      if (value.kind === 'tool') tools.push(value)
      else restrictions.push(value)
    }
    tools.sort((a, b) => compareCodeUnits(a.schema.name, b.schema.name))
    // A restriction filters what its scope inherits: tools from layers farther up the chain than its own.
    const depth = (scope: ScopeKey | undefined) => scope === undefined ? chain.length : chain.indexOf(scope)
    const visible = tools.filter(({ schema: { name }, scope }) => restrictions.every((r) =>
      depth(r.scope) >= depth(scope) || ((!r.allow || r.allow.has(name)) && !r.deny.has(name))))
    const origin = new Map(visible.map((t) => [t.schema.name, { owner: t.owner, scope: t.scope }]))
    const layers = new Map(visible.map((t) => [t.schema.name, t.scope]))
    return { visible: visible.map((t) => t.schema), known: tools.map((t) => t.schema.name), names: new Set(origin.keys()), origin, layers }
  }
}

// The plugin's name, as Cordis names its fiber: the package's name, so every owner of what the service
// registers itself reads the same in a step's report, `explain`, events and the ledger (issue 24).
Object.defineProperty(ToolRegistry, 'name', { value: 'dsh-tools' })

/** The `tools/change` event of a registry change (absent fields left out). */
function changeEvent(entry: ToolEntry | RestrictionEntry, action: ToolChangeEvent['action']): ToolChangeEvent {
  const event: ToolChangeEvent = { kind: entry.kind, action, owner: entry.owner }
  if (entry.kind === 'tool') event.name = entry.name
  if (entry.scope !== undefined) event.scope = entry.scope
  return event
}

function guidanceSection(name: string, guidance: ToolDefinition['guidance']): { name: string; order: number; text: string } {
  const sectionName = `tool:${name}`
  const spec = typeof guidance === 'string' ? { text: guidance } : guidance
  if (typeof spec !== 'object' || spec === null || typeof spec.text !== 'string') throw invalidGuidance(name)
  if (spec.order !== undefined) return { name: sectionName, order: spec.order, text: spec.text }
  const order = getSectionOrder(sectionName)
  if (order === undefined) throw guidanceWithoutOrder(name)
  return { name: sectionName, order, text: spec.text }
}

function nameList(value: unknown, key: 'allow' | 'deny'): string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || !value.every((n) => typeof n === 'string')) {
    throw invalidRestriction(`${key} must be an array of tool names`)
  }
  return value
}
