/**
 * `openai-responses`: the Responses API body. The opening system prompt is `instructions`; everything
 * else is `input` items: messages (a later prompt version under `append` is a `system` message, which
 * the Responses API accepts anywhere), `function_call` / `function_call_output` items for tool calls and
 * results (`custom_tool_call` / `custom_tool_call_output` for custom ones). `prompt_cache_key` is the
 * conversation id. Pure and Cordis-free.
 * @module
 */
import { streamPart } from './cache-stream.js'
import { namedToolParts } from './format-stream.js'
import type { CallLookup, WireFormatModule } from './format-module.js'
import { dataUrl, sentReplyParts, type ContentPart, type ResponsesReasoningItem } from './parts.js'
import type { ConversationEntry, ToolCall, WireTool } from './record.js'
import type { WireInput } from './input.js'
import { assertTools, OPENAI_TOOL_RULES } from './tool-rules.js'
import { sharedLowering } from './shared-tools.js'

/** Text, an image or a file in user input or a tool result (images and files as `data:` URLs). */
export type ResponsesContentPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: 'auto' }
  | { type: 'input_file'; file_data: string; filename?: string }

/** A message input item (user input with images or files has content parts). */
export type ResponsesMessageItem =
  | { type: 'message'; role: 'system' | 'user' | 'assistant'; content: string }
  | { type: 'message'; role: 'user'; content: ResponsesContentPart[] }

/** A function call the model made, sent back as an input item. */
export interface ResponsesFunctionCallItem {
  type: 'function_call'
  call_id: string
  name: string
  arguments: string
}

/** A custom tool call the model made, sent back as an input item. */
export interface ResponsesCustomCallItem {
  type: 'custom_tool_call'
  call_id: string
  name: string
  input: string
}

/** A tool result for `call_id`. */
export interface ResponsesCallOutputItem {
  type: 'function_call_output' | 'custom_tool_call_output'
  call_id: string
  output: string | ResponsesContentPart[]
}

/** An input item of a Responses request (a reasoning item is sent back as the reply gave it). */
export type ResponsesInputItem = ResponsesMessageItem | ResponsesFunctionCallItem | ResponsesCustomCallItem | ResponsesCallOutputItem | ResponsesReasoningItem

/** A function tool of a Responses request (`strict: false`: the schema is sent as registered). */
export interface ResponsesTool {
  type: 'function'
  name: string
  description?: string
  parameters: Record<string, unknown> | null
  strict: boolean
}

/** A Responses API request body. `instructions`, `tools` and `prompt_cache_key` are omitted when empty. */
export interface ResponsesRequest {
  model: string
  instructions?: string
  input: ResponsesInputItem[]
  tools?: ResponsesTool[]
  prompt_cache_key?: string
  /** Whether OpenAI keeps the response: never set by dsh, given as an extra field (`step({ fields: { store: false } })`). */
  store?: boolean
}

/** The `openai-responses` body for the opening system prompt (`instructions`) and the input items. */
export function responsesBody(input: WireInput, openingEntry: ConversationEntry | undefined, body: ResponsesInputItem[], internal = false): ResponsesRequest {
  assertTools('openai-responses', OPENAI_TOOL_RULES, input.tools)
  const opening = openingEntry?.content as string | undefined
  const request: ResponsesRequest = opening === undefined ? { model: input.model, input: body } : { model: input.model, instructions: opening, input: body }
  if (input.tools.length) request.tools = input.tools.map(internal ? sharedTool : responsesTool)
  if (input.conversationId !== undefined) request.prompt_cache_key = input.conversationId
  return request
}

/** A tool as a Responses request declares it (a `function` tool). */
function responsesTool(tool: WireTool): ResponsesTool {
  const lowered: ResponsesTool = { type: 'function', name: tool.name, parameters: tool.parameters ?? null, strict: false }
  if (tool.description !== undefined) lowered.description = tool.description
  return lowered
}

/** {@link responsesTool}, shared between the steps of a session's head (`shared-tools.ts`). */
const sharedTool = sharedLowering(responsesTool)

/** The input items of one sent entry (a reply with tool calls makes several). */
export function responsesElements(item: ConversationEntry, calls: CallLookup): ResponsesInputItem[] {
  switch (item.role) {
    case 'system':
      return [{ type: 'message', role: item.role, content: item.reanchor ?? item.content }]
    case 'user':
      return [item.parts ? { type: 'message', role: 'user', content: item.parts.map(responsesPart) } : { type: 'message', role: 'user', content: item.content }]
    case 'assistant': {
      const out: ResponsesInputItem[] = []
      if (item.parts) {
        // The reply's items in its order: its reasoning items (encrypted content included) before what they led to.
        const calls = new Map((item.tool_calls ?? []).map((call) => [call.id, call]))
        for (const part of sentReplyParts('openai-responses', item.parts, false)) {
          if (part.type === 'reasoning') out.push({ ...(part.item as ResponsesReasoningItem) })
          else if (part.type === 'text') out.push({ type: 'message', role: 'assistant', content: part.text })
          else if (part.type === 'tool_call') out.push(callItem(calls.get(part.id)!))
        }
        return out
      }
      if (item.content || !item.tool_calls?.length) out.push({ type: 'message', role: 'assistant', content: item.content ?? '' })
      for (const call of item.tool_calls ?? []) out.push(callItem(call))
      return out
    }
    case 'tool': {
      const type = calls(item.tool_call_id)?.type === 'custom' ? 'custom_tool_call_output' : 'function_call_output'
      return [{ type, call_id: item.tool_call_id, output: item.parts ? item.parts.map(responsesPart) : item.content }]
    }
  }
}

/** `openai-responses` as a format module: the opening is `instructions`; system prompt, tools, then input items. */
export const openaiResponsesFormat: WireFormatModule<ResponsesRequest> = Object.freeze({
  name: 'openai-responses',
  provider: 'openai',
  toolRules: OPENAI_TOOL_RULES,
  ownedFields: Object.freeze(['model', 'instructions', 'input', 'tools']),
  // The Responses API takes a system (or developer) message item anywhere in `input`.
  promptUpdates: 'system-message',
  // Tool search (developers.openai.com/api/docs/guides/tools-tool-search) loads tools the model searches
  // for among those declared with `defer_loading` from the first request; nothing documented lets the
  // client offer a tool that appears later without the model asking (R-TOOL-13).
  toolAppend: Object.freeze({ none: 'tool search loads only tools declared with defer_loading from the start, when the model searches' }),
  // Prompt cache diagnostics: the baseline is the previous response (nothing to compare before one).
  diagnosticsFields: (previous: string | undefined) => (previous === undefined ? undefined : { prompt_cache_options: { comparison_response_id: previous } }),
  elementsKey: 'input',
  openingIsElement: false,
  order: Object.freeze(['system', 'tools', 'messages'] as const),
  lower: (item: ConversationEntry, calls: CallLookup) => responsesElements(item, calls),
  body: (input: WireInput, opening: ConversationEntry | undefined, elements: object[], internal?: boolean) => responsesBody(input, opening, elements as ResponsesInputItem[], internal),
  blocks: () => 1,
  systemParts: (body: ResponsesRequest) => (body.instructions === undefined ? [] : [streamPart('system', 0, { instructions: body.instructions })]),
  toolParts: (body: ResponsesRequest) => namedToolParts(body.tools ?? [], (tool) => tool.name),
})

function callItem(call: ToolCall): ResponsesFunctionCallItem | ResponsesCustomCallItem {
  return call.type === 'function'
    ? { type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments }
    : { type: 'custom_tool_call', call_id: call.id, name: call.custom.name, input: call.custom.input }
}

function responsesPart(part: ContentPart): ResponsesContentPart {
  if (part.type === 'text') return { type: 'input_text', text: part.text }
  if (part.type === 'image') return { type: 'input_image', image_url: dataUrl(part), detail: 'auto' }
  return part.name === undefined ? { type: 'input_file', file_data: dataUrl(part) } : { type: 'input_file', file_data: dataUrl(part), filename: part.name }
}
