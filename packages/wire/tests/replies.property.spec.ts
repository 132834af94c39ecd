import { expect } from 'chai'
import fc from 'fast-check'
import { readReply, replyAccumulator } from 'dsh-wire'
import { ANTHROPIC_REPLY, CHAT_REPLY, GEMINI_REPLY } from './reply-fixtures.js'

// The same reply, split into stream events at random points (the way a provider may split it), must
// accumulate to a reply that reads byte for byte as the unstreamed one (`DSH_SOAK=1`: 20,000 splits
// each). The splitters below are a reference written from the documented event shapes, not from the
// accumulators; the Anthropic tool input streams pretty-printed, as partial JSON may have whitespace.

const RUNS = process.env.DSH_SOAK ? 20_000 : 200

/** `text` cut at the sorted, distinct `cuts` (positions in code points, so no surrogate pair is split). */
function pieces(text: string, cuts: readonly number[]): string[] {
  const chars = [...text]
  const at = [...new Set(cuts.map((cut) => cut % (chars.length + 1)))].sort((a, b) => a - b)
  const out: string[] = []
  let start = 0
  for (const cut of [...at, chars.length]) {
    out.push(chars.slice(start, cut).join(''))
    start = cut
  }
  return out
}

const cuts = fc.array(fc.nat(200), { maxLength: 6 })

function anthropicEvents(split: () => readonly number[]): object[] {
  const events: object[] = [{ type: 'message_start', message: { ...ANTHROPIC_REPLY, content: [], usage: { ...ANTHROPIC_REPLY.usage, output_tokens: 1 } } }]
  ANTHROPIC_REPLY.content.forEach((block, index) => {
    const deltas: object[] = []
    let start: object = block
    if (block.type === 'thinking') {
      start = { type: 'thinking', thinking: '', signature: '' }
      for (const thinking of pieces(block.thinking, split())) deltas.push({ type: 'thinking_delta', thinking })
      for (const signature of pieces(block.signature, split())) deltas.push({ type: 'signature_delta', signature })
    } else if (block.type === 'text') {
      start = { type: 'text', text: '' }
      for (const text of pieces(block.text, split())) deltas.push({ type: 'text_delta', text })
    } else if (block.type === 'tool_use') {
      start = { type: 'tool_use', id: block.id, name: block.name, input: {} }
      for (const partial_json of pieces(JSON.stringify(block.input, null, 1), split())) deltas.push({ type: 'input_json_delta', partial_json })
    }
    events.push({ type: 'content_block_start', index, content_block: start }, ...deltas.map((delta) => ({ type: 'content_block_delta', index, delta })), { type: 'content_block_stop', index })
  })
  events.push({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: ANTHROPIC_REPLY.usage.output_tokens } }, { type: 'message_stop' })
  return events
}

function chatEvents(split: () => readonly number[]): object[] {
  const { message } = CHAT_REPLY.choices[0]
  const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'gpt-5', choices: [{ index: 0, delta, finish_reason: finish }] })
  const events: object[] = [chunk({ role: 'assistant' })]
  for (const content of pieces(message.content!, split())) events.push(chunk({ content }))
  message.tool_calls!.forEach((call, index) => {
    if (call.type !== 'function') return
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }))
    for (const args of pieces(call.function.arguments, split())) events.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }))
  })
  events.push(chunk({}, 'tool_calls'), { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'gpt-5', choices: [], usage: CHAT_REPLY.usage })
  return events
}

function geminiEvents(split: () => readonly number[]): object[] {
  const chunks: object[] = []
  for (const part of GEMINI_REPLY.candidates[0].content!.parts!) {
    if (typeof part.text !== 'string') {
      chunks.push({ candidates: [{ content: { role: 'model', parts: [part] } }] })
      continue
    }
    for (const text of pieces(part.text, split())) chunks.push({ candidates: [{ content: { role: 'model', parts: [{ ...part, text }] } }] })
  }
  chunks.push({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP' }], usageMetadata: GEMINI_REPLY.usageMetadata })
  return chunks
}

const CASES = [
  { format: 'anthropic' as const, reply: ANTHROPIC_REPLY, events: anthropicEvents },
  { format: 'openai-chat' as const, reply: CHAT_REPLY, events: chatEvents },
  { format: 'gemini' as const, reply: GEMINI_REPLY, events: geminiEvents },
]

describe('dsh-wire: a reply streamed in pieces cut anywhere accumulates to the unstreamed reply (issue 19) (soak)', () => {
  for (const { format, reply, events } of CASES) {
    it(`${format}: ${RUNS} random splits of every text, signature and argument string read byte for byte as the unstreamed reply`, () => {
      const expected = JSON.stringify(readReply(format, reply, { turn: 1 }))
      fc.assert(fc.property(fc.array(cuts, { minLength: 12, maxLength: 12 }), (splits) => {
        let next = 0
        const accumulator = replyAccumulator(format)
        for (const event of events(() => splits[next++ % splits.length])) accumulator.push(event)
        expect(JSON.stringify(readReply(format, accumulator.result(), { turn: 1 }))).to.equal(expected)
      }), { numRuns: RUNS })
    })
  }
})
