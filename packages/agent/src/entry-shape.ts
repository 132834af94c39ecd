/**
 * The one validator of what the conversation record holds from outside: a model reply (content, tool
 * calls, their arguments), a tool result and a usage record. `agent.record()` and `readLedger()` (so
 * `agents.restore()` and `dsh-prompt history`) read through it, so a ledger line is accepted exactly
 * when `record()` would accept its message, and both get the same copy: plain JSON data, frozen, in the
 * order the record keeps (the canonical form the ledger writes). Pure and Cordis-free.
 *
 * New kinds of tool call (or of content part) are rows of {@link TOOL_CALL_SHAPES}.
 * @module
 */
import {
  checkContentParts, checkReplyParts, type AssistantMessage, type ContentPart, type ProviderMiss, type ReplyFacts, type ReplyPart, type ToolCall, type ToolMessage, type Usage, type WireTool,
} from 'dsh-wire'

/**
 * A shape problem (`problem` names the field, `tool_calls[0].function.name`). Internal: `record()` and
 * the ledger reader catch it and throw their package's coded error (`invalidRecord`,
 * `ledgerInvalidEntry`) naming the agent or the line; it never reaches a user as it is.
 */
export class EntryShapeError extends Error {
  constructor(readonly problem: string) {
    super(problem)
  }
}

/** Throws the shape problem `problem` (it names the field, `tool_calls[0].function.name`). */
export function fail(problem: string): never {
  throw new EntryShapeError(problem)
}

/**
 * The tool-call kinds the record holds, by `type`: the object that carries the call (`function`,
 * `custom`) and its two string fields, the tool's name and the text the model wrote for it.
 */
export const TOOL_CALL_SHAPES: Readonly<Record<string, { readonly body: string; readonly text: string }>> = {
  function: { body: 'function', text: 'arguments' },
  custom: { body: 'custom', text: 'input' },
}

/** The keys of a normalised usage record, in the order the record and the ledger keep them. */
export const USAGE_KEYS = ['inputTokens', 'cachedReadTokens', 'cacheWriteTokens', 'outputTokens'] as const

const MAX_DEPTH = 64

/** A model reply as the record keeps it: content `null` when absent, empty `tool_calls` left out, every call checked and copied. */
export function replyShape(message: { content?: unknown; tool_calls?: unknown; parts?: unknown }): AssistantMessage {
  const content = message.content === undefined ? null : message.content
  if (content !== null && typeof content !== 'string') fail('assistant content must be a string or null')
  const calls = message.tool_calls
  if (calls !== undefined && !Array.isArray(calls)) fail('tool_calls must be an array')
  const list = (calls ?? []) as unknown[]
  if (content === null && !list.length && message.parts === undefined) fail('an assistant message needs content or tool_calls')
  const reply: AssistantMessage = { role: 'assistant', content: content as string | null }
  if (list.length) reply.tool_calls = Object.freeze(list.map((call, index) => toolCallShape(call, `tool_calls[${index}]`))) as ToolCall[]
  if (message.parts !== undefined) reply.parts = partsShape(message.parts, (parts) => checkReplyParts(parts, reply.content, reply.tool_calls ?? [])) as ReplyPart[]
  return reply
}

/** One tool call, checked against {@link TOOL_CALL_SHAPES} and copied as frozen JSON data (its key order kept). */
function toolCallShape(call: unknown, path: string): ToolCall {
  if (!isRecord(call)) fail(`${path} must be a tool call object ({ id, type, function: { name, arguments } }), found ${kind(call)}`)
  const copy = jsonData(call, path, 0) as Record<string, unknown>
  if (typeof copy.id !== 'string' || !copy.id) fail(`${path}.id must be a non-empty string`)
  const shape = typeof copy.type === 'string' && Object.hasOwn(TOOL_CALL_SHAPES, copy.type) ? TOOL_CALL_SHAPES[copy.type] : undefined
  if (!shape) fail(`${path}.type must be one of ${Object.keys(TOOL_CALL_SHAPES).map((type) => JSON.stringify(type)).join(', ')}, found ${JSON.stringify(copy.type) ?? 'nothing'}`)
  const body = copy[shape!.body]
  if (!isRecord(body)) fail(`${path}.${shape!.body} must be an object with name and ${shape!.text}`)
  const { name, [shape!.text]: text } = body as Record<string, unknown>
  if (typeof name !== 'string' || !name) fail(`${path}.${shape!.body}.name must be a non-empty string`)
  if (typeof text !== 'string') fail(`${path}.${shape!.body}.${shape!.text} must be a string (the JSON text the model wrote)`)
  return copy as unknown as ToolCall
}

/** A tool result as the record keeps it. */
export function toolResultShape(message: { tool_call_id?: unknown; content?: unknown; name?: unknown; parts?: unknown }): ToolMessage {
  if (typeof message.tool_call_id !== 'string' || !message.tool_call_id) fail('a tool message needs a tool_call_id')
  if (typeof message.content !== 'string') fail('tool content must be a string')
  if (message.name !== undefined && (typeof message.name !== 'string' || !message.name)) fail('a tool message\'s name must be a non-empty string when given')
  const result: ToolMessage = { role: 'tool', content: message.content as string, tool_call_id: message.tool_call_id as string }
  if (message.name !== undefined) result.name = message.name as string
  if (message.parts !== undefined) result.parts = partsShape(message.parts, (parts) => checkContentParts(parts, result.content)) as ContentPart[]
  return result
}

/** User input as the record keeps it: its text, and its content parts (text, images, documents) when it has them. */
export function userInputShape(message: { content?: unknown; parts?: unknown }): { role: 'user'; content: string; parts?: ContentPart[] } {
  if (typeof message.content !== 'string') fail('user content must be a string')
  const input: { role: 'user'; content: string; parts?: ContentPart[] } = { role: 'user', content: message.content as string }
  if (message.parts !== undefined) input.parts = partsShape(message.parts, (parts) => checkContentParts(parts, input.content)) as ContentPart[]
  return input
}

/**
 * A tool-change note's `toolAdditions` (R-TOOL-13) as the record keeps them: an array of tools, each a
 * name with an optional description and an optional parameters object, copied as frozen JSON data.
 */
export function toolAdditionsShape(value: unknown): WireTool[] {
  const copy = jsonData(value, 'toolAdditions', 0)
  if (!Array.isArray(copy) || !copy.length) fail('toolAdditions must be a non-empty array of tools')
  for (const [i, item] of (copy as unknown[]).entries()) {
    const tool = item as Record<string, unknown>
    if (typeof tool !== 'object' || tool === null || Array.isArray(tool) || typeof tool.name !== 'string') fail(`toolAdditions[${i}] must be a tool with a string name`)
    for (const key of Object.keys(tool)) if (key !== 'name' && key !== 'description' && key !== 'parameters') fail(`toolAdditions[${i}] has no key ${JSON.stringify(key)}`)
    if (tool.description !== undefined && typeof tool.description !== 'string') fail(`toolAdditions[${i}].description must be a string`)
    if (tool.parameters !== undefined && (typeof tool.parameters !== 'object' || tool.parameters === null || Array.isArray(tool.parameters))) fail(`toolAdditions[${i}].parameters must be an object`)
  }
  return copy as WireTool[]
}

/**
 * Content parts (reasoning state, images, documents: `dsh-wire`'s part rules, run by `check`) copied as
 * frozen JSON data; a part the rules refuse is a shape problem naming `parts`.
 */
export function partsShape(parts: unknown, check: (parts: unknown) => void): unknown {
  const copy = jsonData(parts, 'parts', 0)
  try {
    check(copy)
  } catch (error) {
    fail(`parts cannot be recorded: ${(error as Error).message}`)
  }
  return copy
}

/**
 * A usage record as the record keeps it: exactly the four figures, in their fixed order, each a finite
 * count of at least 0 or `null`; each figure is read once, and nothing else of `value` is kept (a
 * `toJSON` or extra key included). `what` names the value in the problem.
 */
/** What the provider said about a reply (its id, its diagnosis), checked and copied: `{ id, format, miss? }`. */
export function replyFactsShape(value: unknown): ReplyFacts {
  if (!isRecord(value)) fail('reply must be { id, format, miss? } (the provider\'s id of the reply, its format)')
  const { id, format, miss } = value as Record<string, unknown>
  if (typeof id !== 'string' || !id) fail('reply.id must be a non-empty string')
  if (typeof format !== 'string' || !format) fail('reply.format must be a non-empty string')
  if (miss === undefined) return { id: id as string, format: format as string }
  if (!isRecord(miss) || typeof miss.reason !== 'string' || typeof miss.class !== 'string' || (miss.missedTokens !== undefined && typeof miss.missedTokens !== 'number')) {
    fail('reply.miss must be { reason, class, missedTokens? }')
  }
  const m = miss as { reason: string; class: ProviderMiss['class']; missedTokens?: number }
  return { id: id as string, format: format as string, miss: { reason: m.reason, class: m.class, ...(m.missedTokens === undefined ? {} : { missedTokens: m.missedTokens }) } }
}

export function usageShape(value: unknown, what = 'usage'): Usage {
  if (!isRecord(value)) fail(`${what} must be a normalised usage record ({ inputTokens, cachedReadTokens, cacheWriteTokens, outputTokens }) or come with its provider format`)
  const usage = {} as Usage
  for (const key of USAGE_KEYS) {
    const figure = (value as Record<string, unknown>)[key]
    if (figure !== null && !(typeof figure === 'number' && Number.isFinite(figure) && figure >= 0)) {
      fail(`${what}.${key} is ${describeFigure(figure)}; each figure is a finite count of at least 0, or null when the provider did not report it`)
    }
    usage[key] = figure as number | null
  }
  return usage
}

function describeFigure(figure: unknown): string {
  if (typeof figure === 'number') return String(figure)
  if (figure === undefined) return 'missing'
  return kind(figure)
}

/**
 * A deep copy of `value` as frozen JSON data: `null`, booleans, strings, finite numbers, arrays and
 * plain objects of own enumerable data properties. Anything JSON would change or drop (a function, a
 * `toJSON`, `undefined`, `NaN`, a BigInt, a symbol key, an accessor, a class instance, a cycle) is a
 * problem naming its path.
 */
export function jsonData(value: unknown, path: string, depth: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : fail(`${path} is ${value} (not JSON data)`)
  if (typeof value !== 'object') return fail(`${path} is ${kind(value)} (not JSON data)`)
  if (depth >= MAX_DEPTH) fail(`${path} is nested more than ${MAX_DEPTH} levels deep (or holds a cycle)`)
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) fail(`${path} is not a plain array`)
    const out: unknown[] = []
    for (let i = 0; i < value.length; i++) {
      const slot = Object.getOwnPropertyDescriptor(value, i)
      if (!slot || !('value' in slot)) fail(`${path}[${i}] is ${slot ? 'an accessor' : 'a hole'} (not JSON data)`)
      out.push(jsonData(slot!.value, `${path}[${i}]`, depth + 1))
    }
    return Object.freeze(out)
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) fail(`${path} is ${kind(value)}, not a plain object`)
  const out: Record<string, unknown> = {}
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key === 'symbol') fail(`${path} has a symbol key (not JSON data)`)
    const where = `${path}.${key as string}`
    const slot = Object.getOwnPropertyDescriptor(value, key)!
    if (!('value' in slot)) fail(`${where} is an accessor (not JSON data)`)
    if (!slot.enumerable) fail(`${where} is not enumerable (not JSON data)`)
    // Defined, not assigned: a key "__proto__" stays an own key, as JSON.parse makes it.
    Object.defineProperty(out, key, { value: jsonData(slot.value, where, depth + 1), enumerable: true, writable: true, configurable: true })
  }
  return Object.freeze(out)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What a value is, for a problem (never throws, never calls the value's own code). */
function kind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'bigint') return `a bigint (${value})`
  if (typeof value === 'string') return `a string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value)
    const name = proto && typeof proto.constructor === 'function' ? proto.constructor.name : ''
    return name && name !== 'Object' ? `an instance of ${name}` : 'an object'
  }
  return `a ${typeof value}`
}
