/**
 * The checks a record's `parts` pass before they are kept: each part of a known shape with no other
 * key (a part holds exactly what a request sends back), reasoning items of their format's shape, and
 * `content` / `tool_calls` that say what the parts say. A problem is `WIRE_INVALID_PARTS` naming the
 * part. Pure and Cordis-free.
 * @module
 */
import { invalidParts } from './errors.js'
import { REASONING_FORMATS, type ContentPart, type ReplyPart } from './parts.js'
import type { ToolCall } from './record.js'

type Shape = Record<string, 'string' | 'string?' | 'string|null?' | 'array' | 'array?' | 'true' | 'object'>

const PART_SHAPES: Record<string, Shape> = {
  text: { type: 'string', text: 'string', thoughtSignature: 'string?' },
  tool_call: { type: 'string', id: 'string', thoughtSignature: 'string?' },
  image: { type: 'string', mediaType: 'string', data: 'string' },
  document: { type: 'string', mediaType: 'string', data: 'string', name: 'string?' },
  reasoning: { type: 'string', format: 'string', item: 'object' },
}

const ITEM_SHAPES: Record<string, (item: Record<string, unknown>) => Shape | undefined> = {
  anthropic: (item): Shape | undefined => item.type === 'thinking' ? { type: 'string', thinking: 'string', signature: 'string' }
    : item.type === 'redacted_thinking' ? { type: 'string', data: 'string' } : undefined,
  'openai-responses': (item) => item.type === 'reasoning'
    ? { type: 'string', id: 'string', summary: 'array', content: 'array?', encrypted_content: 'string|null?' } : undefined,
  gemini: () => ({ text: 'string', thought: 'true', thoughtSignature: 'string?' }),
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function checkShape(value: Record<string, unknown>, shape: Shape, where: string): void {
  for (const key of Object.keys(value)) if (!Object.hasOwn(shape, key)) throw invalidParts(`${where} has an unknown key ${JSON.stringify(key)}`)
  for (const [key, kind] of Object.entries(shape)) {
    const field = value[key]
    if (field === undefined && kind.endsWith('?')) continue
    const ok = kind.startsWith('string') ? typeof field === 'string' || (kind === 'string|null?' && field === null)
      : kind.startsWith('array') ? Array.isArray(field) : kind === 'true' ? field === true : isObject(field)
    if (!ok) throw invalidParts(`${where}.${key} must be ${kind.replace('?', '').replace('|', ' or ')}`)
  }
}

function checkPart(part: unknown, index: number, allowed: readonly string[]): void {
  const where = `parts[${index}]`
  if (!isObject(part)) throw invalidParts(`${where} must be an object`)
  if (typeof part.type !== 'string' || !allowed.includes(part.type)) {
    throw invalidParts(`${where}.type must be one of ${allowed.join(', ')}, found ${JSON.stringify(part.type)}`)
  }
  checkShape(part, PART_SHAPES[part.type], where)
  if (part.type !== 'reasoning') return
  if (!(REASONING_FORMATS as readonly unknown[]).includes(part.format)) {
    throw invalidParts(`${where}.format must be one of ${REASONING_FORMATS.join(', ')}, found ${JSON.stringify(part.format)}`)
  }
  const item = part.item as Record<string, unknown>
  const shape = ITEM_SHAPES[part.format as string](item)
  if (!shape) throw invalidParts(`${where}.item is not a ${part.format as string} reasoning item (type ${JSON.stringify(item.type)})`)
  checkShape(item, shape, `${where}.item`)
}

function textOf(parts: readonly { type: string; text?: string }[]): string | null {
  const texts = parts.filter((part) => part.type === 'text').map((part) => part.text as string)
  return texts.length ? texts.join('') : null
}

/** Checks the `parts` of a reply against its `content` and `tool_calls`; throws `WIRE_INVALID_PARTS`. */
export function checkReplyParts(parts: unknown, content: string | null, calls: readonly ToolCall[]): asserts parts is ReplyPart[] {
  if (!Array.isArray(parts) || !parts.length) throw invalidParts('must be a non-empty array')
  parts.forEach((part, index) => checkPart(part, index, ['text', 'tool_call', 'image', 'reasoning']))
  const text = textOf(parts as ReplyPart[])
  if (content !== text) throw invalidParts(`content must be the text parts joined (${JSON.stringify(text)}), found ${JSON.stringify(content)}`)
  const ids = (parts as ReplyPart[]).flatMap((part) => (part.type === 'tool_call' ? [part.id] : []))
  if (ids.length !== calls.length || ids.some((id, i) => calls[i].id !== id)) {
    throw invalidParts(`the tool_call parts (${ids.join(', ') || 'none'}) must name the tool_calls in order (${calls.map((call) => call.id).join(', ') || 'none'})`)
  }
}

/** Checks the `parts` of user input or a tool result against its `content`; throws `WIRE_INVALID_PARTS`. */
export function checkContentParts(parts: unknown, content: string): asserts parts is ContentPart[] {
  if (!Array.isArray(parts) || !parts.length) throw invalidParts('must be a non-empty array')
  parts.forEach((part, index) => checkPart(part, index, ['text', 'image', 'document']))
  for (const [index, part] of (parts as ContentPart[]).entries()) {
    if (part.type === 'text' && part.thoughtSignature !== undefined) throw invalidParts(`parts[${index}] has an unknown key "thoughtSignature"`)
  }
  const text = textOf(parts as ContentPart[]) ?? ''
  if (content !== text) throw invalidParts(`content must be the text parts joined (${JSON.stringify(text)}), found ${JSON.stringify(content)}`)
}
