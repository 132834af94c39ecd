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
import { deepFreeze } from './freeze.js'
import type { ResolvedView, TextEntry, ToolsEntry } from './registry.js'
import { checkToolOrder, orderTools, TOOL_ORDER_REST } from './tool-order.js'
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
      throw providerReturned(`prompt variable "${entry.name}" provider`, entry.owner, 'a string or undefined', value)
    }
    variables[entry.name] = value
  }
  const tools = collectTools(view.tools, context, input.toolOrder)
  const complete = view.complete.length ? sections.find((s) => s.complete) : undefined

  signal?.throwIfAborted()
  let assembly: PromptAssembly = { sections, contexts, tools, variables }
  if (input.listeners.length) {
    const pristine = complete && { ...complete }
    assembly = await runWaterfall(input.listeners, assembly, context)
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
      throw providerReturned(`prompt ${entry.kind} "${entry.name}" text provider`, entry.owner, 'a string', text)
    }
  }
  const result: AssembledSection = { name: entry.name, order: entry.order, text: text as string, owner: entry.owner }
  if (entry.scope !== undefined) result.scope = entry.scope
  if (entry.complete) result.complete = true
  if (!entry.interpolate) result.interpolate = false
  return result
}

function collectTools(providers: readonly ToolsEntry[], context: AssembleContext, order: readonly string[] | undefined): ToolSchema[] {
  if (!providers.length && !order) return []
  const tools: ToolSchema[] = []
  const owners = new Map<string, string>()
  const known = new Set<string>()
  for (const entry of providers) {
    let result: unknown
    try {
      result = entry.provider(context)
    } catch (error) {
      throw providerFailed('tool provider', entry.owner, error)
    }
    const schemas = (result as { schemas?: unknown } | null)?.schemas
    if (typeof result !== 'object' || result === null || !Array.isArray(schemas)) {
      throw providerReturned('tool provider', entry.owner, 'an object { schemas: ToolSchema[], knownNames? }', result)
    }
    for (let i = 0; i < schemas.length; i++) {
      const schema = schemas[i] as ToolSchema
      if (typeof schema !== 'object' || schema === null || typeof schema.name !== 'string' || !schema.name) {
        throw providerReturned('tool provider', entry.owner, `a schema with a non-empty string name at index ${i}`, schema)
      }
      if (schema.name === TOOL_ORDER_REST) throw reservedToolName(TOOL_ORDER_REST, entry.owner)
      const previous = owners.get(schema.name)
      if (previous !== undefined) throw duplicateToolName(schema.name, [previous, entry.owner])
      owners.set(schema.name, entry.owner)
      tools.push(deepFreeze(schema))
    }
    const knownNames = (result as { knownNames?: unknown }).knownNames
    if (knownNames === undefined) {
      for (const schema of schemas) known.add((schema as ToolSchema).name)
    } else if (Array.isArray(knownNames) && knownNames.every((n) => typeof n === 'string')) {
      for (const name of knownNames) known.add(name)
      for (const schema of schemas) known.add((schema as ToolSchema).name)
    } else {
      throw providerReturned('tool provider', entry.owner, 'knownNames as an array of strings', knownNames)
    }
  }
  const problem = checkToolOrder(order, known)
  if (problem) throw problem
  return orderTools(tools, order)
}

async function runWaterfall(
  listeners: readonly ScopedListener<AssembleListener>[], assembly: PromptAssembly, context: AssembleContext,
): Promise<PromptAssembly> {
  const dispatch = async (index: number, current: PromptAssembly): Promise<PromptAssembly> => {
    if (index === listeners.length) return current
    const listener = listeners[index]
    let called = false
    const next = (replacement?: PromptAssembly) => {
      if (called) return Promise.reject(listenerNextTwice(listener.owner))
      called = true
      const handed = replacement ?? current
      const problem = assemblyProblem(handed)
      if (problem) return Promise.reject(malformedAssembly(listener.owner, problem))
      return dispatch(index + 1, handed)
    }
    let result: unknown
    try {
      result = await listener.callback(current, context, next)
    } catch (error) {
      if (error instanceof PromptError || isAbort(error)) throw error
      throw listenerFailed(listener.owner, error)
    }
    const problem = result === undefined ? 'it returned nothing (return next() or an assembly)' : assemblyProblem(result)
    if (problem) throw malformedAssembly(listener.owner, problem)
    return result as PromptAssembly
  }
  return dispatch(0, assembly)
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError'
}

/** The first structural problem of a listener's result, or `undefined`. */
export function assemblyProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `expected an assembly object, got ${value === null ? 'null' : typeof value}`
  const assembly = value as Partial<PromptAssembly>
  for (const key of ['sections', 'contexts'] as const) {
    const list = assembly[key]
    if (!Array.isArray(list)) return `${key} is not an array`
    const names = new Set<string>()
    for (let i = 0; i < list.length; i++) {
      const item = list[i] as Partial<AssembledSection>
      const where = `${key}[${i}]`
      if (typeof item !== 'object' || item === null) return `${where} is not an object`
      if (typeof item.name !== 'string' || !item.name) return `${where} has no name`
      if (typeof item.text !== 'string') return `${where} (${JSON.stringify(item.name)}) text is not a string`
      if (!Number.isFinite(item.order)) return `${where} (${JSON.stringify(item.name)}) order is not a finite number`
      if (names.has(item.name)) return `${key} contain ${JSON.stringify(item.name)} twice`
      names.add(item.name)
    }
  }
  if (!Array.isArray(assembly.tools)) return 'tools is not an array'
  const tools = new Set<string>()
  for (let i = 0; i < assembly.tools.length; i++) {
    const tool = assembly.tools[i]
    if (typeof tool !== 'object' || tool === null || typeof tool.name !== 'string' || !tool.name) return `tools[${i}] has no name`
    if (tools.has(tool.name)) return `tools contain ${JSON.stringify(tool.name)} twice`
    tools.add(tool.name)
  }
  if (typeof assembly.variables !== 'object' || assembly.variables === null) return 'variables is not an object'
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
