/**
 * A naive reference of the whole assembly, for the model test (`assembly-model.spec.ts`): written from
 * the documented rules (the nearest layer wins a name; sections by band, order, then code-unit name;
 * tools by code-unit name; listeners in registration order; the hand-off checks; provenance), with a
 * deep copy at every hand-off and no memo of any kind. Identity, which provenance depends on (a
 * listener that puts a new object in place of an entry rewrote it), is tracked with an id that every
 * copy keeps and every new object gets.
 * @module
 */
import {
  PERSONA_ORDER, PERSONA_SECTION, PERSONA_SUFFIX_ORDER, PERSONA_SUFFIX_SECTION, TOOL_ORDER_REST, type PromptAssembly,
} from 'dsh-system-prompt'
import { chainOf, ownerOf, runEdits, type Layer, type ListenerProgram, type ListKey, type Registration } from './assembly-programs.js'

/** The key every reference object keeps its identity under (stripped before comparing). */
export const ID = '~id'
/** The key a reference section keeps the tool it is shown with under, until tools are known. */
const TOOL = '~tool'

export interface RefError {
  readonly code: string
  readonly details: Readonly<Record<string, unknown>>
}

/** What a listener changed, by list: `[name, action, plugin]`, sorted by name. */
export type RefProvenance = Record<ListKey, Array<[string, string, string]>>

export type RefOutcome =
  | { readonly assembly: PromptAssembly; readonly provenance: RefProvenance }
  | { readonly error: RefError }

class RefFailure extends Error {
  constructor(readonly failure: RefError) {
    super(failure.code)
  }
}

type Item = Record<string, unknown> & { name: string }
type Snapshot = Record<ListKey, Array<{ name: string; id: unknown; value: unknown }>>

const LISTS: readonly ListKey[] = ['sections', 'contexts', 'tools']
const BAND_RANK: Record<string, number> = { first: -1, last: 1 }
type TextRegistration = Extract<Registration, { kind: 'section' | 'context' }>
type VariableRegistration = Extract<Registration, { kind: 'variable' }>
const byCodeUnits = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0

/**
 * The reference assembly of `live` (in registration order) with `listeners` (in registration order) for
 * `target`, under the deployment's `toolOrder`.
 */
export function referenceAssembly(live: readonly Registration[], listeners: readonly ListenerProgram[], target: Layer, toolOrder: readonly string[] | undefined): RefOutcome {
  let ids = 0
  const mint = <T extends object>(value: T): T => Object.assign(value, { [ID]: ++ids })
  const layers: Layer[] = [...chainOf(target), 'global']
  const visible = live.filter((r) => layers.includes(r.layer))
  const nearest = <R extends TextRegistration | VariableRegistration>(kind: R['kind']): R[] => {
    const found = new Map<string, R>()
    for (const layer of layers) {
      for (const r of visible) {
        if (r.kind !== kind || r.layer !== layer) continue
        if (!found.has((r as R).name)) found.set((r as R).name, r as R)
      }
    }
    return [...found.values()]
  }
  const text = (r: TextRegistration) => {
    const entry: Item = { name: r.name, order: r.order, text: r.text, owner: ownerOf(r.layer, r.plugin) }
    if (r.layer !== 'global') entry.scope = r.layer
    if (r.band) entry.band = r.band
    if (r.kind === 'section' && r.complete) entry.complete = true
    if (r.kind === 'section' && r.tool !== undefined) entry[TOOL] = r.tool
    return mint(entry)
  }
  const sections = [
    mint({ name: PERSONA_SECTION, order: PERSONA_ORDER, text: '', owner: 'dsh-system-prompt' }) as Item,
    mint({ name: PERSONA_SUFFIX_SECTION, order: PERSONA_SUFFIX_ORDER, text: '', owner: 'dsh-system-prompt', band: 'last' }) as Item,
    ...nearest<TextRegistration>('section').map(text),
  ].sort((a, b) => (BAND_RANK[a.band as string] ?? 0) - (BAND_RANK[b.band as string] ?? 0) || (a.order as number) - (b.order as number) || byCodeUnits(a.name, b.name))
  // A complete section claims the whole prompt; two in effect fail before anything is evaluated.
  const completes = sections.filter((s) => s.complete)
  if (completes.length > 1) return { error: { code: 'PROMPT_MULTIPLE_COMPLETE', details: { names: completes.map((s) => s.name) } } }
  const suppressed = visible.some((r) => r.kind === 'suppress')
  const contexts = suppressed ? [] : nearest<TextRegistration>('context').map(text)
    .sort((a, b) => (a.order as number) - (b.order as number) || byCodeUnits(a.name, b.name))
  const variables: Record<string, string | undefined> = {}
  for (const r of nearest<VariableRegistration>('variable').sort((a, b) => byCodeUnits(a.name, b.name))) variables[r.name] = r.value

  const owners = new Map<string, string[]>()
  const tools: Item[] = []
  for (const r of visible) {
    if (r.kind !== 'tools') continue
    for (const schema of structuredClone(r.schemas) as Item[]) {
      const owner = ownerOf(r.layer, r.plugin)
      if (owners.has(schema.name)) owners.get(schema.name)!.push(owner)
      else {
        owners.set(schema.name, [owner])
        tools.push(mint(schema))
      }
    }
  }
  const clash = [...owners].filter(([, list]) => list.length > 1).map(([name]) => name).sort(byCodeUnits)[0]
  if (clash !== undefined) return { error: { code: 'PROMPT_DUPLICATE_TOOL', details: { tool: clash, owners: owners.get(clash)!.sort(byCodeUnits) } } }
  tools.sort((a, b) => byCodeUnits(a.name, b.name))
  if (toolOrder) {
    const missing = toolOrder.filter((name) => name !== TOOL_ORDER_REST && !owners.has(name))
    if (missing.length) return { error: { code: 'PROMPT_TOOL_ORDER_UNREGISTERED', details: { missing, known: [...owners.keys()].sort(byCodeUnits) } } }
    const listed = toolOrder.flatMap((name) => name === TOOL_ORDER_REST ? tools.filter((t) => !toolOrder.includes(t.name)) : tools.filter((t) => t.name === name))
    tools.splice(0, tools.length, ...listed)
  }
  // A section shown with a tool is left out when the assembly does not show that tool.
  const shown = sections.filter((s) => s[TOOL] === undefined || owners.has(s[TOOL] as string))
  for (const s of shown) delete s[TOOL]
  const complete = shown.find((s) => s.complete)
  const pristine = complete && structuredClone(complete)

  const changes: Record<ListKey, Map<string, [string, string]>> = { sections: new Map(), contexts: new Map(), tools: new Map() }
  const admitted = listeners.filter((l) => layers.includes(l.layer))
  let result: PromptAssembly
  try {
    result = waterfall(admitted, 0, copy({ sections: shown, contexts, tools, variables } as unknown as PromptAssembly), mint, changes)
  } catch (error) {
    if (error instanceof RefFailure) return { error: error.failure }
    throw error
  }
  result = copy(result)
  // What the service puts back after the waterfall shows no listener's change: its provenance is empty.
  if (suppressed) {
    result.contexts = []
    changes.contexts.clear()
  }
  if (pristine) {
    result.sections = [pristine as unknown as PromptAssembly['sections'][number]]
    changes.sections.clear()
  }
  const provenance = {} as RefProvenance
  for (const key of LISTS) {
    const present = new Set(result[key].map((e) => e.name))
    provenance[key] = [...changes[key]].filter(([name, [action]]) => (action === 'removed') !== present.has(name))
      .map(([name, [action, by]]): [string, string, string] => [name, action, by]).sort((a, b) => byCodeUnits(a[0], b[0]))
  }
  return { assembly: result, provenance }
}

/** A deep copy, whose tools hold deeply frozen values (the documented rule for every schema an assembly hands on). */
function copy(assembly: PromptAssembly): PromptAssembly {
  const copied = structuredClone(assembly)
  for (const tool of copied.tools) for (const value of Object.values(tool)) if (typeof value === 'object' && value !== null) deepFreeze(value)
  return copied
}

function deepFreeze(value: object): void {
  for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) deepFreeze(child)
  Object.freeze(value)
}

function waterfall(listeners: readonly ListenerProgram[], index: number, handed: PromptAssembly, mint: <T extends object>(v: T) => T, changes: Record<ListKey, Map<string, [string, string]>>): PromptAssembly {
  if (index === listeners.length) return handed
  const program = listeners[index]
  const by = ownerOf(program.layer, program.plugin)
  const guarded = <T>(run: () => T): T => {
    try {
      return run()
    } catch (error) {
      if (error instanceof RefFailure) throw error
      throw new RefFailure({ code: 'PROMPT_LISTENER_FAILED', details: { owner: by } })
    }
  }
  // `kept`: the contexts an assembly of the published shape (no `contexts`) keeps, as the listener had them.
  const handOff = (before: Snapshot, value: PromptAssembly | undefined, kept: PromptAssembly['contexts']) => {
    if (value === undefined) throw new RefFailure({ code: 'PROMPT_MALFORMED_ASSEMBLY', details: { owner: by, problem: 'it returned nothing (return next() or an assembly)' } })
    const problem = problemOf(value, kept)
    if (problem !== undefined) throw new RefFailure({ code: 'PROMPT_MALFORMED_ASSEMBLY', details: { owner: by, problem } })
    record(before, value, by, changes)
  }
  const received = copy(handed)
  const receivedSnap = snapshot(received)
  const receivedContexts = [...received.contexts]
  let kept = receivedContexts
  const edited = guarded(() => runEdits(received, program.before, mint))
  let result: PromptAssembly
  let base = receivedSnap
  if (program.next === 'none') {
    result = guarded(() => runEdits(edited, program.after, mint))
  } else {
    const out = program.next === 'same' ? received : program.next === 'replaced' ? { ...edited } : edited
    handOff(receivedSnap, out, receivedContexts)
    const back = copy(waterfall(listeners, index + 1, out, mint, changes))
    if (program.next === 'twice') throw new RefFailure({ code: 'PROMPT_LISTENER_NEXT_TWICE', details: { owner: by } })
    base = snapshot(back)
    kept = [...back.contexts]
    result = guarded(() => runEdits(back, program.after, mint))
  }
  handOff(base, program.returns === 'nothing' ? undefined : result, kept)
  return result
}

function snapshot(assembly: PromptAssembly): Snapshot {
  const of = (key: ListKey) => (assembly[key] as unknown as Item[]).map((e) => ({ name: e.name, id: e[ID], value: key === 'tools' ? e.description : e.text }))
  return { sections: of('sections'), contexts: of('contexts'), tools: of('tools') }
}

/** Records what `by` changed from `before` to `after`, list by list: added, rewritten (another object, or another text), removed. */
function record(before: Snapshot, after: PromptAssembly, by: string, changes: Record<ListKey, Map<string, [string, string]>>): void {
  for (const key of LISTS) {
    const earlier = new Map(before[key].map((e) => [e.name, e]))
    const now = after[key] as unknown as Item[]
    for (const entry of now) {
      const was = earlier.get(entry.name)
      const value = key === 'tools' ? entry.description : entry.text
      if (!was) changes[key].set(entry.name, ['added', by])
      else if (was.id !== entry[ID] || was.value !== value) changes[key].set(entry.name, ['rewritten', by])
    }
    const names = new Set(now.map((e) => e.name))
    for (const e of before[key]) if (!names.has(e.name)) changes[key].set(e.name, ['removed', by])
  }
}

/** The first structural problem of an assembly a listener hands on or returns, in the documented wording. */
/** The first structural problem; an assembly without `contexts` (once its sections pass) is given a copy of `kept` first. */
function problemOf(assembly: PromptAssembly, kept: PromptAssembly['contexts']): string | undefined {
  for (const key of LISTS) {
    if (key === 'contexts' && assembly.contexts === undefined) assembly.contexts = [...kept]
    const list = assembly[key] as unknown
    if (!Array.isArray(list)) return `${key} is not an array`
    for (let i = 0; i < list.length; i++) {
      const item = list[i] as Item
      if (key === 'tools') {
        if (typeof item !== 'object' || item === null || typeof item.name !== 'string' || !item.name) return `tools[${i}] has no name`
        continue
      }
      if (typeof item !== 'object' || item === null) return `${key}[${i}] is not an object`
      if (typeof item.name !== 'string' || !item.name) return `${key}[${i}] has no name`
      if (typeof item.text !== 'string') return `${key}[${i}] (${JSON.stringify(item.name)}) text is not a string`
      if (item.order !== undefined && !Number.isFinite(item.order)) return `${key}[${i}] (${JSON.stringify(item.name)}) order is not a finite number`
    }
    const names = (list as Item[]).map((e) => e.name)
    const twice = names.find((name, i) => names.indexOf(name) < i)
    if (twice !== undefined) return `${key} contain ${JSON.stringify(twice)} twice`
  }
  for (const [name, value] of Object.entries(assembly.variables)) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) return `variables has ${JSON.stringify(name)}, a name no template can reference (variable names match /^[a-z][a-z0-9_]*$/)`
    if (value !== undefined && typeof value !== 'string') return `variables.${name} is a ${typeof value} (${String(value)}); expected a string or undefined`
  }
}
