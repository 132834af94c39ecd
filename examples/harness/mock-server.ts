/**
 * A local stand-in for an OpenAI-compatible chat-completions endpoint, for the harness example: `node:http`
 * on 127.0.0.1 at an ephemeral port. It plays the model from a tiny script (asked about the notes file, it
 * calls `read`; given a tool result, it answers from it; otherwise it acknowledges the turn), streamed
 * when the request asks (`stream: true`), and checks
 * every request it gets. A request that breaks the loop's rules gets a 400 error, which the `openai`
 * client throws, so the example fails when the loop is wrong.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { COMPACTION_SUMMARY_MARKER } from 'dsh-agent'

/** A message as the server reads it (the chat-completions shape, loosely). */
export interface WireMessage {
  role: string
  content?: string | null
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>
  tool_call_id?: string
}

/** A request body as the server reads it. */
export interface WireRequest {
  model: string
  messages: WireMessage[]
  tools?: Array<{ type: string; function: { name: string } }>
  stream?: boolean
  stream_options?: { include_usage?: boolean }
}

/** What the server expects of every request. */
export interface Expectations {
  /** The model every request names. */
  model: string
  /** A tool every request must offer. */
  tool: string
  /** The file the scripted model asks `tool` to read when a user mentions its name. */
  file: string
}

/** A running mock server. */
export interface MockServer {
  /** The base URL to give the `openai` client (`http://127.0.0.1:<port>/v1`). */
  readonly url: string
  /** Every request body received, in order. */
  readonly requests: readonly WireRequest[]
  /** Every problem found in a request (each was also answered with a 400). */
  readonly failures: readonly string[]
  close(): Promise<void>
}

/** The first line of dsh's runtime-context snapshot (a user message that is not the user's input). */
const SNAPSHOT = 'Current runtime context'

/**
 * The rules of the loop a request must follow: the system prompt first, the tool offered, the previous
 * request's messages repeated unchanged at its start (so the provider's prefix cache keeps hitting),
 * and every tool call of an assistant message answered by a tool message before the next user input.
 */
export function checkRequest(body: WireRequest, previous: WireRequest | undefined, expect: Expectations): string[] {
  const problems: string[] = []
  const messages = Array.isArray(body?.messages) ? body.messages : []
  if (body?.model !== expect.model) problems.push(`model is ${JSON.stringify(body?.model)}, expected ${JSON.stringify(expect.model)}`)
  if (messages[0]?.role !== 'system') problems.push(`the first message is ${JSON.stringify(messages[0]?.role)}, not the system prompt`)
  if (!body?.tools?.some((tool) => tool.type === 'function' && tool.function?.name === expect.tool)) problems.push(`the tool "${expect.tool}" is not offered`)
  // A compaction opens a new epoch: its first request (with a summary the previous one lacks) keeps only the opening system prompt.
  const summary = (request: WireRequest) => request.messages.find((message) => message.role === 'user' && message.content?.startsWith(COMPACTION_SUMMARY_MARKER))?.content
  const compacted = previous !== undefined && summary(body) !== undefined && summary(body) !== summary(previous)
  if (compacted && JSON.stringify(messages[0]) !== JSON.stringify(previous.messages[0])) {
    problems.push('the first request after a compaction does not keep the opening system prompt of the request before it')
  } else if (previous && !compacted && JSON.stringify(messages.slice(0, previous.messages.length)) !== JSON.stringify(previous.messages)) {
    problems.push('the request does not start with the messages of the previous request')
  }
  messages.forEach((message, index) => {
    for (const call of message.tool_calls ?? []) {
      const answered = messages.slice(index + 1).find((later) => later.role === 'tool' && later.tool_call_id === call.id)
      if (!answered) problems.push(`tool call ${call.id} (${call.function.name}) has no tool result`)
    }
  })
  const last = messages.at(-1)
  if (last?.role !== 'user' && last?.role !== 'tool') problems.push(`the last message is ${JSON.stringify(last?.role)}: nothing for the model to answer`)
  return problems
}

/** The scripted model's reply to a (checked) request; `id` numbers the request (tool call ids use it). */
export function reply(body: WireRequest, expect: Expectations, id: number) {
  const last = body.messages.at(-1)!
  if (last.role === 'tool') {
    const line = (last.content ?? '').split('\n').find((text) => text.includes('0.1.0')) ?? '(nothing about releases)'
    return { role: 'assistant' as const, content: `From the notes: ${line.replace(/^\s*\d+\s+/, '')}` }
  }
  const input = [...body.messages].reverse().find((message) => message.role === 'user' && !message.content?.startsWith(SNAPSHOT))
  if (input?.content?.startsWith('Summarise this conversation')) {
    const items = body.messages.filter((message) => message.role === 'user' && message.content?.startsWith('Remember item')).length
    return { role: 'assistant' as const, content: `The user keeps release notes in ${expect.file}; 0.1.0 is the first release that installs outside the repository. They asked me to remember ${items} checklist items.` }
  }
  if (input?.content?.includes('notes.md')) {
    const call = { id: `call_${id}`, type: 'function' as const, function: { name: expect.tool, arguments: JSON.stringify({ path: expect.file }) } }
    return { role: 'assistant' as const, content: null, tool_calls: [call] }
  }
  return { role: 'assistant' as const, content: `Noted: ${input?.content ?? ''}` }
}

/** Starts the server on 127.0.0.1 at a port the system picks. */
export async function startMockServer(expect: Expectations): Promise<MockServer> {
  const requests: WireRequest[] = []
  const failures: string[] = []
  const server = createServer((req, res) => {
    void handle(req, res).catch((error) => send(res, 500, { error: { message: String(error), type: 'server_error' } }))
  })
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' } })
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WireRequest
    const problems = checkRequest(body, requests.at(-1), expect)
    requests.push(body)
    if (problems.length) {
      failures.push(...problems.map((problem) => `request ${requests.length}: ${problem}`))
      return send(res, 400, { error: { message: problems.join('; '), type: 'invalid_request_error' } })
    }
    const message = reply(body, expect, requests.length)
    if (body.stream) return stream(res, `chatcmpl-${requests.length}`, body, message, usageOf(body, requests.at(-2)))
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { refusal: null, ...message }, finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop', logprobs: null }],
      usage: usageOf(body, requests.at(-2)),
    })
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    failures,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  }
}

/**
 * Usage as an OpenAI-compatible server reports it, estimated: a quarter of the body's characters as
 * prompt tokens, and as cached tokens the prefix the body shares with the previous request, from
 * 1,024 tokens in 128-token steps (OpenAI's prompt caching). Enough for the harness to see an epoch's
 * reported cost next to its prediction; a real provider counts with its tokenizer.
 */
export function usageOf(body: WireRequest, previous: WireRequest | undefined) {
  const text = JSON.stringify(body)
  const before = previous === undefined ? '' : JSON.stringify(previous)
  let shared = 0
  while (shared < text.length && shared < before.length && text[shared] === before[shared]) shared++
  const prompt = Math.ceil(text.length / 4)
  const prefix = Math.floor(shared / 4)
  const cached = prefix < 1024 ? 0 : 1024 + Math.floor((prefix - 1024) / 128) * 128
  return { prompt_tokens: prompt, completion_tokens: 8, total_tokens: prompt + 8, prompt_tokens_details: { cached_tokens: cached } }
}

/**
 * The reply as a chat-completions stream (`stream: true`): the text in word-sized deltas, each tool call
 * in one delta, the finish reason, then (with `stream_options.include_usage`) a chunk with the usage and
 * no choices, and `data: [DONE]`.
 */
function stream(res: ServerResponse, id: string, body: WireRequest, message: ReturnType<typeof reply>, usage: ReturnType<typeof usageOf>): void {
  const chunk = (choices: object[], extra: object = {}) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: body.model, choices, ...extra })}\n\n`
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]))
  for (const piece of (message.content ?? '').split(/(?<= )/).filter(Boolean)) res.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]))
  const calls = ('tool_calls' in message ? message.tool_calls : undefined) ?? []
  calls.forEach((call, index) => res.write(chunk([{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }])))
  res.write(chunk([{ index: 0, delta: {}, finish_reason: calls.length ? 'tool_calls' : 'stop' }]))
  if (body.stream_options?.include_usage) res.write(chunk([], { usage }))
  res.end('data: [DONE]\n\n')
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
