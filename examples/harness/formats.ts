/**
 * The harness example's second part: one tool loop in every wire format, each through its provider's
 * official client (`openai` for chat completions and the Responses API, `@anthropic-ai/sdk`,
 * `@google/genai`) against `format-mock.ts` on 127.0.0.1. The first reply (reasoning state and a call
 * to `read`) goes into the record as the client returned it, `agent.record(reply, { format })`; the
 * answer comes as a stream, put back together by `replyAccumulator(format)` and recorded the same way.
 * The mock refuses a second request that does not carry the reasoning state back.
 * @module
 */
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { replyAccumulator, type Agent, type ProviderReply, type ReplyFormat, type StepResult, type ToolCall } from 'dsh-agent'


/** The provider's own body fields of each format's requests (`step({ fields })`): a Response is not stored, its reasoning comes back encrypted. */
const FIELDS: Record<ReplyFormat, Record<string, unknown>> = {
  'openai-chat': {}, 'openai-responses': { store: false, include: ['reasoning.encrypted_content'] }, anthropic: {}, gemini: {},
}
/** The fields that make a request stream (Gemini streams by endpoint, not by a field). */
const STREAM: Record<ReplyFormat, Record<string, unknown>> = {
  'openai-chat': { stream: true, stream_options: { include_usage: true } }, 'openai-responses': { stream: true }, anthropic: { stream: true }, gemini: {},
}

/**
 * Sends one step's request with its provider's client: the reply, or (streamed) the events of its
 * stream. The step's `headers` (a provider's beta header for a field dsh put in the body, such as
 * Anthropic's cache diagnostics) go with it as the client's request options.
 */
async function send(origin: string, format: ReplyFormat, step: Pick<StepResult<ReplyFormat>, 'request' | 'headers'>, streamed: boolean): Promise<unknown | AsyncIterable<unknown>> {
  const apiKey = 'not-used-by-the-mock'
  const { request } = step
  const options = Object.keys(step.headers).length === 0 ? undefined : { headers: step.headers }
  switch (format) {
    case 'openai-chat': {
      const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey, maxRetries: 0 })
      return streamed ? client.chat.completions.create(request as OpenAI.Chat.ChatCompletionCreateParamsStreaming, options) : client.chat.completions.create(request as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, options)
    }
    case 'openai-responses': {
      const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey, maxRetries: 0 })
      return streamed ? client.responses.create(request as OpenAI.Responses.ResponseCreateParamsStreaming, options) : client.responses.create(request as OpenAI.Responses.ResponseCreateParamsNonStreaming, options)
    }
    case 'anthropic': {
      const client = new Anthropic({ baseURL: origin, apiKey, maxRetries: 0 })
      return streamed ? client.messages.create(request as Anthropic.MessageCreateParamsStreaming, options) : client.messages.create(request as Anthropic.MessageCreateParamsNonStreaming, options)
    }
    case 'gemini': {
      const client = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: origin } })
      const body = request as Parameters<typeof client.models.generateContent>[0]
      return streamed ? client.models.generateContentStream(body) : client.models.generateContent(body)
    }
  }
}

/**
 * One user turn in `format`: step, send, record the reply (its reasoning state and tool calls), run
 * each call with `run`, step again and record the streamed answer. Resolves to the answer's text.
 */
export async function formatTurn(origin: string, agent: Agent, format: ReplyFormat, input: string, run: (call: ToolCall) => Promise<string>): Promise<{ answer: string; report: StepResult<ReplyFormat>['report'] }> {
  const first = await agent.stepDetailed(input, { format, fields: FIELDS[format] })
  agent.record((await send(origin, format, first, false)) as ProviderReply, { format })
  const reply = agent.conversation.at(-1)!
  for (const call of reply.role === 'assistant' ? reply.tool_calls ?? [] : []) agent.record({ role: 'tool', tool_call_id: call.id, content: await run(call) })
  const second = await agent.stepDetailed(undefined, { format, fields: { ...FIELDS[format], ...STREAM[format] } })
  const accumulator = replyAccumulator(format)
  for await (const event of (await send(origin, format, second, true)) as AsyncIterable<unknown>) accumulator.push(event)
  // With the diagnostics bridge on, recording the reply joins the provider's diagnosis with dsh's report.
  agent.record(accumulator.result() as ProviderReply, { format })
  const answer = agent.conversation.at(-1)!
  return { answer: answer.role === 'assistant' ? answer.content ?? '' : '', report: second.report }
}
