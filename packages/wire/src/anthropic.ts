/**
 * `anthropic`: the Messages API body. The system prompt is a top-level `system` text block; tools are
 * `{ name, description, input_schema }`; messages alternate `user` / `assistant` with content blocks:
 * `text`, `tool_use` (a recorded call, its arguments parsed) and `tool_result` (in a user message).
 * The Messages API takes no system message after the first turn, so under `append` a later prompt
 * version is a user message that begins with `SYSTEM_PROMPT_UPDATE_MARKER`, and every earlier block
 * keeps its bytes. `cache_control` breakpoints are planned by `planBreakpoints`. Pure and Cordis-free.
 * @module
 */
import { anthropicPlanner, type CacheControl } from './breakpoints.js'
import { streamPart } from './cache-stream.js'
import { namedToolParts } from './format-stream.js'
import { unsupportedToolCall } from './errors.js'
import type { WireFormatModule } from './format-module.js'
import type { WireInput } from './input.js'
import { parseArguments, systemUpdateText, userText, type ConversationEntry } from './record.js'

/** A text block. */
export interface AnthropicTextBlock { type: 'text'; text: string; cache_control?: CacheControl }
/** A tool call the model made, sent back. */
export interface AnthropicToolUseBlock { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; cache_control?: CacheControl }
/** A tool result for `tool_use_id`. */
export interface AnthropicToolResultBlock { type: 'tool_result'; tool_use_id: string; content: string; cache_control?: CacheControl }
/** A content block of a message. */
export type AnthropicBlock = AnthropicTextBlock | AnthropicToolUseBlock | AnthropicToolResultBlock

/** A message: one per sent record entry (consecutive user messages are allowed; the API joins them). */
export interface AnthropicMessage { role: 'user' | 'assistant'; content: AnthropicBlock[] }

/** A tool definition. */
export interface AnthropicTool {
  name: string
  description?: string
  input_schema: { type: 'object'; [key: string]: unknown }
  cache_control?: CacheControl
}

/** A Messages API request body. `tools` and `system` are omitted when empty. */
export interface AnthropicRequest {
  model: string
  max_tokens: number
  tools?: AnthropicTool[]
  system?: AnthropicTextBlock[]
  messages: AnthropicMessage[]
}

/** The default `max_tokens` (the Messages API requires one; set `maxTokens` to choose). */
export const DEFAULT_MAX_TOKENS = 4096

/** The `anthropic` body for the opening system prompt and the messages, without breakpoints (the session plans them). */
export function anthropicBody(input: WireInput, openingEntry: ConversationEntry | undefined, messages: AnthropicMessage[]): AnthropicRequest {
  const opening = openingEntry?.content as string | undefined
  // Keys in the order the API hashes the parts: tools, system, messages.
  const request: Omit<AnthropicRequest, 'messages'> = { model: input.model, max_tokens: input.maxTokens ?? DEFAULT_MAX_TOKENS }
  if (input.tools.length) {
    request.tools = input.tools.map((tool) => {
      const lowered: AnthropicTool = { name: tool.name, input_schema: { ...tool.parameters, type: 'object' } }
      if (tool.description !== undefined) lowered.description = tool.description
      return lowered
    })
  }
  if (opening !== undefined) request.system = [{ type: 'text', text: opening }]
  return { ...request, messages }
}

/** The message of one sent entry. */
export function anthropicElements(item: ConversationEntry): readonly AnthropicMessage[] {
  return [message(item)]
}

function message(item: ConversationEntry): AnthropicMessage {
  switch (item.role) {
    case 'system':
      return { role: 'user', content: [{ type: 'text', text: systemUpdateText(item.content) }] }
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: userText(item.content) }] }
    case 'tool':
      return { role: 'user', content: [{ type: 'tool_result', tool_use_id: item.tool_call_id, content: item.content }] }
    case 'assistant': {
      const content: AnthropicBlock[] = []
      if (item.content || !item.tool_calls?.length) content.push({ type: 'text', text: item.content ?? '' })
      for (const call of item.tool_calls ?? []) {
        if (call.type !== 'function') throw unsupportedToolCall('anthropic', call.id, call.type)
        content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments('anthropic', call.id, call.function.arguments) })
      }
      return { role: 'assistant', content }
    }
  }
}

/**
 * `anthropic` as a format module: the opening is a top-level `system` block; tools, system, then
 * messages (Anthropic's documented cache prefix order); `cache_control` breakpoints planned.
 */
export const anthropicFormat: WireFormatModule<AnthropicRequest> = Object.freeze({
  name: 'anthropic',
  provider: 'anthropic',
  elementsKey: 'messages',
  openingIsElement: false,
  order: Object.freeze(['tools', 'system', 'messages'] as const),
  lower: (item: ConversationEntry) => anthropicElements(item),
  body: (input: WireInput, opening: ConversationEntry | undefined, elements: object[]) => anthropicBody(input, opening, elements as AnthropicMessage[]),
  blocks: (element: object) => (element as AnthropicMessage).content.length,
  systemParts: (body: AnthropicRequest) => (body.system?.length ? [streamPart('system', 0, body.system, body.system.length)] : []),
  toolParts: (body: AnthropicRequest) => namedToolParts(body.tools ?? [], (tool) => tool.name),
  planner: anthropicPlanner,
})
