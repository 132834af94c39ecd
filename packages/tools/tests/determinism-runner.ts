/**
 * Runs a determinism-suite world for real: one Cordis plugin per plugin spec, loaded through the global
 * context or through a scope context, in a given order; observes every view; disposes plugins one by one.
 */
import { expect } from 'chai'
import type { Context, Fiber } from 'cordis'
import { createScope, type ScopeHandle } from 'dsh-scope'
import { renderContextSnapshot, renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { bootApp } from 'dsh-testing'
import { outcomeOf, type Outcome } from '../../system-prompt/tests/render-reference.js'
import { LAYERS, model, PARENT, type Layer, type PluginSpec, type World } from './determinism-world.js'

type ScopeLayer = Exclude<Layer, 'global'>

/** What one view gave: its full JSON (for byte comparison across runs) and the parts the model predicts. */
export interface Observed {
  json: string
  assembly?: PromptAssembly
  error?: string
  prompt?: Outcome
  snapshot?: Outcome
}

/** A world activated in one order. */
export interface Run {
  app: Context
  fibers: Map<number, Fiber>
  /** Every view's observation, in `LAYERS` order. */
  observeAll(): Promise<Observed[]>
}

function pluginOf(spec: PluginSpec) {
  const rawSchemas = spec.rawTools.map((name) => ({ name, description: `Raw ${name}.`, parameters: { type: 'object' } }))
  return {
    name: `p${spec.id}`,
    inject: ['systemPrompt', 'tools'],
    apply(ctx: Context) {
      for (const s of spec.sections) {
        ctx.systemPrompt.section({ name: s.name, order: s.order, text: s.dynamic ? () => s.text : s.text, interpolate: s.interpolate, complete: s.complete })
      }
      for (const c of spec.contexts) {
        ctx.systemPrompt.context({ name: c.name, order: c.order, text: c.dynamic ? () => c.text : c.text, interpolate: c.interpolate })
      }
      for (const v of spec.variables) ctx.systemPrompt.variable(v.name, () => v.value)
      if (rawSchemas.length) ctx.systemPrompt.tools(() => ({ schemas: rawSchemas }))
      for (const t of spec.tools) {
        ctx.tools.register({
          name: t.name, description: `The ${t.name} tool of p${spec.id}.`, parameters: { type: 'object', properties: { path: { type: 'string' } } },
          ...(t.guidance ? { guidance: t.guidance } : {}),
        })
      }
      if (spec.suppress) ctx.systemPrompt.suppressRuntimeContext()
    },
  }
}

/** Boots the services, mints the scopes and loads the plugins of `world` in `order` (plugin ids). */
export async function activate(world: World, order: readonly number[]): Promise<Run> {
  const { app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, ...world.config }, tools: true })
  const scopes = {} as Record<ScopeLayer, ScopeHandle>
  for (const layer of LAYERS) {
    if (layer === 'global') continue
    const parent = PARENT[layer]
    scopes[layer] = createScope(host, { layer }, { label: layer, parent: parent && scopes[parent as ScopeLayer].key })
  }
  const fibers = new Map<number, Fiber>()
  for (const id of order) {
    const spec = world.plugins[id]
    const target = spec.layer === 'global' ? app : scopes[spec.layer].ctx
    const fiber = target.plugin(pluginOf(spec)) as unknown as Fiber
    await fiber
    fibers.set(id, fiber)
  }
  for (const r of world.restrictions) scopes[r.layer].ctx.tools.restrict({ ...(r.allow ? { allow: r.allow } : {}), deny: r.deny })
  const keyOf = (layer: Layer) => layer === 'global' ? undefined : scopes[layer].key
  return {
    app,
    fibers,
    observeAll: () => Promise.all(LAYERS.map((layer) => observe(app, keyOf(layer)))),
  }
}

async function observe(app: Context, scope: object | undefined): Promise<Observed> {
  let assembly: PromptAssembly
  try {
    assembly = await app.systemPrompt.assemble({ scope })
  } catch (error) {
    const message = (error as Error).message
    return { json: JSON.stringify({ error: `${(error as Error).name}: ${message}` }), error: message }
  }
  const prompt = outcomeOf(() => renderPrompt(assembly))
  const snapshot = outcomeOf(() => renderContextSnapshot(assembly))
  return { json: JSON.stringify({ assembly, prompt, snapshot }), assembly, prompt, snapshot }
}

/** Asserts that each view of `observed` is what the model says for the plugins in `active`. */
export function expectModel(world: World, active: readonly PluginSpec[], observed: readonly Observed[]): void {
  LAYERS.forEach((layer, i) => {
    const expected = model(world, active, layer)
    const seen = observed[i]
    const where = `view ${layer} with plugins ${active.map((p) => p.id).join(',') || '(none)'}`
    if (!expected.ok) {
      expect(seen.error, where).to.equal(expected.message)
      return
    }
    expect(seen.error, where).to.equal(undefined)
    const assembly = seen.assembly!
    const layerOf = (scope: unknown) => (scope as { layer?: Layer } | undefined)?.layer ?? 'global'
    expect(assembly.sections.map((s) => ({ name: s.name, order: s.order, text: s.text, layer: layerOf(s.scope), interpolate: s.interpolate !== false })), where)
      .to.deep.equal(expected.expected.sections)
    expect(assembly.contexts.map((c) => ({ name: c.name, order: c.order, text: c.text, layer: layerOf(c.scope) })), where).to.deep.equal(expected.expected.contexts)
    expect(Object.entries(assembly.variables), where).to.deep.equal(expected.expected.variables)
    expect(assembly.tools.map((t) => t.name), where).to.deep.equal(expected.expected.tools)
    expect(seen.prompt, where).to.deep.equal(expected.prompt)
    expect(seen.snapshot, where).to.deep.equal(expected.snapshot)
  })
}
