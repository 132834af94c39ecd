/**
 * The determinism suite's world: random sets of plugins (as data), a reference model of what R-SCOPE, R-ORDER, R-WF, R-RC, R-TOOL, R-RENDER
 * say an assembly of them must be, and a runner that activates them as real Cordis plugins. The model is
 * independent of `src/`: it resolves layers, sorts, filters and renders with its own code (rendering
 * through the reference interpolator of `packages/system-prompt/tests/render-reference.ts`).
 */
import fc from 'fast-check'
import {
  codeUnitOrder, referencePrompt, referenceSnapshot, type Outcome,
} from '../../system-prompt/tests/render-reference.js'

/** The layers of the world: the global one and a preset P with agents A and B, and A's sub-agent S. */
export const LAYERS = ['global', 'P', 'A', 'B', 'S'] as const
export type Layer = typeof LAYERS[number]
/** Each scope's parent (the global layer has none; P is a root scope). */
export const PARENT: Record<Layer, Layer | undefined> = { global: undefined, P: undefined, A: 'P', B: 'P', S: 'A' }

export interface TextSpec { name: string; order: number; text: string; dynamic: boolean; interpolate: boolean; complete: boolean }
export interface ToolSpec { name: string; guidance?: { text: string; order: number } }
export interface RestrictionSpec { layer: Exclude<Layer, 'global'>; allow?: string[]; deny: string[] }

/** One plugin: everything it registers, all in one layer. */
export interface PluginSpec {
  id: number
  layer: Layer
  sections: TextSpec[]
  contexts: TextSpec[]
  variables: Array<{ name: string; value: string | undefined }>
  /** Names offered by a raw `systemPrompt.tools()` provider of the plugin (none: no provider). */
  rawTools: string[]
  /** Tools registered through `dsh-tools`. */
  tools: ToolSpec[]
  suppress: boolean
}

/** A world: the deployment config, the plugins, and restrictions made once every plugin is active. */
export interface World {
  config: { persona: string; personaSuffix: string; includeRuntimeContext: boolean; toolOrder?: string[] }
  plugins: PluginSpec[]
  restrictions: RestrictionSpec[]
}

const SECTION_NAMES = ['a', 'b', 'B', 'Z', 'a:x', 'é', 'ｅ', '_1']
const CONTEXT_NAMES = ['c', 'C', 'c:y', 'd']
const VARIABLE_NAMES = ['v1', 'v2', 'v3']
const TOOL_NAMES = ['read', 'write', 'grep', 'Glob', 'edit_2']
const RAW_TOOL_NAMES = ['raw_a', 'raw_b', 'raw_c', 'raw_d']
const ORDERS = [-5, 0, 0, 10, 10, 10, 1e9]
const TEXTS = ['Plain.', '', 'Uses {{v1}}.', 'Both {{v1}} and {{v2}}', '{{v3}}', 'Raw {{#raw}}{{x}}{{/raw}}', 'Lone {{ brace', 'Bad {{ v1 }}']

const text = (names: readonly string[]) => fc.record({
  name: fc.constantFrom(...names),
  order: fc.constantFrom(...ORDERS),
  text: fc.constantFrom(...TEXTS),
  dynamic: fc.boolean(),
  interpolate: fc.constantFrom(true, true, false),
  complete: fc.constant(false),
})

const pluginBody = fc.record({
  layer: fc.constantFrom(...LAYERS),
  sections: fc.uniqueArray(text(SECTION_NAMES), { selector: (s) => s.name, maxLength: 3 }),
  contexts: fc.uniqueArray(text(CONTEXT_NAMES), { selector: (s) => s.name, maxLength: 2 }),
  variables: fc.uniqueArray(fc.record({ name: fc.constantFrom(...VARIABLE_NAMES), value: fc.option(fc.constantFrom('one', '{{v2}}', 'x}}y', ''), { nil: undefined, freq: 5 }) }), { selector: (v) => v.name, maxLength: 2 }),
  rawTools: fc.uniqueArray(fc.constantFrom(...RAW_TOOL_NAMES), { maxLength: 2 }),
  tools: fc.uniqueArray(fc.record({
    name: fc.constantFrom(...TOOL_NAMES),
    guidance: fc.option(fc.record({ text: fc.constantFrom('Use {{braces}} freely.', 'Guide.'), order: fc.constantFrom(...ORDERS) }), { nil: undefined }),
  }), { selector: (t) => t.name, maxLength: 2 }),
  suppress: fc.constantFrom(false, false, false, true),
})

/**
 * Random worlds whose plugins could all load in any order: a name is registered at most once per layer
 * and kind (a second one would be a duplicate whose failure depends on who came first), and each raw tool
 * name belongs to one plugin. Rarely, a section claims `complete`.
 */
export const worlds: fc.Arbitrary<World> = fc.record({
  persona: fc.constantFrom('', 'Persona for {{v1}}.', 'I am dsh.'),
  personaSuffix: fc.constantFrom('', 'Suffix.'),
  includeRuntimeContext: fc.constantFrom(true, true, true, false),
  toolOrder: fc.option(fc.tuple(fc.shuffledSubarray([...TOOL_NAMES, RAW_TOOL_NAMES[0], '<unlisted-tools>'], { minLength: 1, maxLength: 3 }), fc.constantFrom(false, false, false, true))
    .map(([list, unknown]) => [...list, ...(unknown ? ['never_registered'] : []), ...(list.includes('<unlisted-tools>') ? [] : ['<unlisted-tools>'])]), { nil: undefined, freq: 2 }),
  plugins: fc.array(pluginBody, { minLength: 1, maxLength: 7 }),
  restrictions: fc.array(fc.record({
    layer: fc.constantFrom('P' as const, 'A' as const, 'B' as const, 'S' as const),
    allow: fc.option(fc.subarray(TOOL_NAMES), { nil: undefined }),
    deny: fc.subarray(TOOL_NAMES, { maxLength: 2 }),
  }), { maxLength: 3 }),
  completeAt: fc.option(fc.nat(40), { nil: undefined, freq: 4 }),
}).map(({ persona, personaSuffix, includeRuntimeContext, toolOrder, plugins, restrictions, completeAt }) => {
  const taken = new Set<string>()
  const claim = (key: string) => !taken.has(key) && !!taken.add(key)
  const specs = plugins.map((body, id): PluginSpec => ({
    id,
    layer: body.layer,
    // Copies: generated values are fast-check's and may be replayed while shrinking; they are never mutated.
    sections: body.sections.filter((s) => claim(`${body.layer} s ${s.name}`)).map((s) => ({ ...s })),
    contexts: body.contexts.filter((c) => claim(`${body.layer} c ${c.name}`)),
    variables: body.variables.filter((v) => claim(`${body.layer} v ${v.name}`)),
    rawTools: body.rawTools.filter((name) => claim(`raw ${name}`)),
    tools: body.tools.filter((t) => claim(`${body.layer} t ${t.name}`)),
    suppress: body.suppress,
  }))
  const all = specs.flatMap((p) => p.sections)
  if (completeAt !== undefined && all.length) all[completeAt % all.length].complete = true
  if (completeAt !== undefined && completeAt % 3 === 0 && all.length > 1) all[(completeAt + 1) % all.length].complete = true
  // restrict() refuses names its scope does not inherit from dsh-tools, so only such restrictions are made.
  const inheritable = (layer: Layer) => new Set(specs.filter((p) => chainOf(PARENT[layer] ?? 'global').includes(p.layer)).flatMap((p) => p.tools.map((t) => t.name)))
  const valid = restrictions.filter((r) => (r.allow || r.deny.length) && [...(r.allow ?? []), ...r.deny].every((name) => inheritable(r.layer).has(name)))
  const world: World = { config: { persona, personaSuffix, includeRuntimeContext }, plugins: specs, restrictions: valid }
  if (toolOrder) world.config.toolOrder = toolOrder
  return world
})

// ---- the reference model ----------------------------------------------------------------------

/** What a real assembly is compared on: everything model-facing, with layers named by their label. */
export interface Expected {
  sections: Array<{ name: string; order: number; text: string; layer: Layer; interpolate: boolean }>
  contexts: Array<{ name: string; order: number; text: string; layer: Layer }>
  variables: Array<[string, string | undefined]>
  tools: string[]
}

/** The model's result for one view: the assembly and its renders, or the assembly's error message. */
export type ModelResult = { ok: true; expected: Expected; prompt: Outcome; snapshot: Outcome } | { ok: false; message: string }

/** The chain of `view`, nearest first, ending with the global layer. */
export function chainOf(view: Layer): Layer[] {
  const chain: Layer[] = []
  for (let layer: Layer | undefined = view; layer !== undefined; layer = PARENT[layer]) chain.push(layer)
  if (chain[chain.length - 1] !== 'global') chain.push('global')
  return chain
}

/** The persona suffix: rendered after every other section (R-ORDER-4). */
const SUFFIX = 'deployment:persona-suffix'

/** R-ORDER-1: ascending order, ties by code-unit name; the persona suffix last. */
function byPlacement(a: { name: string; order: number }, b: { name: string; order: number }): number {
  if ((a.name === SUFFIX) !== (b.name === SUFFIX)) return a.name === SUFFIX ? 1 : -1
  return a.order !== b.order ? (a.order < b.order ? -1 : 1) : codeUnitOrder(a.name, b.name)
}

/** Nearest layer wins a name: the first entry (walking the chain nearest first) with each name. */
function nearest<T extends { name: string }>(chain: readonly Layer[], entries: ReadonlyArray<T & { layer: Layer }>): Array<T & { layer: Layer }> {
  const won = new Map<string, T & { layer: Layer }>()
  for (const layer of chain) for (const entry of entries) if (entry.layer === layer && !won.has(entry.name)) won.set(entry.name, entry)
  return [...won.values()]
}

/** What an assembly for `view` must be, with the plugins in `active` loaded and every restriction made. */
export function model(world: World, active: readonly PluginSpec[], view: Layer): ModelResult {
  const chain = chainOf(view)
  const depth = (layer: Layer) => chain.indexOf(layer)
  const on = (layer: Layer) => depth(layer) >= 0
  // dsh-tools: the nearest registration of each name, then the restrictions of nearer layers.
  const registered = active.flatMap((p) => p.tools.map((t) => ({ ...t, layer: p.layer })))
  const inherited = nearest(chain, registered)
  const visible = inherited.filter((tool) => world.restrictions.every((r) => !on(r.layer) || depth(r.layer) >= depth(tool.layer) ||
    ((!r.allow || r.allow.includes(tool.name)) && !r.deny.includes(tool.name))))
  const raw = active.filter((p) => on(p.layer)).flatMap((p) => p.rawTools)
  const known = new Set([...inherited.map((t) => t.name), ...raw])
  const listed = world.config.toolOrder ?? []
  const missing = listed.filter((name) => name !== '<unlisted-tools>' && !known.has(name))

  const sectionEntries = [
    { name: 'deployment:persona', order: 0, text: world.config.persona, layer: 'global' as Layer, interpolate: true, complete: false },
    { name: SUFFIX, order: 10200, text: world.config.personaSuffix, layer: 'global' as Layer, interpolate: true, complete: false, band: 'last' as const },
    ...active.flatMap((p) => p.sections.map((s) => ({ ...s, layer: p.layer }))),
    ...active.flatMap((p) => p.tools.filter((t) => t.guidance).map((t) => ({
      name: `tool:${t.name}`, order: t.guidance!.order, layer: p.layer, interpolate: false, complete: false, text: t.guidance!.text,
      // Shown only with its own tool: visible, and from the guidance's own layer.
      shown: visible.some((v) => v.name === t.name && v.layer === p.layer),
    }))),
  ]
  let sections = nearest(chain, sectionEntries).filter((s) => !('shown' in s) || s.shown).sort(byPlacement)
  const complete = sections.filter((s) => s.complete)
  if (complete.length > 1) return { ok: false, message: `multiple complete prompt sections are active: ${complete.map((s) => JSON.stringify(s.name)).join(', ')}` }
  if (missing.length) {
    const names = [...known].sort(codeUnitOrder)
    return { ok: false, message: `toolOrder lists unregistered ${missing.length === 1 ? 'tool' : 'tools'} ${missing.map((n) => JSON.stringify(n)).join(', ')}; known tools: ${names.length ? names.join(', ') : '(none)'}` }
  }
  if (complete.length) sections = complete
  const suppressed = !world.config.includeRuntimeContext || active.some((p) => p.suppress && on(p.layer))
  const contexts = suppressed ? [] : nearest(chain, active.flatMap((p) => p.contexts.map((c) => ({ ...c, layer: p.layer })))).sort(byPlacement)
  const variables = nearest(chain, active.flatMap((p) => p.variables.map((v) => ({ ...v, layer: p.layer })))).sort((a, b) => codeUnitOrder(a.name, b.name))
  const table: Record<string, string | undefined> = {}
  for (const v of variables) table[v.name] = v.value
  const toolNames = [...visible.map((t) => t.name), ...raw].sort(codeUnitOrder)
  const tools = listed.length
    ? listed.flatMap((name) => name === '<unlisted-tools>' ? toolNames.filter((n) => !listed.includes(n)) : toolNames.filter((n) => n === name))
    : toolNames
  return {
    ok: true,
    expected: {
      sections: sections.map((s) => ({ name: s.name, order: s.order, text: s.text, layer: s.layer, interpolate: s.interpolate })),
      contexts: contexts.map((c) => ({ name: c.name, order: c.order, text: c.text, layer: c.layer })),
      variables: variables.map((v) => [v.name, v.value]),
      tools,
    },
    prompt: referencePrompt(sections, table),
    snapshot: referenceSnapshot(contexts, table),
  }
}
