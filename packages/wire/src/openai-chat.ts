/**
 * `openai-chat`: the chat-completions body (`model`, `messages`, `tools`), the shape dsh first built.
 * Chat completions accept a system message anywhere, so a new prompt version under `append` is a
 * system message at the place it was recorded. Pure and Cordis-free.
 * @module
 */
import { checkMedia, sentReplyParts, type ContentPart, type ReplyPart } from './parts.js'
import { sentEntries, type ChatMessage, type ConversationEntry, type PromptChangePolicy, type WireTool } from './record.js'
import type { WireInput } from './input.js'
import { WireSession } from './session.js'

/** A tool offered in a chat-completions request. */
export interface RequestTool {
  type: 'function'
  function: { name: string; description?: string; parameters?: Record<string, unknown> }
}

/** A chat-completions request body. `tools` is omitted when no tool is visible (providers reject `[]`). */
export interface ChatRequest {
  model: string
  messages: ChatMessage[]
  tools?: RequestTool[]
}

/**
 * The request messages for a record: the entries `sentEntries` picks, each without its `source` (and
 * `usage`). The message objects are built once per entry and shared (frozen), so a later request
 * carries the very objects an earlier one did.
 */
export function buildMessages(record: readonly ConversationEntry[], policy: PromptChangePolicy): ChatMessage[] {
  return sentEntries(record, policy).map(wire)
}

/** A tool as a chat-completions request's `tools` field carries it (a `function` tool). */
export function toRequestTool(tool: WireTool): RequestTool {
  const fn: RequestTool['function'] = { name: tool.name }
  if (tool.description !== undefined) fn.description = tool.description
  if (tool.parameters !== undefined) fn.parameters = tool.parameters
  return { type: 'function', function: fn }
}

/** The `openai-chat` body for `input`. */
export function openaiChatRequest(input: WireInput): ChatRequest {
  return new WireSession('openai-chat').build(input).request
}

/**
 * The `openai-chat` body for the opening system prompt (`messages[0]`) and the other messages
 * (`messages` becomes the body's own list).
 */
export function chatBody(input: WireInput, opening: ConversationEntry | undefined, messages: ChatMessage[]): ChatRequest {
  if (opening !== undefined) messages.unshift(wire(opening))
  const request: ChatRequest = { model: input.model, messages }
  if (input.tools.length) request.tools = input.tools.map(toRequestTool)
  return request
}

/** The messages of one sent entry: its wire message. */
export function chatElements(item: ConversationEntry): readonly ChatMessage[] {
  return [wire(item)]
}

const wires = new WeakMap<ConversationEntry, ChatMessage>()

/**
 * The wire message of an entry (without `source`, `usage` and `parts`), built once per entry and shared
 * (frozen). A reply's reasoning state (no chat format carries one) stays out; an image or a document
 * in a reply or a tool result is refused (`WIRE_UNSUPPORTED_PART`: a chat tool message is text only).
 */
export function wire(item: ConversationEntry): ChatMessage {
  let message = wires.get(item)
  if (!message) {
    const { source: _source, usage: _usage, parts, ...rest } = item as ConversationEntry & { parts?: unknown }
    if (parts !== undefined && rest.role === 'tool') checkMedia('openai-chat', 'tool', parts as ContentPart[], [])
    if (parts !== undefined && rest.role === 'assistant') sentReplyParts('openai-chat', parts as ReplyPart[], false)
    message = Object.freeze(rest) as ChatMessage
    wires.set(item, message)
  }
  return message
}
