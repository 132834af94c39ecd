/**
 * `gemini`: the `generateContent` parameters of `@google/genai`. The opening system prompt is
 * `config.systemInstruction`; tools are one `{ functionDeclarations }` entry with each tool's JSON
 * Schema as `parametersJsonSchema`; `contents` has one content per sent entry: `user` text, `model`
 * text and `functionCall` parts (arguments parsed), and `functionResponse` parts (in a `user` content,
 * the function named from the call it answers, the result as `{ output }`). Gemini takes no system
 * instruction mid-conversation, so under `append` a later prompt version is a user content that begins
 * with `SYSTEM_PROMPT_UPDATE_MARKER`. Pure and Cordis-free.
 * @module
 */
import { emptyText, unmatchedToolResult, unsupportedToolCall } from './errors.js'
import { streamPart } from './cache-stream.js'
import { namedToolParts } from './format-stream.js'
import type { CallLookup, WireFormatModule } from './format-module.js'
import type { WireInput } from './input.js'
import { assertTools, GEMINI_TOOL_RULES } from './tool-rules.js'
import { sharedLowering } from './shared-tools.js'
import { sentReplyParts, type ContentPart, type GeminiThoughtPart } from './parts.js'
import { parseArguments, systemUpdateText, userText, type ConversationEntry, type ToolCall, type WireTool } from './record.js'

/** A part of a Gemini content (`thoughtSignature`: sent back on the part the reply gave it with). */
export type GeminiPart =
  | { text: string; thoughtSignature?: string }
  | { functionCall: { id: string; name: string; args: Record<string, unknown> }; thoughtSignature?: string }
  | { functionResponse: { id: string; name: string; response: { output: string } } }
  | { inlineData: { mimeType: string; data: string } }
  | GeminiThoughtPart

/** One content (a turn) of the conversation. */
export interface GeminiContent { role: 'user' | 'model'; parts: GeminiPart[] }

/** A function declaration. */
export interface GeminiFunctionDeclaration { name: string; description?: string; parametersJsonSchema?: Record<string, unknown> }

/** The `config` of a request: only what dsh sets (the harness adds its generation settings). */
export interface GeminiConfig {
  systemInstruction?: { parts: { text: string }[] }
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[]
}

/** `generateContent` parameters. `config` is omitted when it would be empty. */
export interface GeminiRequest {
  model: string
  contents: GeminiContent[]
  config?: GeminiConfig
}

/** The `gemini` parameters for the opening system prompt (`config.systemInstruction`) and the contents. */
export function geminiBody(input: WireInput, openingEntry: ConversationEntry | undefined, contents: GeminiContent[], internal = false): GeminiRequest {
  assertTools('gemini', GEMINI_TOOL_RULES, input.tools)
  const opening = openingEntry?.content as string | undefined
  const request: GeminiRequest = { model: input.model, contents }
  const config: GeminiConfig = {}
  if (opening) config.systemInstruction = { parts: [{ text: opening }] }
  if (input.tools.length) {
    config.tools = [{ functionDeclarations: input.tools.map(internal ? sharedDeclaration : geminiDeclaration) }]
  }
  if (config.systemInstruction || config.tools) request.config = config
  return request
}

/** A tool as Gemini declares it (a function declaration). */
function geminiDeclaration(tool: WireTool): GeminiFunctionDeclaration {
  const declaration: GeminiFunctionDeclaration = { name: tool.name }
  if (tool.description !== undefined) declaration.description = tool.description
  if (tool.parameters !== undefined) declaration.parametersJsonSchema = tool.parameters
  return declaration
}

/** {@link geminiDeclaration}, shared between the steps of a session's head (`shared-tools.ts`). */
const sharedDeclaration = sharedLowering(geminiDeclaration)

/** The content of one sent entry. */
export function geminiElements(item: ConversationEntry, calls: CallLookup): readonly GeminiContent[] {
  return [content(item, calls)]
}

function content(item: ConversationEntry, calls: CallLookup): GeminiContent {
  switch (item.role) {
    case 'system':
      return { role: 'user', parts: [{ text: item.reanchor ?? systemUpdateText(item.content) }] }
    case 'user':
      return { role: 'user', parts: sendable('user', item.parts ? item.parts.map((part) => (part.type === 'text' ? { text: userText(part.text) } : mediaPart(part))) : [{ text: userText(item.content) }]) }
    case 'tool': {
      const call = calls(item.tool_call_id)
      const name = item.name ?? (call?.type === 'function' ? call.function.name : undefined)
      if (name === undefined) throw unmatchedToolResult('gemini', item.tool_call_id)
      // The result's text is the response's output; its images and documents follow it as inline data.
      const media = (item.parts ?? []).flatMap((part) => (part.type === 'text' ? [] : [mediaPart(part)]))
      return { role: 'user', parts: [{ functionResponse: { id: item.tool_call_id, name, response: { output: item.content } } }, ...media] }
    }
    case 'assistant': {
      const parts: GeminiPart[] = []
      if (item.parts) {
        // The reply's parts in its order, each thought signature on the part it came with.
        const byId = new Map((item.tool_calls ?? []).map((call) => [call.id, call]))
        for (const part of sentReplyParts('gemini', item.parts, true)) {
          const signature = 'thoughtSignature' in part && part.thoughtSignature !== undefined ? { thoughtSignature: part.thoughtSignature } : {}
          if (part.type === 'reasoning') parts.push({ ...(part.item as GeminiThoughtPart) })
          else if (part.type === 'text') parts.push({ text: part.text, ...signature })
          else if (part.type === 'tool_call') parts.push({ ...functionCall(byId.get(part.id)!), ...signature })
          else parts.push({ inlineData: { mimeType: part.mediaType, data: part.data } })
        }
        return { role: 'model', parts: sendable('assistant', parts) }
      }
      if (item.content) parts.push({ text: item.content })
      for (const call of item.tool_calls ?? []) parts.push(functionCall(call))
      return { role: 'model', parts: sendable('assistant', parts) }
    }
  }
}

/**
 * `gemini` as a format module: the opening is `config.systemInstruction`; system instruction, tools,
 * then contents (the order the request carries them: Google does not document its implicit cache's).
 */
export const geminiFormat: WireFormatModule<GeminiRequest> = Object.freeze({
  name: 'gemini',
  provider: 'gemini',
  toolRules: GEMINI_TOOL_RULES,
  ownedFields: Object.freeze(['model', 'contents', 'config.systemInstruction', 'config.tools']),
  // Gemini takes its system instruction only in `config`: a later version is a user content with the marker.
  promptUpdates: 'marker',
  // Gemini takes function declarations only in the request's tools (or a cached content's): R-TOOL-13.
  toolAppend: Object.freeze({ none: 'generateContent takes function declarations only in the request\'s tools' }),
  elementsKey: 'contents',
  openingIsElement: false,
  order: Object.freeze(['system', 'tools', 'messages'] as const),
  lower: (item: ConversationEntry, calls: CallLookup) => geminiElements(item, calls),
  body: (input: WireInput, opening: ConversationEntry | undefined, elements: object[], internal?: boolean) => geminiBody(input, opening, elements as GeminiContent[], internal),
  blocks: (element: object) => (element as GeminiContent).parts.length,
  systemParts: (body: GeminiRequest) => (body.config?.systemInstruction ? [streamPart('system', 0, body.config.systemInstruction)] : []),
  toolParts: (body: GeminiRequest) => namedToolParts(body.config?.tools?.flatMap((tool) => tool.functionDeclarations) ?? [], (tool) => tool.name),
})

function functionCall(call: ToolCall): { functionCall: { id: string; name: string; args: Record<string, unknown> } } {
  if (call.type !== 'function') throw unsupportedToolCall('gemini', call.id, call.type)
  return { functionCall: { id: call.id, name: call.function.name, args: parseArguments('gemini', call.id, call.function.arguments) } }
}

/**
 * The parts of a content without its empty texts (`docs/guarantees.md`: empty text is never sent; a part
 * carrying a thought signature is kept, the signature is its content); a content left with none is
 * refused (`WIRE_EMPTY_TEXT`), as the API refuses a content without parts.
 */
function sendable(role: 'user' | 'assistant', parts: GeminiPart[]): GeminiPart[] {
  const kept = parts.filter((part) => !('text' in part) || part.text !== '' || ('thoughtSignature' in part && part.thoughtSignature !== undefined) || 'thought' in part)
  if (!kept.length) throw emptyText('gemini', role)
  return kept
}

function mediaPart(part: Exclude<ContentPart, { type: 'text' }>): GeminiPart {
  return { inlineData: { mimeType: part.mediaType, data: part.data } }
}
