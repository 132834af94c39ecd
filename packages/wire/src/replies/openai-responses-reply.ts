/**
 * `openai-responses` replies: a Response's `output` items read into the record in order (`reasoning`
 * items with their summary and, when the request asked for `include: ["reasoning.encrypted_content"]`,
 * `encrypted_content`; `message` items as text; `function_call` and `custom_tool_call` items as tool
 * calls by `call_id`), and the `response.*` stream put back together as the Response: every
 * `response.output_item.done` event carries its whole item at `output_index` (the `*.delta` events
 * repeat it piece by piece, for display), and `response.completed` the usage. Pure and Cordis-free.
 * @module
 */
import { responsesMiss } from '../provider-miss.js'
import { invalidReply, unsupportedReplyItem } from '../errors.js'
import type { ResponsesReasoningItem } from '../parts.js'
import { normalizeUsage } from '../providers/registry.js'
import { arrayAt, objectAt, replyMessage, stringAt, type ReadReply, type ReadReplyOptions, type ReplyAccumulator, type ReplyPiece } from './reply.js'

const FORMAT = 'openai-responses'

/** The fields of a Response the reader reads (`OpenAI.Responses.Response` has them). */
export interface ResponsesReply {
  id?: string
  object?: 'response'
  model?: string
  status?: string
  output: object[]
  usage?: object | null
}

/** The record's reply for a Response. */
export function readResponsesReply(reply: unknown, options: ReadReplyOptions = {}): ReadReply {
  const root = objectAt(FORMAT, reply, 'reply')
  const pieces: ReplyPiece[] = []
  arrayAt(FORMAT, root.output, 'output').forEach((value, i) => {
    const path = `output[${i}]`
    const item = objectAt(FORMAT, value, path)
    switch (item.type) {
      case 'reasoning':
        pieces.push({ type: 'reasoning', format: FORMAT, item: reasoningItem(item, path) })
        break
      case 'message':
        pieces.push({ type: 'text', text: messageText(item, path) })
        break
      case 'function_call':
        pieces.push({ type: 'tool_call', call: { id: stringAt(FORMAT, item.call_id, `${path}.call_id`), type: 'function', function: {
          name: stringAt(FORMAT, item.name, `${path}.name`), arguments: stringAt(FORMAT, item.arguments, `${path}.arguments`),
        } } })
        break
      case 'custom_tool_call':
        pieces.push({ type: 'tool_call', call: { id: stringAt(FORMAT, item.call_id, `${path}.call_id`), type: 'custom', custom: {
          name: stringAt(FORMAT, item.name, `${path}.name`), input: stringAt(FORMAT, item.input, `${path}.input`),
        } } })
        break
      default:
        throw unsupportedReplyItem(FORMAT, path, String(item.type))
    }
  })
  const read: ReadReply = { message: replyMessage(pieces) }
  if (root.usage !== undefined && root.usage !== null) read.usage = normalizeUsage(options.usage ?? FORMAT, root.usage)
  if (typeof root.id === 'string' && root.id) read.id = root.id
  const miss = responsesMiss(root.prompt_cache_diagnostics)
  if (miss) read.miss = miss
  return read
}

/** A reasoning item as the next request sends it back: id, summary, content and encrypted content when given (not its `status`). */
function reasoningItem(item: Record<string, unknown>, path: string): ResponsesReasoningItem {
  const texts = (key: string, type: string) => arrayAt(FORMAT, item[key], `${path}.${key}`).map((value, j) => {
    const part = objectAt(FORMAT, value, `${path}.${key}[${j}]`)
    if (part.type !== type) throw invalidReply(FORMAT, `${path}.${key}[${j}].type`, `must be ${JSON.stringify(type)}, found ${JSON.stringify(part.type)}`)
    return { type, text: stringAt(FORMAT, part.text, `${path}.${key}[${j}].text`) }
  })
  const kept: ResponsesReasoningItem = {
    type: 'reasoning', id: stringAt(FORMAT, item.id, `${path}.id`), summary: texts('summary', 'summary_text') as ResponsesReasoningItem['summary'],
  }
  if (item.content !== undefined && item.content !== null) kept.content = texts('content', 'reasoning_text') as ResponsesReasoningItem['content']
  if (item.encrypted_content !== undefined && item.encrypted_content !== null) kept.encrypted_content = stringAt(FORMAT, item.encrypted_content, `${path}.encrypted_content`)
  return kept
}

/** The text of a message item: its `output_text` parts (and a `refusal`'s words) joined. */
function messageText(item: Record<string, unknown>, path: string): string {
  return arrayAt(FORMAT, item.content, `${path}.content`).map((value, j) => {
    const part = objectAt(FORMAT, value, `${path}.content[${j}]`)
    if (part.type === 'output_text') return stringAt(FORMAT, part.text, `${path}.content[${j}].text`)
    if (part.type === 'refusal') return stringAt(FORMAT, part.refusal, `${path}.content[${j}].refusal`)
    throw unsupportedReplyItem(FORMAT, `${path}.content[${j}]`, String(part.type))
  }).join('')
}

/** Puts a Responses stream (`response.created` ... `response.completed`) back together as the Response. */
export function responsesReplyAccumulator(): ReplyAccumulator<ResponsesReply> {
  let shell: Record<string, unknown> = {}
  const output: Record<string, unknown>[] = []
  return {
    push(event) {
      const value = objectAt(FORMAT, event, 'event')
      switch (value.type) {
        case 'response.created':
        case 'response.in_progress':
        case 'response.completed':
        case 'response.incomplete':
        case 'response.failed':
          shell = objectAt(FORMAT, value.response, `${value.type}.response`)
          break
        case 'response.output_item.done': {
          if (typeof value.output_index !== 'number') throw invalidReply(FORMAT, 'response.output_item.done.output_index', 'must be a number')
          output[value.output_index] = objectAt(FORMAT, value.item, 'response.output_item.done.item')
          break
        }
        case 'error':
          throw invalidReply(FORMAT, 'error', `event: ${typeof value.message === 'string' ? value.message : JSON.stringify(value)}`)
      }
    },
    result() {
      // The items the done events gave; a stream that sent none (or lost some) keeps the final Response's.
      const items = output.length && !output.includes(undefined as never) ? output : (shell.output as Record<string, unknown>[] | undefined) ?? []
      const reply: ResponsesReply = { ...shell, object: 'response', output: [...items] }
      return reply
    },
  }
}
