/**
 * Detachment of tool schemas without a copy per assembly: a schema is deeply frozen the first time an
 * assembly sees it, then the same object is reused. Nothing can mutate it afterwards (a write throws in
 * strict-mode code), so handing it to every assembly and every listener cannot leak a change into the
 * registry or into a later assembly. See `.agents/notes/2026-11-30-assembly-detachment.md`.
 *
 * All or nothing: the whole schema is walked (and every problem found) before anything is frozen, and a
 * schema found unfreezable is remembered, so it fails every assembly that includes it, never only the
 * first, and is never left half-frozen.
 * @module
 */

import { messageOf, schemaAccessor, schemaNotJson, schemaTooDeep, schemaUnreadable, toolSchemaUnfreezable } from './errors.js'
import type { ToolShapes } from './tool-check.js'
import type { AssembledContext, AssembledSection, PromptAssembly, ToolSchema } from './types.js'

/*
 * The two module-wide tables of the assembly path (the others are `watching` in `assemble.ts`, whose
 * entries go when their assembly ends, and the text cache of `interpolate.ts`, bounded at 2,048 texts).
 * Module-wide on purpose: "deeply frozen by dsh" and "refused" are facts about an object, whoever
 * holds it, and two services in one process may share schemas. Keyed by the schema objects (and what
 * they hold); an entry goes when its object is collected, and the table keeps its high-water size. The
 * keys are what providers return, which they keep for their life on the fast path, plus the values of
 * tools a listener adds (new objects at each assembly only if the listener makes them so).
 * See `.agents/notes/2026-12-01-assembly-model-test.md`, "Module-wide tables".
 */
const frozen = new WeakSet<object>()
/** Schemas found unfreezable, with the error each failed with: they fail the same way every time. */
const refused = new WeakMap<object, Error>()
/** How deep the freeze walk follows a schema. */
const DEPTH_LIMIT = 256

/**
 * Deeply freezes `value` once; later calls on the same object cost one WeakSet lookup. Throws (and
 * freezes nothing) when it cannot: nested more than 256 levels, an accessor property, a cycle, a BigInt,
 * or a Proxy whose traps throw. `path` names the value in messages (`parameters`).
 */
export function deepFreeze<T>(value: T, path = ''): T {
  if (typeof value !== 'object' || value === null || frozen.has(value)) return value
  const known = refused.get(value)
  if (known) throw known
  const found: object[] = []
  try {
    collect(value, 0, path, new Set(), found)
    for (const object of found) Object.freeze(object)
  } catch (error) {
    const failure = error instanceof Error ? error : schemaUnreadable(path, messageOf(error))
    refused.set(value, failure)
    throw failure
  }
  for (const object of found) frozen.add(object)
  return value
}

/** Every object under `value` not yet frozen, checked to be plain JSON-like data; `ancestors` detect cycles. */
function collect(value: object, depth: number, path: string, ancestors: Set<object>, found: object[]): void {
  if (frozen.has(value)) return
  if (depth > DEPTH_LIMIT) throw schemaTooDeep(DEPTH_LIMIT)
  let keys: (string | symbol)[]
  try {
    keys = Reflect.ownKeys(value)
  } catch (error) {
    throw schemaUnreadable(path, messageOf(error))
  }
  ancestors.add(value)
  found.push(value)
  for (const key of keys) {
    const at = typeof key === 'string' ? (path ? `${path}.${key}` : key) : `${path}[${String(key)}]`
    let descriptor: PropertyDescriptor | undefined
    try {
      descriptor = Reflect.getOwnPropertyDescriptor(value, key)
    } catch (error) {
      throw schemaUnreadable(at, messageOf(error))
    }
    if (!descriptor) continue
    if (!('value' in descriptor)) throw schemaAccessor(at)
    const child: unknown = descriptor.value
    if (typeof child === 'bigint') throw schemaNotJson(at, 'holds a bigint')
    if (typeof child !== 'object' || child === null) continue
    if (ancestors.has(child)) throw schemaNotJson(at, 'refers back to itself')
    collect(child, depth + 1, at, ancestors, found)
  }
  ancestors.delete(value)
}

/**
 * A listener's result, copied one level down (new arrays, section/context/tool objects and variable
 * record) so a listener that keeps a reference cannot change it later. The result is exactly as
 * mutable as an assembly no listener saw: every entry and tool is its own object, a tool's top-level
 * fields are writable and what they hold is deeply frozen (see `docs/guarantees.md`, "mutability").
 * `handed` are the tool copies as the assembly handed them to the waterfall (a snapshot taken then, not
 * the array the listeners received, which they may have changed in place), `originals` the frozen
 * schemas they were copied from and `shapes` what is known of each original, index for index: a plain
 * copy that is still plain is copied by one literal (so a symbol-keyed property a listener set on it,
 * which no request body carries, is not kept); any other tool is spread once what it holds is frozen.
 */
export function detach(assembly: PromptAssembly, handed: readonly ToolSchema[], originals: readonly ToolSchema[], shapes: ToolShapes): PromptAssembly {
  const tools = assembly.tools
  const detached = new Array<ToolSchema>(tools.length)
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i]
    detached[i] = i < handed.length && handed[i] === tool && shapes.plain[i] && stillPlain(tool, originals[i])
      ? { name: tool.name, description: tool.description, parameters: tool.parameters }
      : { ...freezeToolValues(tool, undefined) }
  }
  const sections = assembly.sections.map(copyEntry)
  const contexts = assembly.contexts.map(copyEntry)
  const variables = { ...assembly.variables }
  // A result holding only the four lists is built as a literal (one shape, and its notes install fast).
  if (onlyTheParts(assembly)) return { sections, contexts, tools: detached, variables }
  return { ...assembly, sections, contexts, tools: detached, variables }
}

/** Whether `assembly` has no enumerable field besides the four lists (no other key, no symbol key). */
function onlyTheParts(assembly: PromptAssembly): boolean {
  for (const key in assembly) if (key !== 'sections' && key !== 'contexts' && key !== 'tools' && key !== 'variables') return false
  return Object.getOwnPropertySymbols(assembly).length === 0
}

/**
 * A shallow copy of a section or context. The spreads are the same, but each one is a site of its own
 * for a family of shapes (another plugin's or a listener's entry, a scoped entry, a banded or verbatim
 * one, a plain one): V8 copies an object fast only at a site that has seen at most four shapes, and an
 * assembly holds more than that. One spread for all measured about 1.5 µs slower per heavy assembly.
 */
function copyEntry<E extends AssembledSection | AssembledContext>(entry: E): E {
  if (entry.owner === undefined) return { ...entry }
  if (entry.scope !== undefined) return { ...entry }
  if ((entry as AssembledSection).band !== undefined || entry.interpolate !== undefined) return { ...entry }
  return { ...entry }
}

/**
 * Whether a plain schema's copy (see `ToolShapes.plain`) is still plain: its `name`, `description` and
 * `parameters` only, the last two defined, and its original's `parameters` (deeply frozen), so one
 * literal copies it whole. Its name and description may have been rewritten: the literal copies them.
 */
function stillPlain(copy: ToolSchema, original: ToolSchema): boolean {
  if (copy.parameters !== original.parameters || copy.description === undefined) return false
  let count = 0
  for (const _ in copy) count++
  return count === 3
}

/**
 * The tool schemas as an assembly hands them out: a shallow copy of each registered, deeply frozen
 * schema, so a listener may reassign its top-level fields (`description += ' (beta)'`, as plugins
 * written for the published package do) while the registry and later assemblies keep theirs.
 * `parameters` stay frozen and shared: copying them per assembly is what made the published
 * implementation slow. A plain schema is copied by one object literal (one shape for every copy; a
 * spread of a frozen object takes V8's slow path).
 */
export function copyTools(tools: readonly ToolSchema[], shapes: ToolShapes): ToolSchema[] {
  const copies = new Array<ToolSchema>(tools.length)
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i]
    copies[i] = shapes.plain[i] ? { name: tool.name, description: tool.description, parameters: tool.parameters } : { ...tool }
  }
  return copies
}

/**
 * Deeply freezes what `tool` holds below its top level (a lookup each when already frozen) and returns
 * it; a value that cannot be frozen fails naming the tool and `owner`, the plugin that handed it on.
 */
export function freezeToolValues(tool: ToolSchema, owner: string | undefined): ToolSchema {
  for (const key in tool) {
    const value = tool[key]
    if (typeof value !== 'object' || value === null) continue
    try {
      deepFreeze(value, key)
    } catch (error) {
      throw toolSchemaUnfreezable(tool.name, owner ?? '(unknown)', error)
    }
  }
  return tool
}
