/**
 * One assembly: evaluate the resolved view for a scope, take the tool check (`tool-check.ts`), run the
 * waterfall with its provenance, restore what listeners may not change, and hand back a detached result.
 * @module
 */
import type { ScopedListener } from 'dsh-scope'
import {
  listenerFailed, listenerNextTwice, malformedAssembly, multipleComplete, providerFailed, providerReturned, PromptError,
} from './errors.js'
import { assemblyProblem, knownUnique } from './assembly-shape.js'
import { NO_CHANGES, ProvenanceRecorder, snapshot, type AssemblySnapshot, type Provenance } from './provenance.js'
import { copyTool, detach, freezeToolValues } from './freeze.js'
import type { ResolvedView, TextEntry } from './registry.js'
import { checkTools, type ToolCheck } from './tool-check.js'
import { abortable, isAbort, quiet, settleQuietly } from './promises.js'
import type {
  AssembleContext, AssembleListener, AssembledContext, AssembledSection, PromptAssembly,
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

/** Freezes the tools of `assembly` (a lookup for those already frozen); the error naming `owner` if one cannot be. */
function unfreezable(assembly: PromptAssembly, owner: string): Error | undefined {
  try {
    for (const tool of assembly.tools) freezeToolValues(tool, owner)
  } catch (error) {
    return error as Error
  }
}

/** An assembly at a hand-off of the waterfall, with a snapshot that still describes it. */
interface Stage {
  readonly assembly: PromptAssembly
  /** Absent when it has to be taken anew (something changed since the last one). */
  readonly snap?: AssemblySnapshot
}

async function runWaterfall(
  listeners: readonly ScopedListener<AssembleListener>[], assembly: PromptAssembly, context: AssembleContext, recorder: ProvenanceRecorder,
): Promise<PromptAssembly> {
  // `known`, when given, is a snapshot that still describes `current` (a listener before changed nothing).
  const dispatch = async (index: number, current: PromptAssembly, known?: AssemblySnapshot): Promise<Stage> => {
    if (index === listeners.length) return { assembly: current, snap: known }
    const listener = listeners[index]
    // What this listener received, to tell what it changed (SPEC §13 provenance).
    const received = known ?? snapshot(current)
    // The rest of the waterfall, once next() started it, and what it handed back (taken the moment it
    // is handed back, before this listener's code after `await next()` can change it).
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
      const changed = !problem && recorder.record(received, handed, listener.owner)
      const refused = problem ? malformedAssembly(listener.owner, problem) : changed ? unfreezable(handed, listener.owner) : undefined
      downstream = quiet(refused ? Promise.reject(refused) : dispatch(index + 1, handed, changed ? undefined : received).then((stage) => {
        returned = stage.snap ?? snapshot(stage.assembly)
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
    // A failure later in the waterfall fails the assembly, even when this listener did not wait for it.
    if (downstream) await downstream
    const problem = result === undefined ? 'it returned nothing (return next() or an assembly)' : assemblyProblem(result)
    if (problem) throw malformedAssembly(listener.owner, problem)
    const before = returned ?? received
    const changed = recorder.record(before, result as PromptAssembly, listener.owner)
    // A tool the listener added is frozen now, so a schema that cannot be is blamed on this listener
    // (when it changed nothing, every tool is one the waterfall has already seen).
    const refused = changed ? unfreezable(result as PromptAssembly, listener.owner) : undefined
    if (refused) throw refused
    return { assembly: result as PromptAssembly, snap: changed ? undefined : before }
  }
  return (await dispatch(0, assembly)).assembly
}

/** `error instanceof PromptError`, false for a value that cannot be asked (a revoked Proxy). */
function isPromptError(error: unknown): boolean {
  try {
    return error instanceof PromptError
  } catch {
    return false
  }
}
