/**
 * `anthropic` replies: a Message's `content` blocks read into the record in order (`thinking` blocks
 * with their `signature` and `redacted_thinking` blocks kept as they came, `text` as text, `tool_use`
 * as a tool call whose `arguments` are the JSON of `input`), and the Messages stream (`message_start`,
 * `content_block_start`, `content_block_delta` with `text_delta`, `input_json_delta`, `thinking_delta`
 * or `signature_delta`, `content_block_stop`, `message_delta`, `message_stop`) put back together as the
 * Message. Pure and Cordis-free.
 * @module
 */
import { anthropicMiss } from '../provider-miss.js'
import { invalidReply, unsupportedReplyItem } from '../errors.js'
import { normalizeUsage } from '../providers/registry.js'
import { arrayAt, objectAt, replyMessage, stringAt, type ReadReply, type ReadReplyOptions, type ReplyAccumulator, type ReplyPiece } from './reply.js'

const FORMAT = 'anthropic'

/** The fields of a Message the reader reads (`Anthropic.Message` has them). */
export interface AnthropicReply {
  id?: string
  type?: 'message'
  role?: 'assistant'
  model?: string
  content: object[]
  stop_reason?: string | null
  stop_sequence?: string | null
  usage?: object | null
}

/** The record's reply for a Message. */
export function readAnthropicReply(reply: unknown, options: ReadReplyOptions = {}): ReadReply {
  const root = objectAt(FORMAT, reply, 'reply')
  const pieces: ReplyPiece[] = arrayAt(FORMAT, root.content, 'content').map((value, i): ReplyPiece => {
    const path = `content[${i}]`
    const block = objectAt(FORMAT, value, path)
    switch (block.type) {
      case 'text':
        return { type: 'text', text: stringAt(FORMAT, block.text, `${path}.text`) }
      case 'thinking':
        return { type: 'reasoning', format: FORMAT, item: {
          type: 'thinking', thinking: stringAt(FORMAT, block.thinking, `${path}.thinking`), signature: stringAt(FORMAT, block.signature, `${path}.signature`),
        } }
      case 'redacted_thinking':
        return { type: 'reasoning', format: FORMAT, item: { type: 'redacted_thinking', data: stringAt(FORMAT, block.data, `${path}.data`) } }
      case 'tool_use':
        return { type: 'tool_call', call: { id: stringAt(FORMAT, block.id, `${path}.id`), type: 'function', function: {
          name: stringAt(FORMAT, block.name, `${path}.name`), arguments: JSON.stringify(objectAt(FORMAT, block.input, `${path}.input`)),
        } } }
      default:
        throw unsupportedReplyItem(FORMAT, path, String(block.type))
    }
  })
  const read: ReadReply = { message: replyMessage(pieces) }
  if (root.usage !== undefined && root.usage !== null) read.usage = normalizeUsage(options.usage ?? FORMAT, root.usage)
  if (typeof root.id === 'string' && root.id) read.id = root.id
  const miss = anthropicMiss(root.diagnostics, options.diagnosed)
  if (miss) read.miss = miss
  return read
}

/** Puts a Messages stream back together as the Message. */
export function anthropicReplyAccumulator(): ReplyAccumulator<AnthropicReply> {
  let message: Record<string, unknown> | undefined
  const blocks: Record<string, unknown>[] = []
  const json = new Map<number, string>()
  const started = () => {
    if (!message) throw invalidReply(FORMAT, 'stream', 'has an event before message_start')
    return message
  }
  const block = (event: Record<string, unknown>, type: string) => {
    if (typeof event.index !== 'number' || !blocks[event.index]) throw invalidReply(FORMAT, `${type}.index`, `names no started content block (${JSON.stringify(event.index)})`)
    return { index: event.index, block: blocks[event.index] }
  }
  return {
    push(event) {
      const value = objectAt(FORMAT, event, 'event')
      switch (value.type) {
        case 'message_start':
          message = { ...objectAt(FORMAT, value.message, 'message_start.message') }
          break
        case 'content_block_start': {
          started()
          if (typeof value.index !== 'number') throw invalidReply(FORMAT, 'content_block_start.index', 'must be a number')
          blocks[value.index] = { ...objectAt(FORMAT, value.content_block, 'content_block_start.content_block') }
          break
        }
        case 'content_block_delta': {
          const { index, block: target } = block(value, 'content_block_delta')
          const delta = objectAt(FORMAT, value.delta, 'content_block_delta.delta')
          const add = (key: string, field: string) => { target[key] = String(target[key] ?? '') + stringAt(FORMAT, delta[field], `content_block_delta.delta.${field}`) }
          if (delta.type === 'text_delta') add('text', 'text')
          else if (delta.type === 'thinking_delta') add('thinking', 'thinking')
          else if (delta.type === 'signature_delta') add('signature', 'signature')
          else if (delta.type === 'input_json_delta') json.set(index, (json.get(index) ?? '') + stringAt(FORMAT, delta.partial_json, 'content_block_delta.delta.partial_json'))
          break
        }
        case 'content_block_stop': {
          const { index, block: target } = block(value, 'content_block_stop')
          const text = json.get(index)
          if (text !== undefined) {
            try {
              target.input = text.trim() === '' ? {} : JSON.parse(text)
            } catch (error) {
              throw invalidReply(FORMAT, `content[${index}].input`, `is not JSON when its input_json_delta pieces are joined (${(error as Error).message})`)
            }
          }
          break
        }
        case 'message_delta': {
          const current = started()
          const delta = objectAt(FORMAT, value.delta ?? {}, 'message_delta.delta')
          for (const key of ['stop_reason', 'stop_sequence']) if (delta[key] !== undefined) current[key] = delta[key]
          if (value.usage !== undefined && value.usage !== null) {
            // The usage of message_delta is cumulative: its figures replace message_start's, the others stay.
            const usage = { ...objectAt(FORMAT, current.usage ?? {}, 'message_start.message.usage') }
            for (const [key, figure] of Object.entries(objectAt(FORMAT, value.usage, 'message_delta.usage'))) if (figure !== null && figure !== undefined) usage[key] = figure
            current.usage = usage
          }
          break
        }
        case 'error':
          throw invalidReply(FORMAT, 'error', `event: ${JSON.stringify(value.error ?? value)}`)
      }
    },
    result() {
      return { ...started(), content: blocks.filter((item) => item !== undefined) } as unknown as AnthropicReply
    },
  }
}
