/**
 * `anthropic`: the Messages API body. The system prompt is a top-level `system` text block; tools are
 * `{ name, description, input_schema }`; messages alternate `user` / `assistant` with content blocks:
 * `text`, `tool_use` (a recorded call, its arguments parsed) and `tool_result` (in a user message).
 * Under `append` a later prompt version is a mid-conversation `{ role: "system" }` message for the
 * models Anthropic lists (`ANTHROPIC_SYSTEM_MESSAGES`, A6), else a user message that begins with
 * `SYSTEM_PROMPT_UPDATE_MARKER`; either way every earlier block keeps its bytes. A tool added
 * mid-conversation (a tool-change note's `toolAdditions`) is a `system` message of `tool_addition` blocks
 * after the note, on the same models (`ANTHROPIC_TOOL_APPEND`, R-TOOL-13); such a body is an
 * `AnthropicBetaRequest` and needs the beta header `headers` names. `cache_control` breakpoints are
 * planned by `planBreakpoints`. Pure and Cordis-free.
 * @module
 */
import { anthropicPlanner, type CacheControl } from './breakpoints.js'
import { streamPart } from './cache-stream.js'
import { namedToolParts } from './format-stream.js'
import { emptyText, unsupportedPart, unsupportedToolCall } from './errors.js'
import type { CallLookup, WireFormatModule } from './format-module.js'
import type { PromptUpdateLowering } from './prompt-updates.js'
import { ANTHROPIC_SYSTEM_MESSAGES, ANTHROPIC_TOOL_APPEND } from './providers/anthropic.js'
import type { WireInput } from './input.js'
import { assertTools, ANTHROPIC_TOOL_RULES } from './tool-rules.js'
import { sharedLowering } from './shared-tools.js'
import { sentReplyParts, type AnthropicRedactedThinkingBlock, type AnthropicThinkingBlock, type ContentPart } from './parts.js'
import { parseArguments, systemUpdateText, userText, type ConversationEntry, type ToolCall, type WireTool } from './record.js'

/** A text block. */
export interface AnthropicTextBlock { type: 'text'; text: string; cache_control?: CacheControl }
/** A tool call the model made, sent back. */
export interface AnthropicToolUseBlock { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; cache_control?: CacheControl }
/** The image types the Messages API takes. */
export type AnthropicImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'
/** An image, base64-encoded. */
export interface AnthropicImageBlock { type: 'image'; source: { type: 'base64'; media_type: AnthropicImageType; data: string }; cache_control?: CacheControl }
/** A PDF document, base64-encoded, with its file name as `title`. */
export interface AnthropicDocumentBlock { type: 'document'; source: { type: 'base64'; media_type: 'application/pdf'; data: string }; title?: string; cache_control?: CacheControl }
/** A tool result for `tool_use_id`: text, or text, images and documents (no `content` when the result is empty). */
export interface AnthropicToolResultBlock {
  type: 'tool_result'; tool_use_id: string; content?: string | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[]; cache_control?: CacheControl
}
/** A thinking block sent back as the reply gave it; the API takes no `cache_control` on one, so it never has one. */
export type AnthropicThinkingParam = (AnthropicThinkingBlock | AnthropicRedactedThinkingBlock) & { cache_control?: undefined }
/** A content block of a message. */
export type AnthropicBlock =
  | AnthropicTextBlock | AnthropicToolUseBlock | AnthropicToolResultBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicThinkingParam

/**
 * A message: one per sent record entry (consecutive user messages are allowed; the API joins them). A
 * `system` message is a prompt version sent mid-conversation, for a model that takes one (text blocks only).
 */
export type AnthropicMessage = { role: 'user' | 'assistant'; content: AnthropicBlock[] } | { role: 'system'; content: AnthropicTextBlock[] }

/** A tool definition. */
export interface AnthropicTool {
  name: string
  description?: string
  input_schema: { type: 'object'; [key: string]: unknown }
  cache_control?: CacheControl
}

/** A tool offered from this point of the conversation on, defined by value (mid-conversation tool changes, beta). */
export interface AnthropicToolAdditionBlock {
  type: 'tool_addition'
  tool: { type: 'tool_definition'; definition: AnthropicTool }
  cache_control?: CacheControl
}

/** The `system` message that adds tools after a tool-change note (`ANTHROPIC_TOOL_APPEND`). */
export interface AnthropicToolChangeMessage { role: 'system'; content: AnthropicToolAdditionBlock[] }

/**
 * A body that may carry tool additions (an agent with `wire.toolAdditions`): the beta Messages API's
 * request (`client.beta.messages.create`), sent with the header `headers` names.
 */
export type AnthropicBetaRequest = Omit<AnthropicRequest, 'messages'> & { messages: (AnthropicMessage | AnthropicToolChangeMessage)[] }

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
export function anthropicBody(input: WireInput, openingEntry: ConversationEntry | undefined, messages: AnthropicMessage[], internal = false): AnthropicRequest {
  assertTools('anthropic', ANTHROPIC_TOOL_RULES, input.tools)
  const opening = openingEntry?.content as string | undefined
  // Keys in the order the API hashes the parts: tools, system, messages.
  const request: Omit<AnthropicRequest, 'messages'> = { model: input.model, max_tokens: input.maxTokens ?? DEFAULT_MAX_TOKENS }
  if (input.tools.length) request.tools = input.tools.map(internal ? sharedTool : anthropicTool)
  if (opening) request.system = [{ type: 'text', text: opening }]
  return { ...request, messages }
}

/** A tool as the Messages API declares it. */
function anthropicTool(tool: WireTool): AnthropicTool {
  const lowered: AnthropicTool = { name: tool.name, input_schema: { ...tool.parameters, type: 'object' } }
  if (tool.description !== undefined) lowered.description = tool.description
  return lowered
}

/** {@link anthropicTool}, shared between the steps of a session's head (`shared-tools.ts`). */
const sharedTool = sharedLowering(anthropicTool)

/**
 * The messages of one sent entry (`update`: how a prompt version after the opening is sent; default
 * `marker`). A tool-change note with `toolAdditions` is followed by a `system` message of `tool_addition`
 * blocks on a model that takes mid-conversation system messages; elsewhere the note goes alone (the
 * agent declares those tools in `tools` then).
 */
export function anthropicElements(item: ConversationEntry, update: PromptUpdateLowering = 'marker'): readonly (AnthropicMessage | AnthropicToolChangeMessage)[] {
  const sent = message(item, update)
  if (item.role !== 'user' || !item.toolAdditions?.length || update !== 'system-message') return [sent]
  assertTools('anthropic', ANTHROPIC_TOOL_RULES, item.toolAdditions)
  const content = item.toolAdditions.map((tool): AnthropicToolAdditionBlock => ({ type: 'tool_addition', tool: { type: 'tool_definition', definition: anthropicTool(tool) } }))
  return [sent, { role: 'system', content }]
}

/** Whether a body carries a tool addition (then it needs the append path's beta header). */
function addsTools(body: AnthropicRequest): boolean {
  return (body.messages as readonly { role: string; content: readonly { type: string }[] }[]).some((item) => item.role === 'system' && item.content.some((block) => block.type === 'tool_addition'))
}

/**
 * The betas a body calls for, in one `anthropic-beta` header (comma-separated, as the API takes several):
 * the append path's for a tool addition (R-TOOL-13), the cache diagnostics' for a `diagnostics` field.
 */
function anthropicHeaders(body: AnthropicRequest): Readonly<Record<string, string>> | undefined {
  const betas: string[] = []
  if (ANTHROPIC_TOOL_APPEND.header && addsTools(body)) betas.push(ANTHROPIC_TOOL_APPEND.header.value)
  if ('diagnostics' in body) betas.push(ANTHROPIC_CACHE_DIAGNOSIS_BETA)
  return betas.length === 0 ? undefined : { 'anthropic-beta': betas.join(',') }
}

function message(item: ConversationEntry, update: PromptUpdateLowering): AnthropicMessage {
  switch (item.role) {
    case 'system':
      return update === 'system-message'
        ? { role: 'system', content: [{ type: 'text', text: item.reanchor ?? item.content }] }
        : { role: 'user', content: [{ type: 'text', text: item.reanchor ?? systemUpdateText(item.content) }] }
    case 'user':
      return { role: 'user', content: sendable('user', item.parts ? item.parts.map((part) => mediaBlock(part, 'user')) : [{ type: 'text', text: userText(item.content) }]) }
    case 'tool': {
      // An empty result sends no content (the API takes a tool_result without one), never an empty text.
      const content = item.parts ? item.parts.map((part) => mediaBlock(part, 'tool')).filter(notEmpty) : item.content
      const result: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: item.tool_call_id, content }
      if (!content.length) delete (result as Partial<AnthropicToolResultBlock>).content
      return { role: 'user', content: [result] }
    }
    case 'assistant': {
      const content: AnthropicBlock[] = []
      if (item.parts) {
        // The reply's blocks in its order: thinking blocks unchanged (signatures intact) before what they led to.
        const calls = new Map((item.tool_calls ?? []).map((call) => [call.id, call]))
        for (const part of sentReplyParts('anthropic', item.parts, false)) {
          if (part.type === 'reasoning') content.push({ ...(part.item as AnthropicThinkingBlock | AnthropicRedactedThinkingBlock) })
          else if (part.type === 'text') content.push({ type: 'text', text: part.text })
          else if (part.type === 'tool_call') content.push(toolUse(calls.get(part.id)!))
        }
        return { role: 'assistant', content: sendable('assistant', content) }
      }
      if (item.content) content.push({ type: 'text', text: item.content })
      for (const call of item.tool_calls ?? []) content.push(toolUse(call))
      return { role: 'assistant', content: sendable('assistant', content) }
    }
  }
}

/**
 * The beta that Anthropic's cache diagnostics (`diagnostics.previous_message_id`) is behind, sent as the
 * `anthropic-beta` header on every request that carries the field ("Cache diagnostics", Anthropic's
 * docs, build-with-claude/cache-diagnostics, read 2026-12-02).
 */
export const ANTHROPIC_CACHE_DIAGNOSIS_BETA = 'cache-diagnosis-2026-04-07'

/**
 * `anthropic` as a format module: the opening is a top-level `system` block; tools, system, then
 * messages (Anthropic's documented cache prefix order); `cache_control` breakpoints planned.
 */
export const anthropicFormat: WireFormatModule<AnthropicRequest> = Object.freeze({
  name: 'anthropic',
  provider: 'anthropic',
  toolRules: ANTHROPIC_TOOL_RULES,
  ownedFields: Object.freeze(['model', 'system', 'tools', 'messages']),
  elementsKey: 'messages',
  openingIsElement: false,
  order: Object.freeze(['tools', 'system', 'messages'] as const),
  lower: (item: ConversationEntry, _calls: CallLookup, update?: PromptUpdateLowering) => anthropicElements(item, update),
  promptUpdates: ANTHROPIC_SYSTEM_MESSAGES,
  // Cache diagnostics: `null` on the first request opts in with nothing to compare; the beta header on every request.
  diagnosticsFields: (previous: string | undefined) => ({ diagnostics: { previous_message_id: previous ?? null } }),
  body: (input: WireInput, opening: ConversationEntry | undefined, elements: object[], internal?: boolean) => anthropicBody(input, opening, elements as AnthropicMessage[], internal),
  blocks: (element: object) => (element as AnthropicMessage).content.length,
  systemParts: (body: AnthropicRequest) => (body.system?.length ? [streamPart('system', 0, body.system, body.system.length)] : []),
  toolParts: (body: AnthropicRequest) => namedToolParts(body.tools ?? [], (tool) => tool.name),
  planner: anthropicPlanner,
  toolAppend: ANTHROPIC_TOOL_APPEND,
  headers: anthropicHeaders,
})

function toolUse(call: ToolCall): AnthropicToolUseBlock {
  if (call.type !== 'function') throw unsupportedToolCall('anthropic', call.id, call.type)
  return { type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments('anthropic', call.id, call.function.arguments) }
}

/** Whether a block is anything but an empty text (the API refuses `{ type: 'text', text: '' }`). */
function notEmpty<T extends AnthropicBlock>(block: T): boolean {
  return block.type !== 'text' || block.text !== ''
}

/**
 * The blocks of a message without its empty texts (`docs/guarantees.md`: empty text is never sent); a
 * message left with none is refused (`WIRE_EMPTY_TEXT`), as the API refuses a message without content.
 */
function sendable<T extends AnthropicBlock>(role: 'user' | 'assistant', blocks: T[]): T[] {
  const kept = blocks.filter(notEmpty)
  if (!kept.length) throw emptyText('anthropic', role)
  return kept
}

const IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp']

/** A part of user input or a tool result as a block; an image type or a document the API does not take is refused. */
function mediaBlock(part: ContentPart, role: 'user' | 'tool'): AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock {
  if (part.type === 'text') return { type: 'text', text: role === 'user' ? userText(part.text) : part.text }
  if (part.type === 'image') {
    if (!IMAGE_TYPES.includes(part.mediaType)) throw unsupportedPart('anthropic', role, `image (${part.mediaType})`)
    return { type: 'image', source: { type: 'base64', media_type: part.mediaType as AnthropicImageType, data: part.data } }
  }
  if (part.mediaType !== 'application/pdf') throw unsupportedPart('anthropic', role, `document (${part.mediaType})`)
  const block: AnthropicDocumentBlock = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data } }
  if (part.name !== undefined) block.title = part.name
  return block
}
