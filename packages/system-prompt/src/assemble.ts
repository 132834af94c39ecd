/**
 * One assembly: evaluate the resolved view for a scope, order the tools, run the waterfall, restore
 * what listeners may not change, and hand back a detached result.
 * @module
 */
import type { ScopedListener } from 'dsh-scope'
import {
  listenerFailed, listenerNextTwice, malformedAssembly, multipleComplete, providerFailed, providerReturned,
  PromptError, duplicateToolName, reservedToolName,
} from './errors.js'
import { assemblyProblem } from './assembly-shape.js'
import { deepFreeze } from './freeze.js'
import type { ResolvedView, TextEntry } from './registry.js'
import { checkToolOrder, compareCodeUnits, orderTools, TOOL_ORDER_REST } from './tool-order.js'
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
  const tools = collectTools(view, context, input.toolOrder)
  const complete = view.complete.length ? sections.find((s) => s.complete) : undefined

  signal?.throwIfAborted()
  let assembly: PromptAssembly = { sections, contexts, tools, variables }
  if (input.listeners.length) {
    const pristine = complete && { ...complete }
    assembly = await abortable(runWaterfall(input.listeners, assembly, context), signal)
    signal?.throwIfAborted()
    assembly = detach(assembly)
    if (pristine) assembly.sections = [pristine]
    if (!runtimeOn) assembly.contexts = []
  } else if (complete) {
    assembly.sections = [complete]
  }
  return assembly
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
  return result
}

/** The last ordered tool list of a view, and the provider results it was made from. */
interface ToolCache {
  readonly schemas: readonly (readonly unknown[])[]
  readonly known: readonly (readonly unknown[] | undefined)[]
  readonly ordered: readonly ToolSchema[]
}

function collectTools(view: ResolvedView, context: AssembleContext, order: readonly string[] | undefined): ToolSchema[] {
  const providers = view.tools
  if (!providers.length && !order) return []
  const results: { schemas: unknown[]; knownNames: unknown }[] = []
  for (const entry of providers) {
    let result: unknown
    try {
      result = entry.provider(context)
    } catch (error) {
      throw providerFailed('tool provider', entry.owner, error)
    }
    const schemas = (result as { schemas?: unknown } | null)?.schemas
    if (typeof result !== 'object' || result === null || !Array.isArray(schemas)) {
      settleQuietly(result)
      throw providerReturned('tool provider', entry.owner, 'an object { schemas: ToolSchema[], knownNames? }', result)
    }
    results.push({ schemas, knownNames: (result as { knownNames?: unknown }).knownNames })
  }
  // Providers usually hand back the same (frozen) schemas assembly after assembly: when every result
  // holds exactly the same elements as last time, the ordered list is still right.
  const cache = view.toolCache as ToolCache | undefined
  if (cache && results.every((r, i) => sameElements(r.schemas, cache.schemas[i]) && sameElements(r.knownNames, cache.known[i]))) {
    return cache.ordered.slice()
  }
  const tools: ToolSchema[] = []
  // Every provider of each name: a clash is reported the same whatever order the providers came in.
  const owners = new Map<string, string[]>()
  const known = new Set<string>()
  for (let p = 0; p < providers.length; p++) {
    const owner = providers[p].owner
    const { schemas, knownNames } = results[p]
    for (let i = 0; i < schemas.length; i++) {
      const schema = schemas[i] as ToolSchema
      if (typeof schema !== 'object' || schema === null || typeof schema.name !== 'string' || !schema.name) {
        throw providerReturned('tool provider', owner, `a schema with a non-empty string name at index ${i}`, schema)
      }
      if (schema.name === TOOL_ORDER_REST) throw reservedToolName(TOOL_ORDER_REST, owner)
      const providedBy = owners.get(schema.name)
      if (providedBy) {
        providedBy.push(owner)
        continue
      }
      owners.set(schema.name, [owner])
      tools.push(deepFreeze(schema))
      known.add(schema.name)
    }
    if (Array.isArray(knownNames) && knownNames.every((n) => typeof n === 'string')) {
      for (const name of knownNames) known.add(name)
    } else if (knownNames !== undefined) {
      throw providerReturned('tool provider', owner, 'knownNames as an array of strings', knownNames)
    }
  }
  let clash: string | undefined
  for (const [name, list] of owners) if (list.length > 1 && (clash === undefined || compareCodeUnits(name, clash) < 0)) clash = name
  if (clash !== undefined) throw duplicateToolName(clash, owners.get(clash)!.sort(compareCodeUnits))
  const problem = checkToolOrder(order, known)
  if (problem) throw problem
  const ordered = orderTools(tools, order)
  view.toolCache = {
    schemas: results.map((r) => r.schemas.slice()),
    known: results.map((r) => Array.isArray(r.knownNames) ? r.knownNames.slice() : undefined),
    ordered,
  } satisfies ToolCache
  return ordered.slice()
}

/**
 * The SPEC §7 tool check of an assembly, without the assembly: consults the view's tool providers with
 * `context` and returns the error the assembly would reject with when it is a `toolOrder` name no
 * provider knows or the reserved name; `undefined` otherwise (other tool failures are left to the
 * assembly). No text provider or listener runs.
 */
export function checkTools(view: ResolvedView, context: AssembleContext, order: readonly string[] | undefined): Error | undefined {
  try {
    collectTools(view, context, order)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === 'PROMPT_TOOL_ORDER_UNREGISTERED' || code === 'PROMPT_RESERVED_TOOL_NAME') return error as Error
  }
}

function sameElements(a: unknown, b: readonly unknown[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  if (!Array.isArray(a) || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

async function runWaterfall(
  listeners: readonly ScopedListener<AssembleListener>[], assembly: PromptAssembly, context: AssembleContext,
): Promise<PromptAssembly> {
  const dispatch = async (index: number, current: PromptAssembly): Promise<PromptAssembly> => {
    if (index === listeners.length) return current
    const listener = listeners[index]
    // The rest of the waterfall, once next() started it.
    let downstream: Promise<PromptAssembly> | undefined
    let twice = false
    const next = (replacement?: PromptAssembly) => {
      if (downstream) {
        twice = true
        return quiet(Promise.reject(listenerNextTwice(listener.owner)))
      }
      // Checked even when it is the object the listener received: a listener may have broken it in place.
      const problem = assemblyProblem(replacement ?? current)
      downstream = quiet(problem ? Promise.reject(malformedAssembly(listener.owner, problem)) : dispatch(index + 1, replacement ?? current))
      return downstream
    }
    let result: unknown
    try {
      result = await listener.callback(current, context, next)
    } catch (error) {
      if (error instanceof PromptError || isAbort(error)) throw error
      throw listenerFailed(listener.owner, error)
    }
    if (twice) throw listenerNextTwice(listener.owner)
    // A failure later in the waterfall fails the assembly, even when this listener did not wait for it.
    if (downstream) await downstream
    const problem = result === undefined ? 'it returned nothing (return next() or an assembly)' : assemblyProblem(result)
    if (problem) throw malformedAssembly(listener.owner, problem)
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
  return error instanceof Error && error.name === 'AbortError'
}

/**
 * A listener's result, copied one level down (new arrays, section/context objects and variable
 * record) so a listener that keeps a reference cannot change it later; tool schemas are frozen instead.
 */
function detach(assembly: PromptAssembly): PromptAssembly {
  return {
    ...assembly,
    sections: assembly.sections.map((s) => ({ ...s })),
    contexts: assembly.contexts.map((c) => ({ ...c })),
    tools: assembly.tools.map((t) => deepFreeze(t)),
    variables: { ...assembly.variables },
  }
}
