/**
 * The tool check of an assembly (R-TOOL): every tool provider of the view consulted once, the schemas
 * validated and frozen, `toolOrder` checked against every known name, the result cached per view while
 * the providers hand back the same elements. Cordis-free.
 * @module
 */
import type { ScopeKey } from 'dsh-scope'
import {
  duplicateToolName, PromptError, providerFailed, providerReturned, reservedToolName, toolSchemaUnfreezable, toolOrderUnregistered,
  type CodedError,
} from './errors.js'
import { deepFreeze, type ToolShapes } from './freeze.js'
import type { ListFacts } from './hand-off.js'
import { settleQuietly } from './promises.js'
import type { ResolvedView } from './registry.js'
import { compareCodeUnits, orderTools, TOOL_ORDER_REST, unregisteredTools } from './tool-order.js'
import type { AssembleContext, ToolSchema } from './types.js'

/**
 * The tool check of one assembly (R-TOOL), computed once from the tool providers' results: what the
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
  /** The plugin whose provider returned each visible tool (the first one, when a name clashes). */
  readonly owners: ReadonlyMap<string, string>
  /** The error the assembly rejects with for these problems (reserved name first), if any. */
  readonly problem?: CodedError<PromptError, 'PROMPT_TOOL_ORDER_UNREGISTERED' | 'PROMPT_RESERVED_TOOL_NAME'>
}

interface ProviderResult {
  readonly schemas: readonly unknown[]
  readonly knownNames: readonly unknown[] | undefined
  readonly layers: ReadonlyMap<string, ScopeKey | undefined> | undefined
}

/** The last tool check of a view, and the provider results it was made from (kept in the view's `CompiledView`). */
export interface ToolCache {
  readonly results: readonly ProviderResult[]
  readonly check: ToolCheck
  /** The shapes of `check.tools`, once asked for. */
  shapes?: ToolShapes
}

const NO_TOOLS: ToolCheck = Object.freeze({
  tools: Object.freeze([]), names: new Set<string>(), known: Object.freeze([]), unregistered: Object.freeze([]),
  reserved: Object.freeze([]), layers: new Map(), owners: new Map(),
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
  const cache = view.compiled.tools
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
  const toolOwners = new Map<string, string>()
  for (const [name, list] of owners) toolOwners.set(name, list[0])
  let check: ToolCheck
  if (reserved.length) {
    check = { tools, names: new Set(owners.keys()), known: sortedKnown, unregistered: [], reserved, layers, owners: toolOwners, problem: reservedToolName(TOOL_ORDER_REST, reserved[0]) }
  } else {
    let clash: string | undefined
    for (const [name, list] of owners) if (list.length > 1 && (clash === undefined || compareCodeUnits(name, clash) < 0)) clash = name
    if (clash !== undefined) throw duplicateToolName(clash, owners.get(clash)!.sort(compareCodeUnits))
    const unregistered = unregisteredTools(order, known)
    check = {
      tools: unregistered.length ? tools : orderTools(tools, order), names: new Set(owners.keys()), known: sortedKnown, unregistered, reserved, layers, owners: toolOwners,
      problem: unregistered.length ? toolOrderUnregistered(unregistered, sortedKnown) : undefined,
    }
  }
  // Copies: a provider may refill its own arrays, or move a tool to another layer in its Map, in place
  // before the next assembly.
  const kept = results.map((r) => ({ schemas: r.schemas.slice(), knownNames: r.knownNames?.slice(), layers: r.layers && new Map(r.layers) }))
  view.compiled.tools = { results: kept, check }
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
  return b !== undefined && sameElements(a.schemas, b.schemas) && sameElements(a.knownNames, b.knownNames) && sameLayers(a.layers, b.layers)
}

/** Whether two `layers` maps hold the same entries (a Map is not frozen: the same Map may hold others now). */
function sameLayers(a: ReadonlyMap<string, ScopeKey | undefined> | undefined, b: ReadonlyMap<string, ScopeKey | undefined> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  if (a.size !== b.size) return false
  // Keys, not entries: an entry is a new array at each step of the loop.
  for (const name of a.keys()) if (b.get(name) !== a.get(name) || !b.has(name)) return false
  return true
}

function sameElements(a: unknown, b: readonly unknown[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  if (!Array.isArray(a) || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export type { ToolShapes } from './freeze.js'

const PLAIN_KEYS = ['name', 'description', 'parameters']

/**
 * The shapes of the tools of `check` (a check of `view`): kept with the view's cached check, so an
 * assembly whose providers returned the same schemas looks at none of them.
 */
export function toolShapes(view: ResolvedView, check: ToolCheck): ToolShapes {
  const cache = view.compiled.tools
  if (cache?.check === check && cache.shapes) return cache.shapes
  const plain: boolean[] = []
  for (const tool of check.tools) {
    const keys = Reflect.ownKeys(tool)
    let count = 0
    for (const _ in tool) count++
    plain.push(count === 3 && keys.length === 3 && keys.every((key, i) => key === PLAIN_KEYS[i]) && tool.description !== undefined && tool.parameters !== undefined)
  }
  const tools = check.tools
  const facts = { names: tools.map((tool) => tool.name), extras: tools.map((tool) => tool.parameters) }
  const shapes = { plain, facts, descriptions: tools.map((tool) => tool.description) }
  if (cache?.check === check) cache.shapes = shapes
  return shapes
}
