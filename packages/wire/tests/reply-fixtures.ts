/**
 * Provider replies and their streams, one pair per format, in the shapes the providers document (and
 * the official SDKs type: each literal is checked against `openai` 6, `@anthropic-ai/sdk` 1 and
 * `@google/genai` 2 by `tsc -b`). Each stream is the same reply as its unstreamed twin, split the way
 * the provider's stream splits it. Shared by the wire and agent tests and the harness example's mock.
 * @module
 */
import type Anthropic from '@anthropic-ai/sdk'
import type { Candidate, Part } from '@google/genai'
import type OpenAI from 'openai'

/** A 1x1 PNG, base64. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

// ---- openai-chat: a reply with text and two tool calls (Chat Completions reference; streaming guide).
export const CHAT_REPLY: OpenAI.Chat.ChatCompletion = {
  id: 'chatcmpl-1', object: 'chat.completion', created: 1764547200, model: 'gpt-5',
  choices: [{
    index: 0, finish_reason: 'tool_calls', logprobs: null,
    message: {
      role: 'assistant', content: 'Reading both.', refusal: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } },
        { id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"path":"b.txt"}' } },
      ],
    },
  }],
  usage: { prompt_tokens: 1200, completion_tokens: 30, total_tokens: 1230, prompt_tokens_details: { cached_tokens: 1024 } },
}

const chunk = (delta: OpenAI.Chat.ChatCompletionChunk.Choice.Delta, finish: OpenAI.Chat.ChatCompletionChunk.Choice['finish_reason'] = null): OpenAI.Chat.ChatCompletionChunk => ({
  id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764547200, model: 'gpt-5', choices: [{ index: 0, delta, finish_reason: finish }],
})

export const CHAT_STREAM: OpenAI.Chat.ChatCompletionChunk[] = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Reading ' }),
  chunk({ content: 'both.' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.txt"}' } }] }),
  chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"path":"b.txt"}' } }] }),
  chunk({}, 'tool_calls'),
  { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764547200, model: 'gpt-5', choices: [], usage: CHAT_REPLY.usage },
]

// ---- openai-responses: reasoning (encrypted, for store: false), a message, a function call.
export const RESPONSES_OUTPUT: OpenAI.Responses.ResponseOutputItem[] = [
  { type: 'reasoning', id: 'rs_1', status: 'completed', summary: [{ type: 'summary_text', text: 'Two files to read.' }], encrypted_content: 'gAAAAABpENCRYPTED==' },
  { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Reading a.txt.', annotations: [] }] },
  { type: 'function_call', id: 'fc_1', call_id: 'call_r1', name: 'read', arguments: '{"path":"a.txt"}', status: 'completed' },
]
const RESPONSES_USAGE: OpenAI.Responses.ResponseUsage = {
  input_tokens: 2000, input_tokens_details: { cached_tokens: 1536, cache_write_tokens: 0 }, output_tokens: 120, output_tokens_details: { reasoning_tokens: 96 }, total_tokens: 2120,
}
export const RESPONSES_REPLY = { id: 'resp_1', object: 'response', model: 'gpt-5', status: 'completed', output: RESPONSES_OUTPUT, usage: RESPONSES_USAGE } as const

const shell = (status: string, extra: object = {}) => ({ id: 'resp_1', object: 'response', model: 'gpt-5', status, output: [], ...extra })
export const RESPONSES_STREAM: object[] = [
  { type: 'response.created', sequence_number: 0, response: shell('in_progress') },
  { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { ...RESPONSES_OUTPUT[0], summary: [] } },
  { type: 'response.reasoning_summary_text.delta', sequence_number: 2, item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'Two files to read.' },
  { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item: RESPONSES_OUTPUT[0] } satisfies OpenAI.Responses.ResponseOutputItemDoneEvent,
  { type: 'response.output_text.delta', sequence_number: 4, item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Reading ', logprobs: [] } satisfies OpenAI.Responses.ResponseTextDeltaEvent,
  { type: 'response.output_text.delta', sequence_number: 5, item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'a.txt.', logprobs: [] } satisfies OpenAI.Responses.ResponseTextDeltaEvent,
  { type: 'response.output_item.done', sequence_number: 6, output_index: 1, item: RESPONSES_OUTPUT[1] } satisfies OpenAI.Responses.ResponseOutputItemDoneEvent,
  { type: 'response.function_call_arguments.delta', sequence_number: 7, item_id: 'fc_1', output_index: 2, delta: '{"path":"a.txt"}' } satisfies OpenAI.Responses.ResponseFunctionCallArgumentsDeltaEvent,
  { type: 'response.output_item.done', sequence_number: 8, output_index: 2, item: RESPONSES_OUTPUT[2] } satisfies OpenAI.Responses.ResponseOutputItemDoneEvent,
  { type: 'response.completed', sequence_number: 9, response: shell('completed', { output: RESPONSES_OUTPUT, usage: RESPONSES_USAGE }) },
]

// ---- anthropic: extended thinking with a signature, a redacted block, text and a tool use.
export const ANTHROPIC_CONTENT: Anthropic.ContentBlock[] = [
  { type: 'thinking', thinking: 'The user wants a.txt; I will read it.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
  { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
  { type: 'text', text: 'Reading a.txt.', citations: null },
  { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.txt', lines: [1, 20] }, caller: { type: 'direct' } },
]
const ANTHROPIC_USAGE = { input_tokens: 50, cache_creation_input_tokens: 0, cache_read_input_tokens: 1800, output_tokens: 140 }
export const ANTHROPIC_REPLY = {
  id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-opus-4-5', content: ANTHROPIC_CONTENT, stop_reason: 'tool_use', stop_sequence: null, usage: ANTHROPIC_USAGE,
} as const

const delta = (index: number, value: object) => ({ type: 'content_block_delta', index, delta: value })
export const ANTHROPIC_STREAM: object[] = [
  { type: 'message_start', message: { ...ANTHROPIC_REPLY, content: [], stop_reason: null, usage: { ...ANTHROPIC_USAGE, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  delta(0, { type: 'thinking_delta', thinking: 'The user wants a.txt; ' }),
  delta(0, { type: 'thinking_delta', thinking: 'I will read it.' }),
  delta(0, { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' }),
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '', citations: null } },
  { type: 'ping' },
  delta(2, { type: 'text_delta', text: 'Reading ' }),
  delta(2, { type: 'text_delta', text: 'a.txt.' }),
  { type: 'content_block_stop', index: 2 },
  { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} } },
  delta(3, { type: 'input_json_delta', partial_json: '' }),
  delta(3, { type: 'input_json_delta', partial_json: '{"path": "a.txt", ' }),
  delta(3, { type: 'input_json_delta', partial_json: '"lines": [1, 20]}' }),
  { type: 'content_block_stop', index: 3 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 140 } },
  { type: 'message_stop' },
]

// ---- gemini: a thought summary, text with a signature, a call without an id carrying its signature, an image.
export const GEMINI_PARTS: Part[] = [
  { text: 'Planning: read the file.', thought: true },
  { text: 'Reading a.txt and drawing it.' },
  { functionCall: { name: 'read', args: { path: 'a.txt' } }, thoughtSignature: 'CiQBjz1rX2Signature==' },
  { inlineData: { mimeType: 'image/png', data: PNG } },
]
const GEMINI_USAGE = { promptTokenCount: 3000, cachedContentTokenCount: 2048, candidatesTokenCount: 40, thoughtsTokenCount: 60, totalTokenCount: 3100 }
const candidate = (parts: Part[], finishReason?: Candidate['finishReason']): Candidate => ({ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}) })
export const GEMINI_REPLY = { candidates: [candidate(GEMINI_PARTS, 'STOP' as Candidate['finishReason'])], usageMetadata: GEMINI_USAGE, modelVersion: 'gemini-3-pro', responseId: 'r1' }
export const GEMINI_STREAM: object[] = [
  { candidates: [candidate([{ text: 'Planning: ', thought: true }])], modelVersion: 'gemini-3-pro', responseId: 'r1' },
  { candidates: [candidate([{ text: 'read the file.', thought: true }])], modelVersion: 'gemini-3-pro', responseId: 'r1' },
  { candidates: [candidate([{ text: 'Reading a.txt ' }])], modelVersion: 'gemini-3-pro', responseId: 'r1' },
  { candidates: [candidate([{ text: 'and drawing it.' }])], modelVersion: 'gemini-3-pro', responseId: 'r1' },
  { candidates: [candidate([GEMINI_PARTS[2], GEMINI_PARTS[3]], 'STOP' as Candidate['finishReason'])], usageMetadata: GEMINI_USAGE, modelVersion: 'gemini-3-pro', responseId: 'r1' },
]
