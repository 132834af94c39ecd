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
import type { AnthropicRequest, ChatRequest, GeminiRequest, RequestBody, ResponsesRequest } from 'dsh-wire'
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
