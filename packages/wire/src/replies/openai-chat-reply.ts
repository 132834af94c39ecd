/**
 * `openai-chat` replies: a chat completion (`choices[0].message`: `content`, `tool_calls`) read into the
 * record, and the `chat.completion.chunk` stream (each chunk's `choices[i].delta`: `content` pieces,
 * `tool_calls` deltas by `index` whose first delta has the `id` and the function's `name`, then
 * `arguments` pieces; `usage` in a last chunk with no choices under `stream_options.include_usage`)
 * put back together as the completion. Pure and Cordis-free.
 * @module
 */
import { invalidReply } from '../errors.js'
import type { ToolCall } from '../record.js'
import { normalizeUsage } from '../providers/registry.js'
import { arrayAt, objectAt, replyMessage, stringAt, type ReadReply, type ReadReplyOptions, type ReplyAccumulator, type ReplyPiece } from './reply.js'

const FORMAT = 'openai-chat'

/** The fields of a chat completion the reader reads (`OpenAI.Chat.ChatCompletion` has them). */
export interface ChatReply {
  id?: string
  object?: string
  created?: number
  model?: string
  choices: { index: number; message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; refusal?: string | null }; finish_reason: string | null }[]
  usage?: object | null
}

/** The record's reply for a chat completion (its first choice). */
export function readChatReply(reply: unknown, options: ReadReplyOptions = {}): ReadReply {
  const root = objectAt(FORMAT, reply, 'reply')
  const choice = objectAt(FORMAT, arrayAt(FORMAT, root.choices, 'choices')[0], 'choices[0]')
  const message = objectAt(FORMAT, choice.message, 'choices[0].message')
  const pieces: ReplyPiece[] = []
  if (message.content !== null && message.content !== undefined) pieces.push({ type: 'text', text: stringAt(FORMAT, message.content, 'choices[0].message.content') })
  const calls = message.tool_calls === undefined || message.tool_calls === null ? [] : arrayAt(FORMAT, message.tool_calls, 'choices[0].message.tool_calls')
  calls.forEach((value, i) => pieces.push({ type: 'tool_call', call: toolCall(value, `choices[0].message.tool_calls[${i}]`) }))
  const read: ReadReply = { message: replyMessage(pieces) }
  if (root.usage !== undefined && root.usage !== null) read.usage = normalizeUsage(options.usage ?? FORMAT, root.usage)
  return read
}

function toolCall(value: unknown, path: string): ToolCall {
  const call = objectAt(FORMAT, value, path)
  const id = stringAt(FORMAT, call.id, `${path}.id`)
  if (call.type === 'custom') {
    const custom = objectAt(FORMAT, call.custom, `${path}.custom`)
    return { id, type: 'custom', custom: { name: stringAt(FORMAT, custom.name, `${path}.custom.name`), input: stringAt(FORMAT, custom.input, `${path}.custom.input`) } }
  }
  if (call.type !== 'function') throw invalidReply(FORMAT, `${path}.type`, `must be "function" or "custom", found ${JSON.stringify(call.type)}`)
  const fn = objectAt(FORMAT, call.function, `${path}.function`)
  return { id, type: 'function', function: { name: stringAt(FORMAT, fn.name, `${path}.function.name`), arguments: stringAt(FORMAT, fn.arguments, `${path}.function.arguments`) } }
}

interface ChoiceState { index: number; content: string | null; refusal: string | null; calls: { id: string; name: string; arguments: string }[]; finish: string | null }

/** Puts `chat.completion.chunk` events back together as the chat completion. */
export function chatReplyAccumulator(): ReplyAccumulator<ChatReply> {
  const head: { id?: string; created?: number; model?: string } = {}
  const choices = new Map<number, ChoiceState>()
  let usage: object | undefined
  return {
    push(event) {
      const chunk = objectAt(FORMAT, event, 'chunk')
      if (typeof chunk.id === 'string') head.id ??= chunk.id
      if (typeof chunk.created === 'number') head.created ??= chunk.created
      if (typeof chunk.model === 'string') head.model ??= chunk.model
      if (chunk.usage !== undefined && chunk.usage !== null) usage = objectAt(FORMAT, chunk.usage, 'chunk.usage')
      arrayAt(FORMAT, chunk.choices ?? [], 'chunk.choices').forEach((value, i) => {
        const choice = objectAt(FORMAT, value, `chunk.choices[${i}]`)
        const index = typeof choice.index === 'number' ? choice.index : 0
        let state = choices.get(index)
        if (!state) choices.set(index, state = { index, content: null, refusal: null, calls: [], finish: null })
        if (typeof choice.finish_reason === 'string') state.finish = choice.finish_reason
        const delta = objectAt(FORMAT, choice.delta ?? {}, `chunk.choices[${i}].delta`)
        if (typeof delta.content === 'string') state.content = (state.content ?? '') + delta.content
        if (typeof delta.refusal === 'string') state.refusal = (state.refusal ?? '') + delta.refusal
        for (const [j, item] of arrayAt(FORMAT, delta.tool_calls ?? [], `chunk.choices[${i}].delta.tool_calls`).entries()) {
          const path = `chunk.choices[${i}].delta.tool_calls[${j}]`
          const callDelta = objectAt(FORMAT, item, path)
          if (typeof callDelta.index !== 'number') throw invalidReply(FORMAT, `${path}.index`, 'must be a number')
          const call = state.calls[callDelta.index] ??= { id: '', name: '', arguments: '' }
          if (typeof callDelta.id === 'string') call.id = callDelta.id
          const fn = objectAt(FORMAT, callDelta.function ?? {}, `${path}.function`)
          if (typeof fn.name === 'string') call.name += fn.name
          if (typeof fn.arguments === 'string') call.arguments += fn.arguments
        }
      })
    },
    result() {
      const reply: ChatReply = { ...head, object: 'chat.completion', choices: [...choices.values()].sort((a, b) => a.index - b.index).map((state) => {
        const message: ChatReply['choices'][number]['message'] = { role: 'assistant', content: state.content, refusal: state.refusal }
        if (state.calls.length) message.tool_calls = state.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }))
        return { index: state.index, message, finish_reason: state.finish }
      }) }
      if (usage !== undefined) reply.usage = usage
      return reply
    },
  }
}
