/**
 * The programs of the assembly model test (`assembly-model.spec.ts`): registrations across a global
 * layer and three scopes, steps between assemblies, and `system-prompt/assemble` listener programs made
 * of the edits published plugins make (insert, remove, replace, rewrite in place or by spread, break,
 * throw), before and after `next()`. The edits are interpreted by {@link runEdits}, on the service's
 * assemblies and on the reference's copies alike.
 * @module
 */
import fc from 'fast-check'
import { TOOL_ORDER_REST, type PromptAssembly, type ToolSchema } from 'dsh-system-prompt'

/** Where a registration or a listener lives: the global layer (through plugin `g1` or `g2`) or a scope. */
export type Layer = 'global' | 'A' | 'B' | 'C'
/** The scope tree: `B` is a child of `A`; `A` and `C` are top-level. */
export const SCOPES = ['A', 'B', 'C'] as const
export type ScopeName = typeof SCOPES[number]
/** The chain an assembly for `target` resolves (nearest first). */
export const chainOf = (target: Layer): ScopeName[] => target === 'global' ? [] : target === 'B' ? ['B', 'A'] : [target]
/** The global plugins registrations and listeners go through. */
export type Plugin = 'g1' | 'g2'
/** The owner of what is registered through `layer` (a scope's label, or the plugin). */
export const ownerOf = (layer: Layer, plugin: Plugin): string => layer === 'global' ? plugin : layer

export interface ToolSpec {
  name: string
  description?: string
  title?: string
  strict?: boolean
}

/** A tool schema from its spec, with its keys in the usual order (`strict` makes it one of another shape). */
export function schemaOf(spec: ToolSpec): ToolSchema {
  const schema: ToolSchema = { name: spec.name }
  if (spec.description !== undefined) schema.description = spec.description
  if (spec.title !== undefined) schema.parameters = { type: 'object', title: spec.title, properties: { x: { type: 'string' } } }
  if (spec.strict) schema.strict = true
  return schema
}

export type Registration =
  | { kind: 'section' | 'context'; layer: Layer; plugin: Plugin; name: string; order: number; band?: 'first' | 'last'; tool?: string; complete?: boolean; text: string; dynamic: boolean }
  | { kind: 'variable'; layer: Layer; plugin: Plugin; name: string; value: string }
  | { kind: 'tools'; layer: Layer; plugin: Plugin; schemas: ToolSchema[] }
  | { kind: 'suppress'; layer: Layer; plugin: Plugin }

/** What changes between two assemblies. */
export type Step =
  | { step: 'assemble'; target: Layer; mutate: boolean }
  | { step: 'text'; pick: number; text: string }
  | { step: 'variable'; pick: number; value: string }
  | { step: 'tools'; pick: number; how: 'replace' | 'push' | 'pop' | 'refill'; index: number; tool: ToolSpec }
  | { step: 'register'; registration: Registration }
  | { step: 'dispose'; pick: number }

export type ListKey = 'sections' | 'contexts' | 'tools'

/** One edit a listener makes. `index` is taken modulo the list's length (no edit on an empty list). */
export type Edit =
  | { edit: 'insert'; list: ListKey; at: 'push' | 'unshift' | 'splice'; index: number; name: string; order?: number }
  | { edit: 'remove'; list: ListKey; index: number }
  | { edit: 'replace'; list: ListKey; how: 'slice' | 'reverse' | 'filter' | 'append'; index: number; name: string }
  | { edit: 'text'; list: ListKey; index: number; text: string }
  | { edit: 'order'; list: 'sections' | 'contexts'; index: number; order: number }
  | { edit: 'rename'; list: ListKey; index: number; name: string }
  | { edit: 'spread'; list: ListKey; index: number; text: string }
  | { edit: 'parameters'; index: number; title: string }
  | { edit: 'deep-write'; index: number }
  | { edit: 'variable'; name: string; value: string | number | undefined }
  | { edit: 'delete-variable'; name: string }
  | { edit: 'break'; list: ListKey; index: number; how: 'text' | 'order' | 'name' }
  | { edit: 'throw' }
  /** The published three-field shape: a fresh `{ sections, tools, variables }` (`fresh`), or `contexts: null` (`null`, still refused). */
  | { edit: 'published'; how: 'fresh' | 'null' }

/** A listener: where it is registered, its edits before `next()`, how it calls it, its edits after. */
export interface ListenerProgram {
  layer: Layer
  plugin: Plugin
  before: Edit[]
  /** `next()` (hands on what it received), `next(copy)` (a new assembly object), no `next()` at all, or `next()` twice. */
  next: 'same' | 'replaced' | 'none' | 'twice'
  after: Edit[]
  returns: 'it' | 'nothing'
}

export interface Case {
  /** The deployment's `toolOrder` (with the rest entry), or none. */
  toolOrder: string[] | undefined
  registrations: Registration[]
  listeners: ListenerProgram[]
  steps: Step[]
}

/** Gives a new object its own identity (the reference tracks identity across its copies; the service's objects have it). */
export type Mint = <T extends object>(value: T) => T

const layer = fc.constantFrom<Layer>('global', 'global', 'A', 'B', 'C')
const plugin = fc.constantFrom<Plugin>('g1', 'g2')
const sectionName = fc.constantFrom('s0', 's1', 's2', 's3', 's4')
const contextName = fc.constantFrom('c0', 'c1', 'c2')
const toolName = fc.constantFrom('t0', 't1', 't2', 't3', 't4')
const variableName = fc.constantFrom('v0', 'v1', 'v2')
const order = fc.constantFrom(-1, 0, 1, 2, 5)
const word = fc.constantFrom('alpha', 'beta', 'gamma', 'with {{v0}}', 'with {{v1}} and {{v2}}', '')
const index = fc.nat(6)
const listKey = fc.constantFrom<ListKey>('sections', 'contexts', 'tools')

export const toolSpec: fc.Arbitrary<ToolSpec> = fc.record({
  name: toolName,
  description: fc.option(fc.constantFrom('Read.', 'Write.', 'Run.'), { nil: undefined }),
  title: fc.option(fc.constantFrom('p', 'q'), { nil: undefined }),
  strict: fc.boolean(),
}, { requiredKeys: ['name'] })

const registration: fc.Arbitrary<Registration> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<'section' | 'context'>('section', 'section', 'context').chain((kind) => fc.record({
    kind: fc.constant(kind), layer, plugin, name: kind === 'section' ? sectionName : contextName, order,
    band: fc.option(fc.constantFrom<'first' | 'last'>('first', 'last'), { nil: undefined, freq: 4 }), text: word, dynamic: fc.boolean(),
    tool: fc.option(fc.constantFrom('t0', 't1', 't2'), { nil: undefined, freq: 5 }),
    complete: fc.option(fc.constant(true), { nil: undefined, freq: 12 }),
  }, { requiredKeys: ['kind', 'layer', 'plugin', 'name', 'order', 'text', 'dynamic'] }).map((r) => {
    if (r.band === undefined || kind === 'context') delete r.band
    if (r.tool === undefined || kind === 'context') delete r.tool
    if (r.complete === undefined || kind === 'context') delete r.complete
    return r
  })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant<'variable'>('variable'), layer, plugin, name: variableName, value: fc.constantFrom('x', 'y', '') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant<'tools'>('tools'), layer, plugin, schemas: fc.array(toolSpec, { maxLength: 3 }).map((specs) => specs.map(schemaOf)) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant<'suppress'>('suppress'), layer, plugin }) },
)

const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ edit: fc.constant<'insert'>('insert'), list: listKey, at: fc.constantFrom<'push' | 'unshift' | 'splice'>('push', 'unshift', 'splice'), index, name: fc.constantFrom('n0', 'n1', 's0', 'c0', 't0'), order: fc.option(order, { nil: undefined }) }, { requiredKeys: ['edit', 'list', 'at', 'index', 'name'] }) },
  { weight: 2, arbitrary: fc.record({ edit: fc.constant<'remove'>('remove'), list: listKey, index }) },
  { weight: 2, arbitrary: fc.record({ edit: fc.constant<'replace'>('replace'), list: listKey, how: fc.constantFrom<'slice' | 'reverse' | 'filter' | 'append'>('slice', 'reverse', 'filter', 'append'), index, name: fc.constantFrom('n2', 't1', 's1') }) },
  { weight: 3, arbitrary: fc.record({ edit: fc.constant<'text'>('text'), list: listKey, index, text: word }) },
  { weight: 1, arbitrary: fc.record({ edit: fc.constant<'order'>('order'), list: fc.constantFrom<'sections' | 'contexts'>('sections', 'contexts'), index, order }) },
  { weight: 1, arbitrary: fc.record({ edit: fc.constant<'rename'>('rename'), list: listKey, index, name: fc.constantFrom('r0', 's2', 't2') }) },
  { weight: 2, arbitrary: fc.record({ edit: fc.constant<'spread'>('spread'), list: listKey, index, text: word }) },
  { weight: 1, arbitrary: fc.record({ edit: fc.constant<'parameters'>('parameters'), index, title: fc.constantFrom('p', 'r') }) },
  { weight: 1, arbitrary: fc.record({ edit: fc.constant<'deep-write'>('deep-write'), index }) },
  { weight: 1, arbitrary: fc.record({ edit: fc.constant<'variable'>('variable'), name: fc.constantFrom('v0', 'v1', 'w', 'W'), value: fc.constantFrom<string | number | undefined>('set', 7, undefined) }) },
  { weight: 1, arbitrary: fc.record({ edit: fc.constant<'delete-variable'>('delete-variable'), name: variableName }) },
  { weight: 1, arbitrary: fc.record({ edit: fc.constant<'break'>('break'), list: listKey, index, how: fc.constantFrom<'text' | 'order' | 'name'>('text', 'order', 'name') }) },
  { weight: 1, arbitrary: fc.record({ edit: fc.constant<'throw'>('throw') }) },
  { weight: 1, arbitrary: fc.record({ edit: fc.constant<'published'>('published'), how: fc.constantFrom<'fresh' | 'null'>('fresh', 'fresh', 'null') }) },
)

const listener: fc.Arbitrary<ListenerProgram> = fc.record({
  layer, plugin,
  before: fc.array(edit, { maxLength: 3 }),
  next: fc.constantFrom<ListenerProgram['next']>('same', 'same', 'same', 'replaced', 'replaced', 'none', 'twice'),
  after: fc.array(edit, { maxLength: 3 }),
  returns: fc.constantFrom<ListenerProgram['returns']>('it', 'it', 'it', 'it', 'it', 'it', 'it', 'it', 'it', 'nothing'),
})

const target = fc.constantFrom<Layer>('global', 'A', 'B', 'B', 'C')
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ step: fc.constant<'assemble'>('assemble'), target, mutate: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ step: fc.constant<'text'>('text'), pick: fc.nat(), text: word }) },
  { weight: 1, arbitrary: fc.record({ step: fc.constant<'variable'>('variable'), pick: fc.nat(), value: fc.constantFrom('x', 'z') }) },
  { weight: 2, arbitrary: fc.record({ step: fc.constant<'tools'>('tools'), pick: fc.nat(), how: fc.constantFrom<'replace' | 'push' | 'pop' | 'refill'>('replace', 'push', 'pop', 'refill'), index, tool: toolSpec }) },
  { weight: 1, arbitrary: fc.record({ step: fc.constant<'register'>('register'), registration }) },
  { weight: 1, arbitrary: fc.record({ step: fc.constant<'dispose'>('dispose'), pick: fc.nat() }) },
)

/** A case: registrations, listeners (none to four, one in two cases at least one) and steps, ending with an assembly of each target. */
/** A `toolOrder`: some tool names (rarely one no provider offers) with the rest entry somewhere. */
const toolOrder = fc.option(fc.tuple(fc.shuffledSubarray(['t3', 't1', 't0']), fc.nat(3), fc.boolean(), fc.nat(5)).map(([names, at, unknown, odds]) => {
  const order = unknown && odds === 0 ? [...names, 't9'] : names.slice()
  order.splice(at % (order.length + 1), 0, TOOL_ORDER_REST)
  return order
}), { nil: undefined, freq: 2 })

export const assemblyCase: fc.Arbitrary<Case> = fc.record({
  toolOrder,
  registrations: fc.array(registration, { maxLength: 10 }),
  listeners: fc.array(listener, { maxLength: 4 }),
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
}).map((c) => ({ ...c, steps: [...c.steps, ...(['global', 'A', 'B', 'C'] as const).map((t): Step => ({ step: 'assemble', target: t, mutate: false }))] }))

type Entry = { name: string; text?: unknown; description?: unknown; order?: unknown; parameters?: unknown }

/**
 * Applies `edits` to `assembly` as a listener would (in place, or by replacing the assembly object when
 * it replaces a list) and returns the assembly it holds afterwards. Throws what the edit throws (a
 * `TypeError` for a write into a frozen schema; an `Error` for `throw`). `mint` gives each new object its
 * identity.
 */
export function runEdits(assembly: PromptAssembly, edits: readonly Edit[], mint: Mint): PromptAssembly {
  let a = assembly
  for (const e of edits) {
    if (e.edit === 'throw') throw new Error('listener program threw')
    if (e.edit === 'published') {
      a = (e.how === 'fresh' ? { sections: a.sections, tools: a.tools, variables: a.variables } : { ...a, contexts: null }) as unknown as PromptAssembly
      continue
    }
    if (e.edit === 'variable') { a.variables[e.name] = e.value as string; continue }
    if (e.edit === 'delete-variable') { delete a.variables[e.name]; continue }
    const key: ListKey = e.edit === 'parameters' || e.edit === 'deep-write' ? 'tools' : e.list
    const list = a[key] as Entry[]
    const at = list.length ? e.index % list.length : -1
    const textKey = key === 'tools' ? 'description' : 'text'
    switch (e.edit) {
      case 'insert': {
        const entry: Entry = key === 'tools' ? { name: e.name, description: 'Inserted.', parameters: { type: 'object' } } : { name: e.name, text: `inserted ${e.name}` }
        if (key !== 'tools' && e.order !== undefined) entry.order = e.order
        mint(entry)
        if (e.at === 'push') list.push(entry)
        else if (e.at === 'unshift') list.unshift(entry)
        else list.splice(e.index % (list.length + 1), 0, entry)
        break
      }
      case 'remove': if (at >= 0) list.splice(at, 1); break
      case 'replace': {
        const replaced = e.how === 'slice' ? list.slice() : e.how === 'reverse' ? list.slice().reverse()
          : e.how === 'filter' ? list.filter((_, i) => i !== at)
          : [...list, mint(key === 'tools' ? { name: e.name } : { name: e.name, text: `appended ${e.name}` })]
        a = { ...a, [key]: replaced }
        break
      }
      case 'text': if (at >= 0) (list[at] as Record<string, unknown>)[textKey] = e.text; break
      case 'order': if (at >= 0) list[at].order = e.order; break
      case 'rename': if (at >= 0) list[at].name = e.name; break
      case 'spread': if (at >= 0) list[at] = mint({ ...list[at], [textKey]: e.text }); break
      case 'parameters': if (at >= 0) list[at].parameters = { type: 'object', title: e.title }; break
      case 'deep-write': if (at >= 0) (list[at].parameters as Record<string, unknown>).title = 'written'; break
      case 'break':
        if (at < 0) break
        if (e.how === 'name') list[at].name = ''
        else if (e.how === 'order') list[at].order = Number.NaN
        else (list[at] as Record<string, unknown>)[textKey] = 42
        break
    }
  }
  return a
}
