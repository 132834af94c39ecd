/**
 * Prompt content on a span, only when the deployment sets `content: true`: the system prompt as
 * `gen_ai.system_instructions` (the conventions keep a separately given system prompt apart from the
 * message list) and the conversation as `gen_ai.input.messages`, both as JSON text in the conventions'
 * message shape (`{ role, parts: [{ type: 'text', content }] }`, tool calls and tool call responses).
 * @module
 */
import type { Attributes } from '@opentelemetry/api'
import type { Agent, StepResult } from 'dsh-agent'
import type { ChatRequestMessage, WireFormat } from 'dsh-wire'
import { GenAi } from './names.js'

/** One part of a message in the conventions' shape. */
type MessagePart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'tool_call_response'; id: string; response: string }
  | { type: string }

/** One message in the conventions' shape. */
interface InputMessage {
  role: string
  parts: MessagePart[]
}

/** A chat message's content as parts: text as text, any other part (an image...) by its type only. */
function contentParts(content: unknown): MessagePart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', content }]
  if (!Array.isArray(content)) return []
  return content.map((part: { type: string; text?: string }) => part.type === 'text' ? { type: 'text', content: part.text ?? '' } : { type: part.type })
}

/** A chat-completions message in the conventions' shape. */
function inputMessage(message: ChatRequestMessage): InputMessage {
  if (message.role === 'tool') return { role: 'tool', parts: [{ type: 'tool_call_response', id: message.tool_call_id, response: String(message.content) }] }
  const parts = contentParts(message.content)
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) {
      const [name, input] = call.type === 'custom' ? [call.custom.name, call.custom.input] : [call.function.name, call.function.arguments]
      parts.push({ type: 'tool_call', id: call.id, name, arguments: input })
    }
  }
  return { role: message.role, parts }
}

/**
 * The conversation in chat shape (`agent.messages()`, the record every format is lowered from), or
 * nothing for a fork: its request is the agent's latest plus an instruction the record does not hold.
 */
function chatMessages(agent: Agent, result: StepResult<WireFormat>): readonly ChatRequestMessage[] | undefined {
  return result.side ? undefined : agent.messages()
}

/** The content attributes of a step: the system prompt, and the messages after the leading system one. */
export function contentAttributes(agent: Agent, result: StepResult<WireFormat>): Attributes {
  const attributes: Attributes = {}
  if (result.system !== '') attributes[GenAi.systemInstructions] = JSON.stringify([{ type: 'text', content: result.system }])
  const messages = chatMessages(agent, result)
  if (messages) {
    const rest = messages[0]?.role === 'system' ? messages.slice(1) : messages
    attributes[GenAi.inputMessages] = JSON.stringify(rest.map(inputMessage))
  }
  return attributes
}
