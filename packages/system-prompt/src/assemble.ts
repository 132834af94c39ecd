/**
 * One assembly: evaluate the resolved view for a scope, take the tool check (`tool-check.ts`), run the
 * waterfall with its provenance, restore what listeners may not change, and hand back a detached result.
 * @module
 */
import type { ScopedListener } from 'dsh-scope'
import {
  listenerFailed, listenerNextTwice, malformedAssembly, multipleComplete, providerFailed, providerReturned, PromptError,
} from './errors.js'
import { firstProviderFailure, isProviderFailure } from './provider-failures.js'
import { builtSnapshot, examine, textsSnapshot, type AssemblySnapshot, type ListFacts } from './hand-off.js'
import { NO_CHANGES, ProvenanceRecorder, type Provenance } from './provenance.js'
import { copyTools, detach, freezeToolValues } from './freeze.js'
import type { ResolvedView, TextEntry } from './registry.js'
import { checkTools, toolShapes, type ToolCheck } from './tool-check.js'
import { kRenderMemo, readNotes, stampNotes } from './notes.js'
import { abortable, isAbort, quiet, settleQuietly } from './promises.js'
import type {
  AssembleContext, AssembleListener, AssembledContext, AssembledSection, HandedAssembly, PromptAssembly,
} from './types.js'

/** What one assembly needs besides the view: the deployment switches and the admitted listeners. */
export interface AssemblyInput {
  readonly view: ResolvedView
  readonly context: AssembleContext
  readonly runtimeContext: boolean
  readonly toolOrder: readonly string[] | undefined
  readonly listeners: readonly ScopedListener<AssembleListener>[]
  /** Where the waterfall keeps the plugin of the listener it waits on (the re-entrancy guard reads it too). */
  readonly watch?: Watch
}

/** Runs one assembly. Every failure is a thrown (so, in `assemble()`, rejected) named error. */
export async function runAssembly(input: AssemblyInput): Promise<PromptAssembly> {
  const { view, context } = input
  const signal = context.signal
  signal?.throwIfAborted()
  if (view.complete.length > 1) throw multipleComplete(view.complete.map((s) => s.name))

  // Every provider runs even after one fails: the first failure is thrown carrying the others (`providerFailures`).
  const failures: PromptError[] = []
  const sectionTexts = new Array<string>(view.sections.length)
  const sections = evaluateTexts(view.sections, context, sectionTexts, failures) as AssembledSection[]
  const runtimeOn = input.runtimeContext && !view.suppressed
  const contextTexts = runtimeOn ? new Array<string>(view.contexts.length) : []
  const contexts = runtimeOn ? evaluateTexts(view.contexts, context, contextTexts, failures) as AssembledContext[] : []
  const variables: Record<string, string | undefined> = {}
  for (const entry of view.variables) {
    const value = variableValue(entry, context, failures)
    if (value !== FAILED) variables[entry.name] = value
  }
  if (failures.length) throw firstProviderFailure(failures)
  const check = checkTools(view, context, input.toolOrder)
  if (check.problem) throw check.problem
  const hiddenWithTool = view.withTool ? hideWithoutTool(view.sections, sections, check) : NONE_HIDDEN
  const complete = view.complete.length ? sections.find((s) => s.complete) : undefined

  signal?.throwIfAborted()
  const shapes = toolShapes(view, check)
  const tools = copyTools(check.tools, shapes)
  let assembly: PromptAssembly = { sections, contexts, tools, variables }
  let provenance = NO_CHANGES
  if (input.listeners.length) {
    const pristine = complete && { ...complete }
    const recorder = new ProvenanceRecorder()
    // Built from one resolved view, so it is well formed and its names are unique: the waterfall's
    // checks start from its snapshot, read from what is known of the view, not from the entries.
    const facts = view.compiled
    const known: AssemblySnapshot = {
      // Sections shown with a tool may have been left out, so the view's facts do not line up.
      sections: view.withTool ? textsSnapshot(sections) : builtSnapshot(sections, facts.sections, sectionTexts),
      contexts: runtimeOn ? builtSnapshot(contexts, facts.contexts, contextTexts) : builtSnapshot(contexts, NO_FACTS, NO_VALUES),
      tools: builtSnapshot(tools, shapes.facts, shapes.descriptions),
      variables: facts.variables,
    }
    // While it runs, `waitingListener(signal)` tells which listener's plugin the assembly waits on.
    const watch: Watch = input.watch ?? {}
    let final: Stage
    if (signal) watching.set(signal, watch)
    try {
      final = await abortable(runWaterfall(input.listeners, assembly, known, context, recorder, watch), signal)
    } finally {
      if (signal && watching.get(signal) === watch) watching.delete(signal)
    }
    signal?.throwIfAborted()
    assembly = final.assembly
    provenance = recorder.result(final.snap, !pristine, runtimeOn)
    assembly = detach(assembly, known.tools.items, check.tools, shapes)
    if (pristine) assembly.sections = [pristine]
    if (!runtimeOn) assembly.contexts = []
  } else if (complete) {
    assembly.sections = [complete]
  }
  const notes = { hiddenWithTool, sectionTools: view.compiled.sectionTools, tools: check, provenance, [kRenderMemo]: view.compiled.render }
  stampNotes(assembly, notes satisfies AssemblyNotes)
  return assembly
}

const FAILED = Symbol('failed')

/** A variable's value for `context`, or {@link FAILED} with its provider's failure added to `failures`. */
function variableValue(entry: ResolvedView['variables'][number], context: AssembleContext, failures: PromptError[]): string | undefined | typeof FAILED {
  let value: unknown
  try {
    value = entry.provider(context)
  } catch (error) {
    failures.push(providerFailed(`prompt variable "${entry.name}" provider`, entry.owner, error))
    return FAILED
  }
  if (value !== undefined && typeof value !== 'string') {
    settleQuietly(value)
    failures.push(providerReturned(`prompt variable "${entry.name}" provider`, entry.owner, 'a string or undefined', value))
    return FAILED
  }
  return value as string | undefined
}

/**
 * Variables registered while an assembly ran (by a text provider or a listener, as plugins of the
 * published package do on first use): `assembly` gets the value of each one `before` (the view it
 * started from) lacked and `after` has, unless a listener already set that name. Evaluated once the
 * assembly is done, with its context; a failing provider rejects it as at the start.
 */
export function withLateVariables(assembly: PromptAssembly, before: ResolvedView, after: ResolvedView, context: AssembleContext): PromptAssembly {
  const known = new Set(before.variables.map((entry) => entry.name))
  const failures: PromptError[] = []
  let variables = assembly.variables
  for (const entry of after.variables) {
    if (known.has(entry.name) || Object.hasOwn(variables, entry.name)) continue
    const value = variableValue(entry, context, failures)
    if (value === FAILED) continue
    if (Object.isFrozen(variables)) variables = { ...variables }
    variables[entry.name] = value
  }
  if (failures.length) throw firstProviderFailure(failures)
  if (variables !== assembly.variables) assembly.variables = variables
  return assembly
}

/** What an assembly records about itself besides its content: the data behind `explain` and the checks. */
export interface AssemblyNotes {
  /** Sections registered with `tool:` whose tool this assembly does not show (so they are left out), in order. */
  readonly hiddenWithTool: readonly HiddenSection[]
  /**
   * The tool each registered section shown with a tool (`tool:`) belongs with, by section name, whether
   * this assembly shows it or not (a listener's own sections are not in it). An agent keeps an inert
   * tool's sections by it (`dsh-agent`'s `inert-guidance.ts`).
   */
  readonly sectionTools: ReadonlyMap<string, string>
  /** The assembly's tool check. */
  readonly tools: ToolCheck
  /** Which listener's plugin added, rewrote or removed each section, context and tool (R-WF-8). */
  readonly provenance: Provenance
}

/** A section left out of an assembly because the tool it is shown with is not in it. */
export interface HiddenSection {
  readonly section: AssembledSection
  /** The tool it is shown with. */
  readonly tool: string
}

/*
 * An assembly keeps its notes in a private field installed on it (`notes.ts`), so copies, JSON and deep
 * comparisons never see them. The notes also carry the view's render memo (`render.ts`), a member of the
 * view's `CompiledView`, not of a module-wide table.
 */
const NONE_HIDDEN: readonly HiddenSection[] = Object.freeze([])

/** The notes of an assembly `assemble()` returned (`undefined` for any other object). */
export function assemblyNotes(assembly: PromptAssembly): AssemblyNotes | undefined {
  return readNotes<AssemblyNotes>(assembly)
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

const NO_FACTS: ListFacts = Object.freeze({ names: Object.freeze([]), extras: Object.freeze([]) })
const NO_VALUES: readonly unknown[] = Object.freeze([])

/** Each entry's text evaluated (into `texts`, index for index) and made into an assembled entry; a provider's failure is added to `failures`. */
function evaluateTexts(entries: readonly TextEntry[], context: AssembleContext, texts: string[], failures: PromptError[]): (AssembledSection | AssembledContext)[] {
  const out = new Array<AssembledSection | AssembledContext>(entries.length)
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]
    let text: string
    try {
      text = textOf(entry, context)
    } catch (error) {
      if (!isProviderFailure(error)) throw error
      failures.push(error)
      text = ''
    }
    texts[i] = text
    out[i] = assembled(entry, text)
  }
  return out
}

function textOf(entry: TextEntry, context: AssembleContext): string {
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
  return text as string
}

function assembled(entry: TextEntry, text: string): AssembledSection | AssembledContext {
  const result: AssembledSection = { name: entry.name, order: entry.order, text, owner: entry.owner }
  if (entry.scope !== undefined) result.scope = entry.scope
  if (entry.complete) result.complete = true
  if (!entry.interpolate) result.interpolate = false
  if (entry.band !== undefined) result.band = entry.band
  return result
}

/** Freezes the tools of `assembly` from index `from` (a lookup for those already frozen); the error naming `owner` if one cannot be. */
function unfreezable(assembly: PromptAssembly, from: number, owner: string): Error | undefined {
  const tools = assembly.tools
  try {
    for (let i = from; i < tools.length; i++) freezeToolValues(tools[i], owner)
  } catch (error) {
    return error as Error
  }
}

/** An assembly at a hand-off of the waterfall, with the snapshot that describes it. */
interface Stage {
  readonly assembly: PromptAssembly
  readonly snap: AssemblySnapshot
}

/** Which listener an assembly in flight is waiting on: the one whose code runs (before `next()` or after it settled). */
interface Watch {
  holder?: string
}

/** The assemblies in flight by their signal (a plain map: each entry goes when its assembly ends). */
const watching = new Map<AbortSignal, Watch>()

/**
 * The plugin of the `system-prompt/assemble` listener that the assembly started with `signal` is
 * waiting on right now (the one that has not called `next()`, or whose `next()` settled and that has
 * not returned), or `undefined` when none is (no such assembly, or it is past its listeners). For a
 * caller whose timeout aborts `signal`: the culprit, not only the candidates.
 */
export function waitingListener(signal: AbortSignal): string | undefined {
  return watching.get(signal)?.holder
}

async function runWaterfall(
  listeners: readonly ScopedListener<AssembleListener>[], assembly: PromptAssembly, known: AssemblySnapshot, context: AssembleContext, recorder: ProvenanceRecorder,
  watch: Watch,
): Promise<Stage> {
  // `received` describes `current` as this listener received it (checked, the base of its provenance).
  const dispatch = (index: number, current: PromptAssembly, received: AssemblySnapshot): Promise<Stage> => {
    if (index < listeners.length) return run(index, current, received)
    watch.holder = undefined
    return Promise.resolve({ assembly: current, snap: received })
  }
  const run = async (index: number, current: PromptAssembly, received: AssemblySnapshot): Promise<Stage> => {
    const listener = listeners[index]
    watch.holder = listener.owner
    // The rest of the waterfall, once next() started it, and the snapshot of what it handed back
    // (taken the moment it is handed back, before this listener's code after `await next()` runs).
    let downstream: Promise<PromptAssembly> | undefined
    let returned: AssemblySnapshot | undefined
    let twice = false
    const next = (replacement?: HandedAssembly) => {
      if (downstream) {
        twice = true
        return quiet(Promise.reject(listenerNextTwice(listener.owner)))
      }
      const handed = replacement ?? current
      // Checked even when it is the object the listener received: a listener may have broken it in place.
      // Once the check passes it has `contexts` (kept when it had none: the published shape).
      const handOff = examine(received, handed, listener.owner, recorder)
      const refused = handOff.problem !== undefined ? malformedAssembly(listener.owner, handOff.problem)
        : handOff.changed ? unfreezable(handed as PromptAssembly, handOff.toolsFrom, listener.owner) : undefined
      downstream = quiet(refused ? Promise.reject(refused) : dispatch(index + 1, handed as PromptAssembly, handOff.snap).then((stage) => {
        returned = stage.snap
        watch.holder = listener.owner
        return stage.assembly
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
    // A failure later in the waterfall fails the assembly, even when this listener did not wait for it
    // (once the rest has handed back, `returned` is set and there is nothing to wait for).
    if (downstream && returned === undefined) await downstream
    if (result === undefined) throw malformedAssembly(listener.owner, 'it returned nothing (return next() or an assembly)')
    const handOff = examine(returned ?? received, result, listener.owner, recorder)
    if (handOff.problem !== undefined) throw malformedAssembly(listener.owner, handOff.problem)
    // A tool the listener added or changed is frozen now, so a schema that cannot be is blamed on this
    // listener (every tool it kept is one the waterfall has already frozen).
    const refused = handOff.changed ? unfreezable(result as PromptAssembly, handOff.toolsFrom, listener.owner) : undefined
    if (refused) throw refused
    return { assembly: result as PromptAssembly, snap: handOff.snap }
  }
  return dispatch(0, assembly, known)
}

/** `error instanceof PromptError`, false for a value that cannot be asked (a revoked Proxy). */
function isPromptError(error: unknown): boolean {
  try {
    return error instanceof PromptError
  } catch {
    return false
  }
}
