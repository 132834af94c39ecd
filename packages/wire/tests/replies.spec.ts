import { expect } from 'chai'
import { buildRequest, entry, WireSession, readReply, replyAccumulator, REPLY_FORMATS, type ConversationEntry, type ReplyFormat, type ToolMessage } from 'dsh-wire'
import { thrown } from 'dsh-testing'
import { input, system, user } from './helpers.js'
import {
  ANTHROPIC_REPLY, ANTHROPIC_STREAM, CHAT_REPLY, CHAT_STREAM, GEMINI_REPLY, GEMINI_STREAM, PNG, RESPONSES_REPLY, RESPONSES_STREAM,
} from './reply-fixtures.js'

const REPLIES: Record<ReplyFormat, { reply: unknown; stream: readonly unknown[] }> = {
  'openai-chat': { reply: CHAT_REPLY, stream: CHAT_STREAM },
  'openai-responses': { reply: RESPONSES_REPLY, stream: RESPONSES_STREAM },
  anthropic: { reply: ANTHROPIC_REPLY, stream: ANTHROPIC_STREAM },
  gemini: { reply: GEMINI_REPLY, stream: GEMINI_STREAM },
}

const readCall = (id: string, args = '{"path":"a.txt"}') => ({ id, type: 'function', function: { name: 'read', arguments: args } })

/** What the record keeps of each format's documented reply. */
const GOLDEN: Record<ReplyFormat, object> = {
  'openai-chat': {
    message: { role: 'assistant', content: 'Reading both.', tool_calls: [readCall('call_a'), readCall('call_b', '{"path":"b.txt"}')] },
    usage: { inputTokens: 1200, cachedReadTokens: 1024, cacheWriteTokens: null, outputTokens: 30 },
  },
  'openai-responses': {
    message: {
      role: 'assistant', content: 'Reading a.txt.', tool_calls: [readCall('call_r1')],
      parts: [
        { type: 'reasoning', format: 'openai-responses', item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two files to read.' }], encrypted_content: 'gAAAAABpENCRYPTED==' } },
        { type: 'text', text: 'Reading a.txt.' }, { type: 'tool_call', id: 'call_r1' },
      ],
    },
    usage: { inputTokens: 2000, cachedReadTokens: 1536, cacheWriteTokens: 0, outputTokens: 120 },
    id: 'resp_1',
  },
  anthropic: {
    message: {
      role: 'assistant', content: 'Reading a.txt.', tool_calls: [readCall('toolu_1', '{"path":"a.txt","lines":[1,20]}')],
      parts: [
        { type: 'reasoning', format: 'anthropic', item: { type: 'thinking', thinking: 'The user wants a.txt; I will read it.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' } },
        { type: 'reasoning', format: 'anthropic', item: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' } },
        { type: 'text', text: 'Reading a.txt.' }, { type: 'tool_call', id: 'toolu_1' },
      ],
    },
    usage: { inputTokens: 1850, cachedReadTokens: 1800, cacheWriteTokens: 0, outputTokens: 140 },
    id: 'msg_1',
  },
  gemini: {
    message: {
      role: 'assistant', content: 'Reading a.txt and drawing it.', tool_calls: [readCall('gemini-3-0')],
      parts: [
        { type: 'reasoning', format: 'gemini', item: { text: 'Planning: read the file.', thought: true } },
        { type: 'text', text: 'Reading a.txt and drawing it.' },
        { type: 'tool_call', id: 'gemini-3-0', thoughtSignature: 'CiQBjz1rX2Signature==' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    },
    usage: { inputTokens: 3000, cachedReadTokens: 2048, cacheWriteTokens: null, outputTokens: 100 },
  },
}

/** A record with the format's reply in it, and a tool result answering its first call. */
function recordWith(format: ReplyFormat, result: Partial<ToolMessage> = {}): ConversationEntry[] {
  const { message } = readReply(format, REPLIES[format].reply, { turn: 3 })
  const id = message.tool_calls![0].id
  return [system('S'), user('U'), entry(message, 'assistant'), entry({ role: 'tool', tool_call_id: id, content: 'hello', ...result }, 'tool')]
}

const SCREENSHOT: Partial<ToolMessage> = { content: 'a screenshot', parts: [{ type: 'text', text: 'a screenshot' }, { type: 'image', mediaType: 'image/png', data: PNG }] }

describe('dsh-wire: replies in, in every format (issue 19)', () => {
  for (const format of REPLY_FORMATS) {
    it(`${format}: the documented reply reads into the record's reply, its order, reasoning state and usage kept`, () => {
      expect(readReply(format, REPLIES[format].reply, { turn: 3 })).to.deep.equal(GOLDEN[format])
    })

    it(`${format}: the documented stream, accumulated, reads byte for byte as the same reply unstreamed`, () => {
      const accumulator = replyAccumulator(format)
      for (const event of REPLIES[format].stream) accumulator.push(event)
      expect(JSON.stringify(readReply(format, accumulator.result(), { turn: 3 }))).to.equal(JSON.stringify(readReply(format, REPLIES[format].reply, { turn: 3 })))
    })
  }

  it('anthropic: the next request sends the thinking blocks back unchanged and in order, before the text and the tool use', () => {
    const request = buildRequest('anthropic', input(recordWith('anthropic')))
    expect(request.messages[1]).to.deep.equal({
      role: 'assistant', content: [
        { type: 'thinking', thinking: 'The user wants a.txt; I will read it.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
        { type: 'text', text: 'Reading a.txt.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.txt', lines: [1, 20] } },
      ],
    })
  })

  it('anthropic: a breakpoint on a reply that ends in a thinking block leaves the block unmarked', () => {
    const record = [system('Be brief. '.repeat(2000)), user('U'), entry({ role: 'assistant', content: null, parts: [{ type: 'reasoning', format: 'anthropic', item: { type: 'redacted_thinking', data: 'x' } }] }, 'assistant')]
    const build = new WireSession('anthropic').build(input(record, { breakpoints: {} }))
    expect(build.breakpoints.map((point) => [point.kind, point.where, point.index])).to.deep.include(['tail', 'messages', 1])
    expect(build.request.messages[1].content).to.deep.equal([{ type: 'redacted_thinking', data: 'x' }])
    expect(JSON.parse(build.body).messages[1].content).to.deep.equal([{ type: 'redacted_thinking', data: 'x' }])
  })

  it('openai-responses: the next request sends the reasoning item back with its encrypted content, then the message and the call', () => {
    const request = buildRequest('openai-responses', input(recordWith('openai-responses')))
    expect(request.input).to.deep.equal([
      { type: 'message', role: 'user', content: 'U' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two files to read.' }], encrypted_content: 'gAAAAABpENCRYPTED==' },
      { type: 'message', role: 'assistant', content: 'Reading a.txt.' },
      { type: 'function_call', call_id: 'call_r1', name: 'read', arguments: '{"path":"a.txt"}' },
      { type: 'function_call_output', call_id: 'call_r1', output: 'hello' },
    ])
  })

  it('gemini: the next request sends each part back in place, the signature on the call it came with, the image as inline data', () => {
    const request = buildRequest('gemini', input(recordWith('gemini')))
    expect(request.contents[1]).to.deep.equal({
      role: 'model', parts: [
        { text: 'Planning: read the file.', thought: true },
        { text: 'Reading a.txt and drawing it.' },
        { functionCall: { id: 'gemini-3-0', name: 'read', args: { path: 'a.txt' } }, thoughtSignature: 'CiQBjz1rX2Signature==' },
        { inlineData: { mimeType: 'image/png', data: PNG } },
      ],
    })
  })

  it('gemini: a call without an id gets gemini-<turn>-<n>, the same at every reading', () => {
    const twice = { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b', args: {} } }] } }] }
    expect(readReply('gemini', twice, { turn: 7 }).message.tool_calls!.map((call) => call.id)).to.deep.equal(['gemini-7-0', 'gemini-7-1'])
    expect(readReply('gemini', twice, { turn: 7 })).to.deep.equal(readReply('gemini', twice, { turn: 7 }))
  })

  it("another format's reasoning state stays out of a request: an Anthropic reply sent to Gemini and to chat carries its text and call only", () => {
    const record = recordWith('anthropic')
    expect(buildRequest('gemini', input(record)).contents[1]).to.deep.equal({
      role: 'model', parts: [{ text: 'Reading a.txt.' }, { functionCall: { id: 'toolu_1', name: 'read', args: { path: 'a.txt', lines: [1, 20] } } }],
    })
    expect(buildRequest('openai-chat', input(record)).messages[2]).to.deep.equal({ role: 'assistant', content: 'Reading a.txt.', tool_calls: [readCall('toolu_1', '{"path":"a.txt","lines":[1,20]}')] })
  })

  it('a tool result with an image goes as a tool_result block, a function_call_output list and inline data after the response', () => {
    expect(buildRequest('anthropic', input(recordWith('anthropic', SCREENSHOT))).messages[2].content).to.deep.equal([{
      type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a screenshot' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }],
    }])
    expect(buildRequest('openai-responses', input(recordWith('openai-responses', SCREENSHOT))).input.at(-1)).to.deep.equal({
      type: 'function_call_output', call_id: 'call_r1', output: [{ type: 'input_text', text: 'a screenshot' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' }],
    })
    expect(buildRequest('gemini', input(recordWith('gemini', SCREENSHOT))).contents[2]).to.deep.equal({
      role: 'user', parts: [{ functionResponse: { id: 'gemini-3-0', name: 'read', response: { output: 'a screenshot' } } }, { inlineData: { mimeType: 'image/png', data: PNG } }],
    })
  })

  it('user input with an image and a PDF goes as content parts in every format', () => {
    const pdf = 'JVBERi0xLjQK'
    const record = [system('S'), entry({ role: 'user', content: 'Compare these.', parts: [
      { type: 'text', text: 'Compare these.' }, { type: 'image', mediaType: 'image/png', data: PNG }, { type: 'document', mediaType: 'application/pdf', data: pdf, name: 'spec.pdf' },
    ] }, 'user')]
    expect(buildRequest('openai-chat', input(record)).messages[1]).to.deep.equal({ role: 'user', content: [
      { type: 'text', text: 'Compare these.' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'file', file: { file_data: `data:application/pdf;base64,${pdf}`, filename: 'spec.pdf' } },
    ] })
    expect(buildRequest('openai-responses', input(record)).input[0]).to.deep.equal({ type: 'message', role: 'user', content: [
      { type: 'input_text', text: 'Compare these.' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
      { type: 'input_file', file_data: `data:application/pdf;base64,${pdf}`, filename: 'spec.pdf' },
    ] })
    expect(buildRequest('anthropic', input(record)).messages[0].content).to.deep.equal([
      { type: 'text', text: 'Compare these.' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf }, title: 'spec.pdf' },
    ])
    expect(buildRequest('gemini', input(record)).contents[0].parts).to.deep.equal([
      { text: 'Compare these.' }, { inlineData: { mimeType: 'image/png', data: PNG } }, { inlineData: { mimeType: 'application/pdf', data: pdf } },
    ])
  })

  it('a format that cannot carry an image or a document where it is refuses it with WIRE_UNSUPPORTED_PART', () => {
    expect(thrown(() => buildRequest('openai-chat', input(recordWith('openai-chat', SCREENSHOT))))).to.deep.include({
      code: 'WIRE_UNSUPPORTED_PART', details: { format: 'openai-chat', role: 'tool', kind: 'image' },
    })
    expect(thrown(() => buildRequest('openai-chat', input(recordWith('gemini'))))).to.deep.include({
      code: 'WIRE_UNSUPPORTED_PART', details: { format: 'openai-chat', role: 'assistant', kind: 'image' },
    })
    expect(thrown(() => buildRequest('anthropic', input(recordWith('gemini'))))).to.deep.include({ code: 'WIRE_UNSUPPORTED_PART' })
    const word = { content: 'notes', parts: [{ type: 'document', mediaType: 'application/msword', data: 'AA==', name: 'notes.doc' }] } as Partial<ToolMessage>
    expect(thrown(() => buildRequest('anthropic', input(recordWith('anthropic', { ...word, content: '' }))))).to.deep.include({
      code: 'WIRE_UNSUPPORTED_PART', details: { format: 'anthropic', role: 'tool', kind: 'document (application/msword)' },
    })
  })

  it('a reply not of the format\'s shape is WIRE_INVALID_REPLY naming the field; an item the record cannot keep is WIRE_UNSUPPORTED_REPLY_ITEM', () => {
    expect(thrown(() => readReply('anthropic', { content: [{ type: 'thinking', thinking: 'x' }] }))).to.deep.include({
      code: 'WIRE_INVALID_REPLY', details: { format: 'anthropic', path: 'content[0].signature', problem: 'must be a string' },
    })
    expect(thrown(() => readReply('openai-responses', { output: [{ type: 'web_search_call', id: 'ws_1' }] }))).to.deep.include({
      code: 'WIRE_UNSUPPORTED_REPLY_ITEM', details: { format: 'openai-responses', path: 'output[0]', kind: 'web_search_call' },
    })
    expect(thrown(() => replyAccumulator('anthropic').push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }))).to.deep.include({
      code: 'WIRE_INVALID_REPLY', details: { format: 'anthropic', path: 'stream', problem: 'has an event before message_start' },
    })
    expect(thrown(() => readReply('cohere' as ReplyFormat, {}))).to.include({ code: 'WIRE_UNKNOWN_FORMAT' })
  })

  it('a reply of one text then its calls keeps no parts, so the record and its ledger read as they always did', () => {
    expect(readReply('anthropic', { content: [{ type: 'text', text: 'Hi.' }, { type: 'tool_use', id: 't', name: 'read', input: {} }] }).message).to.deep.equal({
      role: 'assistant', content: 'Hi.', tool_calls: [{ id: 't', type: 'function', function: { name: 'read', arguments: '{}' } }],
    })
  })
})
