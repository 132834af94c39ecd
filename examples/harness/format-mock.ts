/**
 * A local stand-in for the four providers' endpoints, for the harness example's second part:
 * `node:http` on 127.0.0.1 at an ephemeral port, serving `POST /v1/chat/completions`, `/v1/responses`,
 * `/v1/messages` and `/v1beta/models/<model>:generateContent` (and `:streamGenerateContent?alt=sse`).
 * Each plays the same script in its provider's documented shapes (typed with the official SDKs'
 * types): asked a question, the model thinks and calls `read` (with its reasoning state: a Responses
 * reasoning item with `encrypted_content`, an Anthropic thinking block with its `signature`, a Gemini
 * `thoughtSignature` on a call without an id); given the result, it answers, streamed when asked. A
 * second request that does not send the reasoning state back, unchanged, gets a 400, as the
 * providers answer it. A request that names an earlier reply for a cache comparison (Anthropic
 * `diagnostics.previous_message_id`, OpenAI `prompt_cache_options.comparison_response_id`) gets the
 * providers' diagnosis on its reply: the first part that changed, or none; an Anthropic request that
 * carries `diagnostics` without the beta header (`anthropic-beta: cache-diagnosis-2026-04-07`, which
 * Anthropic's cache diagnostics page asks for on every request) gets a 400.
 * @module
 */
import type Anthropic from '@anthropic-ai/sdk'
import type { Part } from '@google/genai'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type OpenAI from 'openai'

/** The reasoning state each provider hands out, which must come back. */
export const ENCRYPTED = 'gAAAAABmock-encrypted-reasoning=='
export const SIGNATURE = 'EqQBmock-thinking-signature'
export const THOUGHT_SIGNATURE = 'CiQBmock-thought-signature=='

/** A running mock of the four endpoints. */
export interface FormatMock {
  /** `http://127.0.0.1:<port>`: the origin every client's base URL starts with. */
  readonly origin: string
  /** Every problem found in a request (each was also answered with a 400). */
  readonly failures: readonly string[]
  /** How many requests each route served. */
  readonly served: Record<string, number>
  close(): Promise<void>
}

type Body = Record<string, unknown> & { stream?: boolean }
type Events = { event?: string; data: object }[]
interface Script {
  call(path: string): object
  answer(text: string, diagnosis: Diagnosis): Events
  check(body: Body): string | undefined
  resultOf(body: Body): string | undefined
  /** The reply id the request names for a cache comparison (the diagnostics bridge), if it asks for one. */
  compareWith?(body: Body): string | undefined
  /** What is wrong with the request's headers for its body, if anything. */
  checkHeaders?(body: Body, headers: IncomingMessage['headers']): string | undefined
}

/** The beta Anthropic's cache diagnostics needs (the mock's own copy: it checks the harness, not dsh). */
const DIAGNOSIS_BETA = 'cache-diagnosis-2026-04-07'

/** The provider's cache diagnosis of a request compared with an earlier one: the part that changed first, or none. */
type Diagnosis = 'model' | 'system' | 'tools' | 'messages' | 'none' | undefined

/** Canonical JSON without cache_control (which the providers' prefix comparison ignores). */
const plain = (value: unknown) => JSON.stringify(value, (key, inner) => (key === 'cache_control' ? undefined : inner))

/** Compares `body` with the earlier request `before` as the providers document it: model, system, tools, then the messages as a prefix. */
function diagnose(body: Body, before: Body | undefined, system: string, list: string): Diagnosis {
  if (!before) return undefined
  if (body.model !== before.model) return 'model'
  if (plain(body.tools) !== plain(before.tools)) return 'tools'
  if (plain(body[system]) !== plain(before[system])) return 'system'
  const now = body[list] as unknown[]
  const then = before[list] as unknown[]
  return plain(now.slice(0, then.length)) === plain(then) ? 'none' : 'messages'
}

const words = (text: string) => text.split(/(?<= )/)

const chat: Script = {
  resultOf: (body) => ((body.messages as { role: string; content: string }[]).at(-1)?.role === 'tool' ? (body.messages as { content: string }[]).at(-1)!.content : undefined),
  check: () => undefined,
  call: (path): OpenAI.Chat.ChatCompletion => ({
    id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'mock-model',
    choices: [{ index: 0, finish_reason: 'tool_calls', logprobs: null, message: { role: 'assistant', content: null, refusal: null, tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'read', arguments: JSON.stringify({ path }) } },
    ] } }],
    usage: { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920 },
  }),
  answer: (text): Events => [
    ...words(text).map((piece): { data: OpenAI.Chat.ChatCompletionChunk } => ({ data: { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 0, model: 'mock-model', choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] } })),
    { data: { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 0, model: 'mock-model', choices: [], usage: { prompt_tokens: 960, completion_tokens: 12, total_tokens: 972, prompt_tokens_details: { cached_tokens: 896 } } } },
  ],
}

const REASONING: OpenAI.Responses.ResponseReasoningItem = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Read the notes first.' }], encrypted_content: ENCRYPTED }
const responses: Script = {
  resultOf: (body) => [...(body.input as { type: string; output?: string }[])].reverse().find((item) => item.type === 'function_call_output')?.output,
  check: (body) => ((body.input as { type: string; encrypted_content?: string }[]).some((item) => item.type === 'reasoning' && item.encrypted_content === ENCRYPTED)
    ? undefined : 'the reasoning item (with its encrypted_content) was not sent back'),
  call: (path) => ({ id: 'resp_1', object: 'response', model: 'mock-model', status: 'completed', output: [
    REASONING, { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read', arguments: JSON.stringify({ path }), status: 'completed' },
  ] satisfies OpenAI.Responses.ResponseOutputItem[], usage: { input_tokens: 900, input_tokens_details: { cached_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 20 }, total_tokens: 940 } }),
  compareWith: (body) => (body.prompt_cache_options as { comparison_response_id?: string } | undefined)?.comparison_response_id,
  answer: (text, diagnosis): Events => {
    const diagnostics = diagnosis === undefined ? {} : { prompt_cache_diagnostics: diagnosis === 'none' ? { type: 'cache_hit' } : { type: 'cache_miss', reason: `${diagnosis}_changed`, cache_missed_tokens: 896 } }
    const message: OpenAI.Responses.ResponseOutputMessage = { type: 'message', id: 'msg_2', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }
    const shell = { id: 'resp_2', object: 'response', model: 'mock-model', output: [] as object[] }
    const events: object[] = [
      { type: 'response.created', response: { ...shell, status: 'in_progress' } },
      { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
      ...words(text).map((delta) => ({ type: 'response.output_text.delta', item_id: 'msg_2', output_index: 0, content_index: 0, delta, logprobs: [] })),
      { type: 'response.output_item.done', output_index: 0, item: message },
      { type: 'response.completed', response: { ...shell, status: 'completed', output: [message], usage: { input_tokens: 980, input_tokens_details: { cached_tokens: 896 }, output_tokens: 12, total_tokens: 992 }, ...diagnostics } },
    ]
    return events.map((data, sequence) => ({ event: (data as { type: string }).type, data: { ...data, sequence_number: sequence } }))
  },
}

const THINKING: Anthropic.ThinkingBlock = { type: 'thinking', thinking: 'Read the notes first.', signature: SIGNATURE }
const anthropic: Script = {
  resultOf: (body) => {
    const last = (body.messages as { content: { type: string; content?: string }[] }[]).at(-1)!.content.find((block) => block.type === 'tool_result')
    return last?.content
  },
  check: (body) => ((body.messages as { role: string; content: { type: string; signature?: string }[] }[]).some((message) => message.role === 'assistant' && message.content[0]?.type === 'thinking' && message.content[0].signature === SIGNATURE)
    ? undefined : 'the thinking block (with its signature, first in its message) was not sent back'),
  call: (path) => ({ id: 'msg_1', type: 'message', role: 'assistant', model: 'mock-model', stop_reason: 'tool_use', stop_sequence: null,
    content: [THINKING, { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path } }], usage: { input_tokens: 900, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }),
  compareWith: (body) => (body.diagnostics as { previous_message_id?: string | null } | undefined)?.previous_message_id ?? undefined,
  checkHeaders: (body, headers) => (body.diagnostics === undefined || String(headers['anthropic-beta'] ?? '').split(',').map((beta) => beta.trim()).includes(DIAGNOSIS_BETA)
    ? undefined : `the request carries diagnostics without the beta header anthropic-beta: ${DIAGNOSIS_BETA}`),
  answer: (text, diagnosis): Events => [
    { event: 'message_start', data: { type: 'message_start', message: {
      id: 'msg_2', type: 'message', role: 'assistant', model: 'mock-model', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 60, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 896 },
      // No divergence: `diagnostics: null`; else the first part that changed.
      ...(diagnosis === undefined ? {} : { diagnostics: diagnosis === 'none' ? null : { cache_miss_reason: { type: `${diagnosis}_changed`, cache_missed_input_tokens: 896 } } }),
    } } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    ...words(text).map((piece) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } } })),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 12 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ],
}

const gemini: Script = {
  resultOf: (body) => ((body.contents as { parts: { functionResponse?: { response: { output: string } } }[] }[]).at(-1)!.parts[0].functionResponse?.response.output),
  check: (body) => ((body.contents as { role: string; parts: { functionCall?: object; thoughtSignature?: string }[] }[]).some((content) => content.role === 'model' && content.parts.some((part) => part.functionCall && part.thoughtSignature === THOUGHT_SIGNATURE))
    ? undefined : 'the thought signature was not sent back on its function call'),
  call: (path) => ({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'read', args: { path } }, thoughtSignature: THOUGHT_SIGNATURE }] satisfies Part[] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 900, candidatesTokenCount: 20, thoughtsTokenCount: 20 } }),
  answer: (text): Events => words(text).map((piece, i, all) => ({ data: {
    candidates: [{ content: { role: 'model', parts: [{ text: piece }] satisfies Part[] }, ...(i === all.length - 1 ? { finishReason: 'STOP' } : {}) }],
    ...(i === all.length - 1 ? { usageMetadata: { promptTokenCount: 980, cachedContentTokenCount: 896, candidatesTokenCount: 12 } } : {}),
  } })),
}

function route(url: string): { name: string; script: Script } | undefined {
  if (url === '/v1/chat/completions') return { name: 'openai-chat', script: chat }
  if (url === '/v1/responses') return { name: 'openai-responses', script: responses }
  if (url === '/v1/messages') return { name: 'anthropic', script: anthropic }
  if (/^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent\?alt=sse)$/.test(url)) return { name: 'gemini', script: gemini }
}

/** Starts the mock on 127.0.0.1; `path` is what its model asks `read` to read, `answer` turns the result into its answer. */
export async function startFormatMock(path: string, answer: (result: string) => string): Promise<FormatMock> {
  const failures: string[] = []
  const served: Record<string, number> = {}
  // The requests that got each reply, by the reply's id (`msg_1`, `resp_1`): what a comparison names.
  const answered = new Map<string, Body>()
  const server = createServer((req, res) => void handle(req, res).catch((error) => json(res, 500, { error: { message: String(error) } })))
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const found = req.method === 'POST' ? route(req.url ?? '') : undefined
    if (!found) return json(res, 404, { error: { message: `no route ${req.method} ${req.url}` } })
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body
    served[found.name] = (served[found.name] ?? 0) + 1
    const headerProblem = found.script.checkHeaders?.(body, req.headers)
    if (headerProblem) {
      failures.push(`${found.name}: ${headerProblem}`)
      return json(res, 400, { error: { type: 'invalid_request_error', message: headerProblem } })
    }
    const result = found.script.resultOf(body)
    if (result === undefined) {
      const reply = found.script.call(path) as { id?: string }
      if (reply.id) answered.set(reply.id, body)
      return json(res, 200, reply)
    }
    const problem = found.script.check(body)
    if (problem) {
      failures.push(`${found.name}: ${problem}`)
      return json(res, 400, { error: { type: 'invalid_request_error', message: problem } })
    }
    const compared = found.script.compareWith?.(body)
    const diagnosis = compared === undefined ? undefined : diagnose(body, answered.get(compared), found.name === 'anthropic' ? 'system' : 'instructions', found.name === 'anthropic' ? 'messages' : 'input')
    const reply = found.script.answer(answer(result), diagnosis)
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (const { event, data } of reply) res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
    if (found.name === 'openai-chat') res.write('data: [DONE]\n\n')
    res.end()
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`, failures, served,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
