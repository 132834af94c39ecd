/**
 * A type test: `tsc -b` checks it (through tsconfig.tests.json) and mocha never runs it. Each wire
 * format's body, and what `agent.step(input, { format })` resolves to, is assignable to the official
 * SDK's request type without a cast (openai 6, @anthropic-ai/sdk 1, @google/genai 2, the root dev
 * dependencies). This file stops compiling when a body grows a field, a block shape or a literal the
 * SDK does not accept.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type { GenerateContentParameters, GenerateContentResponse } from '@google/genai'
import type { Agent } from 'dsh-agent'
import type {
  AnthropicBetaRequest, AnthropicFields, AnthropicRequest, AnthropicToolChangeMessage, ChatFields, ChatRequest, GeminiRequest, RequestBody, ResponsesFields, ResponsesRequest,
} from 'dsh-wire'
import type OpenAI from 'openai'

declare const chat: ChatRequest
declare const responses: ResponsesRequest
declare const anthropic: AnthropicRequest
declare const gemini: GeminiRequest
declare const agent: Agent

export const chatBody: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = chat
export const responsesBody: OpenAI.Responses.ResponseCreateParamsNonStreaming = responses
export const anthropicBody: Anthropic.MessageCreateParamsNonStreaming = anthropic
export const geminiBody: GenerateContentParameters = gemini
declare const named: RequestBody<'anthropic'>
export const byName: Anthropic.MessageCreateParamsNonStreaming = named

/** `step()` resolves to the body of the format it is given, and to `openai-chat` without one. */
export async function steps(): Promise<void> {
  const plain: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = await agent.step('hi')
  const asResponses: OpenAI.Responses.ResponseCreateParamsNonStreaming = await agent.step('hi', { format: 'openai-responses' })
  const asAnthropic: Anthropic.MessageCreateParamsNonStreaming = await agent.step('hi', { format: 'anthropic', maxTokens: 1024 })
  const asGemini: GenerateContentParameters = (await agent.stepDetailed(undefined, { format: 'gemini' })).request
  void [plain, asResponses, asAnthropic, asGemini]
}

declare const completion: OpenAI.Chat.ChatCompletion
declare const response: OpenAI.Responses.Response
declare const message: Anthropic.Message
declare const generated: GenerateContentResponse

/** Each SDK's reply type is what `agent.record(reply, { format })` takes, without a cast (issue 19). */
export function records(): void {
  agent.record(completion, { format: 'openai-chat' })
  agent.record(response, { format: 'openai-responses' })
  agent.record(message, { format: 'anthropic' })
  agent.record(generated, { format: 'gemini' })
  agent.record(completion.choices[0].message)
}

/** Extra body fields reach the request's type: a streaming step is the SDK's streaming request (issue 23). */
export async function fields(): Promise<void> {
  const chatStream: OpenAI.Chat.ChatCompletionCreateParamsStreaming = await agent.step('hi', { fields: { stream: true, stream_options: { include_usage: true }, prompt_cache_key: 'c1', prompt_cache_retention: '24h' } })
  const responsesStream: OpenAI.Responses.ResponseCreateParamsStreaming = await agent.step('hi', { format: 'openai-responses', fields: { stream: true, store: false, include: ['reasoning.encrypted_content'] } })
  const anthropicStream: Anthropic.MessageCreateParamsStreaming = await agent.step('hi', { format: 'anthropic', fields: { stream: true, temperature: 0.2 } })
  const geminiConfig: GenerateContentParameters = await agent.step('hi', { format: 'gemini', fields: { config: { temperature: 0.2 } } })
  // @ts-expect-error dsh owns the messages
  await agent.step('hi', { fields: { messages: [] } })
  void [chatStream, responsesStream, anthropicStream, geminiConfig]
}

/** Every field the SDK's request type allows, beside the ones dsh owns, is an allowed extra field. */
export const chatFields: ChatFields = {} as Omit<OpenAI.Chat.ChatCompletionCreateParamsStreaming, 'model' | 'messages' | 'tools'>
export const responsesFields: ResponsesFields = {} as Omit<OpenAI.Responses.ResponseCreateParamsStreaming, 'model' | 'input' | 'instructions' | 'tools'>
export const anthropicFields: AnthropicFields = {} as Omit<Anthropic.MessageCreateParamsStreaming, 'model' | 'messages' | 'system' | 'tools'>

/**
 * A body that adds a tool mid-conversation (`wire.toolAdditions`, R-TOOL-13) is the beta Messages API's
 * request: its `system` message of `tool_addition` blocks is `BetaSystemMessageParam` (@anthropic-ai/sdk
 * 1.14: `BetaRequestToolAdditionBlock` with `BetaToolChangeToolDefinitionParam`), sent by
 * `client.beta.messages.create` with the header `step().headers` names.
 */
declare const anthropicBeta: AnthropicBetaRequest
declare const toolChange: AnthropicToolChangeMessage
export const anthropicBetaBody: Anthropic.Beta.Messages.MessageCreateParamsNonStreaming = anthropicBeta
export const toolChangeMessage: Anthropic.Beta.BetaSystemMessageParam = toolChange
/** The golden shape (tool-append.spec.ts in dsh-agent pins the bytes). */
export const toolAdditionGolden: AnthropicToolChangeMessage = {
  role: 'system',
  content: [{ type: 'tool_addition', tool: { type: 'tool_definition', definition: { name: 'grep', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, description: 'Searches files.' } } }],
}
export const toolAdditionAsSdk: Anthropic.Beta.BetaMessageParam = toolAdditionGolden
