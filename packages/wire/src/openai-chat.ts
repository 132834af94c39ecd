/**
 * `openai-chat`: the chat-completions body (`model`, `messages`, `tools`), the shape dsh first built.
 * Chat completions accept a system message anywhere, so a new prompt version under `append` is a
 * system message at the place it was recorded. Pure and Cordis-free.
 * @module
 */
import { checkMedia, dataUrl, sentReplyParts, type ContentPart, type ReplyPart } from './parts.js'
import {
  sentEntries, type AssistantMessage, type ChatMessage, type ConversationEntry, type PromptChangePolicy, type SystemMessage, type ToolMessage, type WireTool,
} from './record.js'
import { streamPart } from './cache-stream.js'
import { namedToolParts } from './format-stream.js'
import type { WireFormatModule } from './format-module.js'
import type { WireInput } from './input.js'
import { assertTools, OPENAI_TOOL_RULES } from './tool-rules.js'
import { sharedLowering } from './shared-tools.js'

/** A tool offered in a chat-completions request. */
export interface RequestTool {
  type: 'function'
  function: { name: string; description?: string; parameters?: Record<string, unknown> }
}

/** A content part of a chat-completions user message: text, an image (a `data:` URL) or a file. */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'file'; file: { file_data: string; filename?: string } }

/** A message of a chat-completions request: a record message, or user input with images or files as content parts. */
export type ChatRequestMessage = SystemMessage | { role: 'user'; content: string | ChatContentPart[] } | AssistantMessage | ToolMessage

/** A chat-completions request body. `tools` is omitted when no tool is visible (providers reject `[]`). */
export interface ChatRequest {
  model: string
  messages: ChatRequestMessage[]
  tools?: RequestTool[]
}

/**
 * The request messages for a record: the entries `sentEntries` picks, each without its `source` (and
 * `usage`). The message objects are built once per entry and shared (frozen), so a later request
 * carries the very objects an earlier one did.
 */
export function buildMessages(record: readonly ConversationEntry[], policy: PromptChangePolicy): ChatRequestMessage[] {
  return sentEntries(record, policy).map(wire)
}

/** A tool as a chat-completions request's `tools` field carries it (a `function` tool). */
export function toRequestTool(tool: WireTool): RequestTool {
  const fn: RequestTool['function'] = { name: tool.name }
  if (tool.description !== undefined) fn.description = tool.description
  if (tool.parameters !== undefined) fn.parameters = tool.parameters
  return { type: 'function', function: fn }
}

/**
 * The `openai-chat` body for the opening system prompt (`messages[0]`) and the other messages
 * (`messages` becomes the body's own list).
 */
export function chatBody(input: WireInput, opening: ConversationEntry | undefined, messages: ChatRequestMessage[], internal = false): ChatRequest {
  assertTools('openai-chat', OPENAI_TOOL_RULES, input.tools)
  if (opening !== undefined) messages.unshift(wire(opening))
  const request: ChatRequest = { model: input.model, messages }
  if (input.tools.length) request.tools = input.tools.map(internal ? sharedTool : toRequestTool)
  return request
}

/** {@link toRequestTool}, shared between the steps of a session's head (`shared-tools.ts`). */
const sharedTool = sharedLowering(toRequestTool)

/** The messages of one sent entry: its wire message. */
export function chatElements(item: ConversationEntry): readonly ChatRequestMessage[] {
  return [wire(item)]
}

const wires = new WeakMap<ConversationEntry, ChatRequestMessage>()

/**
 * The wire message of an entry (without `source`, `usage`, `reply`, `parts` and `toolAdditions`: this format has no
 * append path for tools), built once per entry and shared
 * (frozen). User input with parts is sent as content parts (images as `data:` URLs, documents as
 * files). A reply's reasoning state (no chat format carries one) stays out; an image or a document
 * in a reply or a tool result is refused (`WIRE_UNSUPPORTED_PART`: a chat tool message is text only).
 */
export function wire(item: ConversationEntry): ChatRequestMessage {
  let message = wires.get(item)
  if (!message) {
    const { source: _source, usage: _usage, reply: _reply, parts, reanchor, toolAdditions: _added, ...rest } = item as ConversationEntry & { parts?: unknown; reanchor?: string; toolAdditions?: unknown }
    // A compaction's re-anchor sends what changed in place of the whole version (never the opening: see SystemMessage).
    if (reanchor !== undefined) rest.content = reanchor
    if (parts !== undefined && rest.role === 'tool') checkMedia('openai-chat', 'tool', parts as ContentPart[], [])
    if (parts !== undefined && rest.role === 'assistant') sentReplyParts('openai-chat', parts as ReplyPart[], false)
    message = Object.freeze(parts !== undefined && rest.role === 'user' ? { role: 'user', content: (parts as ContentPart[]).map(chatPart) } : rest) as ChatRequestMessage
    wires.set(item, message)
  }
  return message
}

/**
 * `openai-chat` as a format module: the opening system prompt is `messages[0]`; the hashing order is
 * the system prompt, the tools, the messages (see `cache-stream.ts`); OpenAI's caching rules by default.
 */
export const openaiChatFormat: WireFormatModule<ChatRequest> = Object.freeze({
  name: 'openai-chat',
  provider: 'openai',
  toolRules: OPENAI_TOOL_RULES,
  ownedFields: Object.freeze(['model', 'messages', 'tools']),
  // Chat completions take a system message anywhere (a developer message too, for reasoning models).
  promptUpdates: 'system-message',
  // Chat completions document no way to offer a tool from a point in the conversation (R-TOOL-13).
  toolAppend: Object.freeze({ none: 'chat completions take tools only in the request\'s tools list' }),
  elementsKey: 'messages',
  openingIsElement: true,
  order: Object.freeze(['system', 'tools', 'messages'] as const),
  lower: (item: ConversationEntry) => chatElements(item),
  body: (input: WireInput, opening: ConversationEntry | undefined, elements: object[], internal?: boolean) => chatBody(input, opening, elements as ChatMessage[], internal),
  blocks: () => 1,
  systemParts: (body: ChatRequest) => (body.messages[0]?.role === 'system' ? [streamPart('system', 0, body.messages[0])] : []),
  toolParts: (body: ChatRequest) => namedToolParts(body.tools ?? [], (tool) => tool.function.name),
})

function chatPart(part: ContentPart): ChatContentPart {
  if (part.type === 'text') return { type: 'text', text: part.text }
  if (part.type === 'image') return { type: 'image_url', image_url: { url: dataUrl(part) } }
  return { type: 'file', file: part.name === undefined ? { file_data: dataUrl(part) } : { file_data: dataUrl(part), filename: part.name } }
}
