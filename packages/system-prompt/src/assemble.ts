/**
 * One assembly: evaluate the resolved view for a scope, order the tools, run the waterfall, restore
 * what listeners may not change, and hand back a detached result.
 * @module
 */
import type { ScopedListener, ScopeKey } from 'dsh-scope'
import {
  listenerFailed, listenerNextTwice, malformedAssembly, multipleComplete, providerFailed, providerReturned,
  PromptError, duplicateToolName, reservedToolName, toolSchemaUnfreezable, toolOrderUnregistered, type CodedError,
} from './errors.js'
import { assemblyProblem, knownUnique } from './assembly-shape.js'
import { NO_CHANGES, ProvenanceRecorder, snapshot, type AssemblySnapshot, type Provenance } from './provenance.js'
import { copyTool, deepFreeze, detach, freezeToolValues } from './freeze.js'
import type { ResolvedView, TextEntry } from './registry.js'
import { compareCodeUnits, orderTools, TOOL_ORDER_REST, unregisteredTools } from './tool-order.js'
import type {
  AssembleContext, AssembleListener, AssembledContext, AssembledSection, PromptAssembly, ToolSchema,
} from './types.js'

/** What one assembly needs besides the view: the deployment switches and the admitted listeners. */
export interface AssemblyInput {
  readonly view: ResolvedView
  readonly context: AssembleContext
  readonly runtimeContext: boolean
  readonly toolOrder: readonly string[] | undefined
  readonly listeners: readonly ScopedListener<AssembleListener>[]
}

/** Runs one assembly. Every failure is a thrown (so, in `assemble()`, rejected) named error. */
export async function runAssembly(input: AssemblyInput): Promise<PromptAssembly> {
  const { view, context } = input
  const signal = context.signal
  signal?.throwIfAborted()
  if (view.complete.length > 1) throw multipleComplete(view.complete.map((s) => s.name))

  const sections = view.sections.map((entry) => evaluateText(entry, context) as AssembledSection)
  const runtimeOn = input.runtimeContext && !view.suppressed
  const contexts = runtimeOn ? view.contexts.map((entry) => evaluateText(entry, context) as AssembledContext) : []
  const variables: Record<string, string | undefined> = {}
  for (const entry of view.variables) {
    let value: unknown
    try {
      value = entry.provider(context)
    } catch (error) {
      throw providerFailed(`prompt variable "${entry.name}" provider`, entry.owner, error)
    }
    if (value !== undefined && typeof value !== 'string') {
      settleQuietly(value)
      throw providerReturned(`prompt variable "${entry.name}" provider`, entry.owner, 'a string or undefined', value)
    }
    variables[entry.name] = value
  }
  const check = checkTools(view, context, input.toolOrder)
  if (check.problem) throw check.problem
  const hiddenWithTool = view.withTool ? hideWithoutTool(view.sections, sections, check) : NONE_HIDDEN
  const complete = view.complete.length ? sections.find((s) => s.complete) : undefined

  signal?.throwIfAborted()
  let assembly: PromptAssembly = { sections, contexts, tools: check.tools.map(copyTool), variables }
  let provenance = NO_CHANGES
  if (input.listeners.length) {
    // Built from one resolved view, so its names are unique: the waterfall's checks start from that.
    knownUnique(assembly)
    const pristine = complete && { ...complete }
    const recorder = new ProvenanceRecorder()
    assembly = await abortable(runWaterfall(input.listeners, assembly, context, recorder), signal)
    signal?.throwIfAborted()
    provenance = recorder.result(assembly)
    assembly = detach(assembly)
    if (pristine) assembly.sections = [pristine]
    if (!runtimeOn) assembly.contexts = []
  } else if (complete) {
    assembly.sections = [complete]
  }
  Object.defineProperty(assembly, kNotes, { value: { hiddenWithTool, tools: check, provenance } satisfies AssemblyNotes })
  return assembly
}

/** What an assembly records about itself besides its content: the data behind `explain` and the checks. */
export interface AssemblyNotes {
  /** Sections registered with `tool:` whose tool this assembly does not show (so they are left out), in order. */
  readonly hiddenWithTool: readonly HiddenSection[]
  /** The assembly's tool check. */
  readonly tools: ToolCheck
  /** Which listener's plugin added, rewrote or removed each section, context and tool (SPEC §13). */
  readonly provenance: Provenance
}

/** A section left out of an assembly because the tool it is shown with is not in it. */
export interface HiddenSection {
  readonly section: AssembledSection
  /** The tool it is shown with. */
  readonly tool: string
}

/**
 * Where an assembly keeps its notes: a non-enumerable property of its own, so copies, JSON and deep
 * comparisons never see it. Not a WeakMap keyed by assemblies: V8 never shrinks a WeakMap's table for
 * entries the collector clears, and a harness makes assemblies by the hundred thousand.
 */
const kNotes = Symbol('dsh.assemblyNotes')
const NONE_HIDDEN: readonly HiddenSection[] = Object.freeze([])

/** The notes of an assembly `assemble()` returned (`undefined` for any other object). */
export function assemblyNotes(assembly: PromptAssembly): AssemblyNotes | undefined {
  return (assembly as unknown as Record<symbol, AssemblyNotes | undefined>)[kNotes]
}

/**
 * Removes from `sections` (evaluated from `entries`, index for index) those whose entry is shown with a
 * tool the check does not show, or shows from another layer; returns them. Works in place.
 */
function hideWithoutTool(entries: readonly TextEntry[], sections: AssembledSection[], check: ToolCheck): HiddenSection[] {
  const hidden: HiddenSection[] = []
  let kept = 0
  for (let i = 0; i < entries.length; i++) {
    const { tool, scope } = entries[i]
    if (tool === undefined || (check.names.has(tool) && (!check.layers.has(tool) || check.layers.get(tool) === scope))) sections[kept++] = sections[i]
    else hidden.push({ section: sections[i], tool })
  }
  sections.length = kept
  return hidden
}

function evaluateText(entry: TextEntry, context: AssembleContext): AssembledSection | AssembledContext {
  let text: unknown = entry.text
  if (typeof text === 'function') {
    try {
      text = (entry.text as (context: AssembleContext) => unknown)(context)
    } catch (error) {
      throw providerFailed(`prompt ${entry.kind} "${entry.name}" text provider`, entry.owner, error)
    }
    if (typeof text !== 'string') {
      settleQuietly(text)
      throw providerReturned(`prompt ${entry.kind} "${entry.name}" text provider`, entry.owner, 'a string', text)
    }
  }
  const result: AssembledSection = { name: entry.name, order: entry.order, text: text as string, owner: entry.owner }
  if (entry.scope !== undefined) result.scope = entry.scope
  if (entry.complete) result.complete = true
  if (!entry.interpolate) result.interpolate = false
  if (entry.band !== undefined) result.band = entry.band
  return result
}

/**
 * The tool check of one assembly (SPEC §7), computed once from the tool providers' results: what the
 * assembly rejects with, what the after-load check reports and what the CLI shows all read this record.
 */
export interface ToolCheck {
  /** The tools in canonical order (complete only when there is no `problem`). */
  readonly tools: readonly ToolSchema[]
  /** The visible tool names. */
  readonly names: ReadonlySet<string>
  /** Every name any provider knows (visible or not), in code-unit order. */
  readonly known: readonly string[]
  /** `toolOrder` names no provider knows, in `toolOrder`'s order. */
  readonly unregistered: readonly string[]
  /** The plugins whose provider returned the reserved rest name, in provider order. */
  readonly reserved: readonly string[]
  /** The layer of each visible tool, where its provider reports it. */
  readonly layers: ReadonlyMap<string, ScopeKey | undefined>
  /** The error the assembly rejects with for these problems (reserved name first), if any. */
  readonly problem?: CodedError<PromptError, 'PROMPT_TOOL_ORDER_UNREGISTERED' | 'PROMPT_RESERVED_TOOL_NAME'>
}

interface ProviderResult {
  readonly schemas: readonly unknown[]
  readonly knownNames: readonly unknown[] | undefined
  readonly layers: ReadonlyMap<string, ScopeKey | undefined> | undefined
}

/** The last tool check of a view, and the provider results it was made from. */
interface ToolCache {
  readonly results: readonly ProviderResult[]
  readonly check: ToolCheck
}

const NO_TOOLS: ToolCheck = Object.freeze({
  tools: Object.freeze([]), names: new Set<string>(), known: Object.freeze([]), unregistered: Object.freeze([]),
  reserved: Object.freeze([]), layers: new Map(),
})

/**
 * The tool check of an assembly for `view`: consults every tool provider of the view with `context` once.
 * Throws for a failing or malformed provider and for a tool offered twice (failures of the providers, not
 * of the check); the check's own problems (`toolOrder` names no provider knows, the reserved name) are
 * returned in the record. No text provider or listener runs.
 */
export function checkTools(view: ResolvedView, context: AssembleContext, order: readonly string[] | undefined): ToolCheck {
  const providers = view.tools
  if (!providers.length && !order) return NO_TOOLS
  const results: ProviderResult[] = providers.map((entry) => providerResult(entry, context))
  // Providers usually hand back the same (frozen) schemas assembly after assembly: when every result
  // holds exactly the same elements as last time, the last check still holds.
  const cache = view.toolCache as ToolCache | undefined
  if (cache && results.every((r, i) => sameResult(r, cache.results[i]))) return cache.check
  const tools: ToolSchema[] = []
  // Every provider of each name: a clash is reported the same whatever order the providers came in.
  const owners = new Map<string, string[]>()
  const known = new Set<string>()
  const reserved: string[] = []
  const layers = new Map<string, ScopeKey | undefined>()
  for (let p = 0; p < providers.length; p++) {
    const owner = providers[p].owner
    const { schemas, knownNames } = results[p]
    for (let i = 0; i < schemas.length; i++) {
      const schema = schemas[i] as ToolSchema
      if (!hasToolName(schema)) {
        throw providerReturned('tool provider', owner, `a schema with a non-empty string name at index ${i}`, schema)
      }
      if (schema.name === TOOL_ORDER_REST) {
        if (!reserved.includes(owner)) reserved.push(owner)
        continue
      }
      const providedBy = owners.get(schema.name)
      if (providedBy) {
        providedBy.push(owner)
        continue
      }
      owners.set(schema.name, [owner])
      try {
        tools.push(deepFreeze(schema))
      } catch (error) {
        throw toolSchemaUnfreezable(schema.name, owner, error)
      }
      known.add(schema.name)
      if (results[p].layers?.has(schema.name)) layers.set(schema.name, results[p].layers!.get(schema.name))
    }
    if (knownNames) for (const name of knownNames as string[]) known.add(name)
  }
  const sortedKnown = [...known].sort(compareCodeUnits)
  let check: ToolCheck
  if (reserved.length) {
    check = { tools, names: new Set(owners.keys()), known: sortedKnown, unregistered: [], reserved, layers, problem: reservedToolName(TOOL_ORDER_REST, reserved[0]) }
  } else {
    let clash: string | undefined
    for (const [name, list] of owners) if (list.length > 1 && (clash === undefined || compareCodeUnits(name, clash) < 0)) clash = name
    if (clash !== undefined) throw duplicateToolName(clash, owners.get(clash)!.sort(compareCodeUnits))
    const unregistered = unregisteredTools(order, known)
    check = {
      tools: unregistered.length ? tools : orderTools(tools, order), names: new Set(owners.keys()), known: sortedKnown, unregistered, reserved, layers,
      problem: unregistered.length ? toolOrderUnregistered(unregistered, sortedKnown) : undefined,
    }
  }
  // Copies: a provider may refill its own arrays in place before the next assembly.
  const kept = results.map((r) => ({ schemas: r.schemas.slice(), knownNames: r.knownNames?.slice(), layers: r.layers }))
  view.toolCache = { results: kept, check } satisfies ToolCache
  return check
}

/** Whether `schema` is an object with a non-empty string `name`; a Proxy that cannot be read is not. */
function hasToolName(schema: unknown): schema is ToolSchema {
  try {
    return typeof schema === 'object' && schema !== null && typeof (schema as ToolSchema).name === 'string' && !!(schema as ToolSchema).name
  } catch {
    return false
  }
}

function providerResult(entry: ResolvedView['tools'][number], context: AssembleContext): ProviderResult {
  let result: unknown
  try {
    result = entry.provider(context)
  } catch (error) {
    throw providerFailed('tool provider', entry.owner, error)
  }
  const { schemas, knownNames, layers } = (result ?? {}) as { schemas?: unknown; knownNames?: unknown; layers?: unknown }
  if (typeof result !== 'object' || result === null || !Array.isArray(schemas)) {
    settleQuietly(result)
    throw providerReturned('tool provider', entry.owner, 'an object { schemas: ToolSchema[], knownNames? }', result)
  }
  if (knownNames !== undefined && !(Array.isArray(knownNames) && knownNames.every((n) => typeof n === 'string'))) {
    throw providerReturned('tool provider', entry.owner, 'knownNames as an array of strings', knownNames)
  }
  if (layers !== undefined && !(layers instanceof Map)) {
    throw providerReturned('tool provider', entry.owner, 'layers as a Map from tool name to layer', layers)
  }
  return { schemas, knownNames, layers: layers as ProviderResult['layers'] }
}

function sameResult(a: ProviderResult, b: ProviderResult | undefined): boolean {
  return b !== undefined && a.layers === b.layers && sameElements(a.schemas, b.schemas) && sameElements(a.knownNames, b.knownNames)
}

function sameElements(a: unknown, b: readonly unknown[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  if (!Array.isArray(a) || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

async function runWaterfall(
  listeners: readonly ScopedListener<AssembleListener>[], assembly: PromptAssembly, context: AssembleContext, recorder: ProvenanceRecorder,
): Promise<PromptAssembly> {
  const dispatch = async (index: number, current: PromptAssembly): Promise<PromptAssembly> => {
    if (index === listeners.length) return current
    const listener = listeners[index]
    // What this listener received, to tell what it changed (SPEC §13 provenance).
    const received = snapshot(current)
    // The rest of the waterfall, once next() started it, and what it handed back.
    let downstream: Promise<PromptAssembly> | undefined
    let returned: AssemblySnapshot | undefined
    let twice = false
    const next = (replacement?: PromptAssembly) => {
      if (downstream) {
        twice = true
        return quiet(Promise.reject(listenerNextTwice(listener.owner)))
      }
      const handed = replacement ?? current
      // Checked even when it is the object the listener received: a listener may have broken it in place.
      const problem = assemblyProblem(handed)
      if (!problem) recorder.record(received, handed, listener.owner)
      downstream = quiet(problem ? Promise.reject(malformedAssembly(listener.owner, problem)) : dispatch(index + 1, handed).then((result) => {
        returned = snapshot(result)
        return result
      }))
      return downstream
    }
    let result: unknown
    try {
      result = await listener.callback(current, context, next)
    } catch (error) {
      if (isPromptError(error) || isAbort(error)) throw error
      throw listenerFailed(listener.owner, error)
    }
    if (twice) throw listenerNextTwice(listener.owner)
    // A failure later in the waterfall fails the assembly, even when this listener did not wait for it.
    if (downstream) await downstream
    const problem = result === undefined ? 'it returned nothing (return next() or an assembly)' : assemblyProblem(result)
    if (problem) throw malformedAssembly(listener.owner, problem)
    // A tool the listener added is frozen now, so a schema that cannot be is blamed on this listener.
    for (const tool of (result as PromptAssembly).tools) freezeToolValues(tool, listener.owner)
    recorder.record(returned ?? received, result as PromptAssembly, listener.owner)
    return result as PromptAssembly
  }
  return dispatch(0, assembly)
}

/** Rejects with the signal's reason as soon as it aborts, without waiting for `work` (left to settle quietly). */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work
  quiet(work)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Marks `promise`'s rejection as handled (whoever awaits it still gets it) and returns it. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {})
  return promise
}

/** A provider returned a thenable where text was expected: its eventual rejection must not go unhandled. */
function settleQuietly(value: unknown): void {
  try {
    const then = (value as { then?: unknown } | null)?.then
    if (typeof then === 'function') then.call(value, undefined, () => {})
  } catch {
    // A hostile `then`: there is nothing to settle.
  }
}

function isAbort(error: unknown): boolean {
  try {
    return error instanceof Error && error.name === 'AbortError'
  } catch {
    return false
  }
}

/** `error instanceof PromptError`, false for a value that cannot be asked (a revoked Proxy). */
function isPromptError(error: unknown): boolean {
  try {
    return error instanceof PromptError
  } catch {
    return false
  }
}
