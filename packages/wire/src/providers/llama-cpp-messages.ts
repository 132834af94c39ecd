/**
 * What llama.cpp's server hands its chat template for a request body of each shape it accepts: the
 * Chat Completions messages as they are, a Responses body and an Anthropic Messages body converted to
 * Chat Completions messages the way the server converts them (its `/v1/responses` and `/v1/messages`
 * endpoints), then each message reduced to what the template reads (role, text, tool calls) and each
 * tool to its name, description and parameters. Pure.
 * @module
 */
import type { TemplateMessage, TemplateTool } from './llama-cpp-template.js'

type Json = Record<string, unknown>

/** The template's input of one request. */
export interface TemplateInput {
  messages: TemplateMessage[]
  tools: TemplateTool[]
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown): string => (typeof value === 'string' ? value : '')
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
/** Arguments as the server keeps them: a string as sent, an object as its compact JSON. */
const argumentsOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? {}))

/** A Chat Completions message as the server parses it (`common_chat_msg`): text parts kept as parts, the developer role read as system. */
function chatMessage(message: Json): TemplateMessage {
  const role = text(message.role) === 'developer' ? 'system' : text(message.role)
  const content = Array.isArray(message.content)
    ? message.content.filter(isObject).map((part) => ({ text: text(part.text) }))
    : text(message.content)
  const calls = list(message.tool_calls).filter(isObject).map((call) => {
    const fn = isObject(call.function) ? call.function : {}
    return { name: text(fn.name), arguments: argumentsOf(fn.arguments) }
  })
  return { role, content, ...(calls.length ? { tool_calls: calls } : {}) }
}

/** A Chat Completions tool as the server keeps it. */
function chatTool(tool: Json): TemplateTool {
  const fn = isObject(tool.function) ? tool.function : {}
  return { name: text(fn.name), description: text(fn.description), parameters: fn.parameters ?? {} }
}

/** `/v1/chat/completions`. */
export function fromChat(body: Json): TemplateInput {
  return { messages: list(body.messages).filter(isObject).map(chatMessage), tools: list(body.tools).filter(isObject).map(chatTool) }
}

/** `/v1/responses`: instructions as a system message, items merged into assistant messages as the server merges them. */
export function fromResponses(body: Json): TemplateInput {
  const messages: Json[] = []
  if (body.instructions !== undefined) messages.push({ role: 'system', content: text(body.instructions) })
  const input = body.input
  if (typeof input === 'string') messages.push({ role: 'user', content: input })
  for (const raw of list(input).filter(isObject)) {
    const item: Json = typeof raw.content === 'string' ? { ...raw, content: [{ text: raw.content, type: 'input_text' }] } : raw
    const last = messages.at(-1)
    const merge = last !== undefined && last.role === 'assistant'
    const parts = list(item.content).filter(isObject).map((part) => ({ text: text(part.text), type: 'text' }))
    if (Array.isArray(item.content) && (item.role === 'user' || item.role === 'system' || item.role === 'developer')) {
      messages.push({ role: item.role, content: parts })
    } else if (item.role === 'assistant' && item.type === 'message') {
      if (merge) last.content = [...list(last.content), ...parts]
      else messages.push({ role: 'assistant', content: parts })
    } else if (item.type === 'function_call') {
      const call = { type: 'function', function: { arguments: item.arguments, name: item.name }, id: item.call_id }
      if (merge) last.tool_calls = [...list(last.tool_calls), call]
      else messages.push({ role: 'assistant', tool_calls: [call] })
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', content: typeof item.output === 'string' ? item.output : list(item.output).filter(isObject).map((part) => ({ text: text(part.text) })) })
    }
  }
  const tools = list(body.tools).filter(isObject).filter((tool) => tool.type === 'function')
    .map((tool) => ({ name: text(tool.name), description: text(tool.description), parameters: tool.parameters ?? {} }))
  return { messages: messages.map(chatMessage), tools }
}

/** `/v1/messages`: the system blocks joined, text blocks kept as parts, tool uses as calls, tool results as tool messages after the blocks' message. */
export function fromAnthropic(body: Json): TemplateInput {
  const messages: Json[] = []
  const system = body.system
  if (system !== undefined && system !== null) {
    messages.push({ role: 'system', content: typeof system === 'string' ? system : list(system).filter(isObject).filter((b) => b.type === 'text').map((b) => text(b.text)).join('') })
  }
  for (const message of list(body.messages).filter(isObject)) {
    if (!('content' in message)) {
      if (message.role !== 'assistant') messages.push(message)
      continue
    }
    if (!Array.isArray(message.content)) { messages.push(message); continue }
    const parts: Json[] = []
    const calls: Json[] = []
    const results: Json[] = []
    for (const block of message.content.filter(isObject)) {
      if (block.type === 'text') parts.push(block)
      else if (block.type === 'tool_use') calls.push({ type: 'function', function: { name: text(block.name), arguments: JSON.stringify(isObject(block.input) ? block.input : {}) } })
      else if (block.type === 'tool_result') {
        const content = block.content
        results.push({ role: 'tool', content: typeof content === 'string' ? content : list(content).filter(isObject).filter((c) => c.type === 'text').map((c) => text(c.text)).join('') })
      }
    }
    if (parts.length || calls.length) messages.push({ role: message.role, content: parts.length ? parts : '', ...(calls.length ? { tool_calls: calls } : {}) })
    messages.push(...results)
  }
  const tools = list(body.tools).filter(isObject).map((tool) => ({ name: text(tool.name), description: text(tool.description), parameters: tool.input_schema ?? {} }))
  return { messages: messages.map(chatMessage), tools }
}
