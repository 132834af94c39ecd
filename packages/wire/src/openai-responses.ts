/**
 * `openai-responses`: the Responses API body. The opening system prompt is `instructions`; everything
 * else is `input` items: messages (a later prompt version under `append` is a `system` message, which
 * the Responses API accepts anywhere), `function_call` / `function_call_output` items for tool calls and
 * results (`custom_tool_call` / `custom_tool_call_output` for custom ones). `prompt_cache_key` is the
 * conversation id. Pure and Cordis-free.
 * @module
 */
import type { ConversationEntry } from './record.js'
import { streamPart } from './cache-stream.js'
import { namedToolParts } from './format-stream.js'
import type { CallLookup, WireFormatModule } from './format-module.js'
import type { WireInput } from './input.js'

/** A message input item. */
export interface ResponsesMessageItem {
  type: 'message'
  role: 'system' | 'user' | 'assistant'
  content: string
}

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
  output: string
}

/** An input item of a Responses request. */
export type ResponsesInputItem = ResponsesMessageItem | ResponsesFunctionCallItem | ResponsesCustomCallItem | ResponsesCallOutputItem

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
}

/** The `openai-responses` body for the opening system prompt (`instructions`) and the input items. */
export function responsesBody(input: WireInput, openingEntry: ConversationEntry | undefined, body: ResponsesInputItem[]): ResponsesRequest {
  const opening = openingEntry?.content as string | undefined
  const request: ResponsesRequest = opening === undefined ? { model: input.model, input: body } : { model: input.model, instructions: opening, input: body }
  if (input.tools.length) {
    request.tools = input.tools.map((tool) => {
      const lowered: ResponsesTool = { type: 'function', name: tool.name, parameters: tool.parameters ?? null, strict: false }
      if (tool.description !== undefined) lowered.description = tool.description
      return lowered
    })
  }
  if (input.conversationId !== undefined) request.prompt_cache_key = input.conversationId
  return request
}

/** The input items of one sent entry (a reply with tool calls makes several). */
export function responsesElements(item: ConversationEntry, calls: CallLookup): ResponsesInputItem[] {
  switch (item.role) {
    case 'system':
    case 'user':
      return [{ type: 'message', role: item.role, content: item.content }]
    case 'assistant': {
      const out: ResponsesInputItem[] = []
      if (item.content || !item.tool_calls?.length) out.push({ type: 'message', role: 'assistant', content: item.content ?? '' })
      for (const call of item.tool_calls ?? []) {
        out.push(call.type === 'function'
          ? { type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments }
          : { type: 'custom_tool_call', call_id: call.id, name: call.custom.name, input: call.custom.input })
      }
      return out
    }
    case 'tool': {
      const type = calls(item.tool_call_id)?.type === 'custom' ? 'custom_tool_call_output' : 'function_call_output'
      return [{ type, call_id: item.tool_call_id, output: item.content }]
    }
  }
}

/** `openai-responses` as a format module: the opening is `instructions`; system prompt, tools, then input items. */
export const openaiResponsesFormat: WireFormatModule<ResponsesRequest> = Object.freeze({
  name: 'openai-responses',
  provider: 'openai',
  elementsKey: 'input',
  openingIsElement: false,
  order: Object.freeze(['system', 'tools', 'messages'] as const),
  lower: (item: ConversationEntry, calls: CallLookup) => responsesElements(item, calls),
  body: (input: WireInput, opening: ConversationEntry | undefined, elements: object[]) => responsesBody(input, opening, elements as ResponsesInputItem[]),
  blocks: () => 1,
  systemParts: (body: ResponsesRequest) => (body.instructions === undefined ? [] : [streamPart('system', 0, { instructions: body.instructions })]),
  toolParts: (body: ResponsesRequest) => namedToolParts(body.tools ?? [], (tool) => tool.name),
})
