import { expect } from 'chai'
import { startFormatMock } from '../../../examples/harness/format-mock.js'
import { COMPACTION_SUMMARY_MARKER } from 'dsh-agent'
import { checkRequest, usageOf, type WireRequest } from '../../../examples/harness/mock-server.js'

// The mock server of examples/harness refuses a request that breaks the loop, which is what makes the
// example (run in CI by `yarn harness`) fail when the loop is wrong. These pin each refusal.
describe('examples/harness: the mock server checks every request of the loop', () => {
  const expectations = { model: 'mock-model', tool: 'read', file: '/notes/notes.md' }
  const tools = [{ type: 'function', function: { name: 'read' } }]
  const system = { role: 'system', content: 'You are the notes assistant.' }
  const call = { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"/notes/notes.md"}' } }
  const first: WireRequest = { model: 'mock-model', tools, messages: [system, { role: 'user', content: 'What does notes.md say?' }] }
  const withResult: WireRequest = {
    ...first,
    messages: [...first.messages, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: '1\t# notes' }],
  }

  it('accepts a request that starts with the system prompt, offers the tool and answers every tool call', () => {
    expect(checkRequest(first, undefined, expectations)).to.deep.equal([])
    expect(checkRequest(withResult, first, expectations)).to.deep.equal([])
  })

  it('refuses a request whose first message is not the system prompt, or that offers no tool', () => {
    expect(checkRequest({ ...first, messages: first.messages.slice(1) }, undefined, expectations)).to.deep.equal(['the first message is "user", not the system prompt'])
    expect(checkRequest({ ...first, tools: undefined }, undefined, expectations)).to.deep.equal(['the tool "read" is not offered'])
  })

  it('refuses a tool call sent back without its tool result', () => {
    const unanswered = { ...first, messages: [...first.messages, { role: 'assistant', content: null, tool_calls: [call] }] }
    expect(checkRequest(unanswered, first, expectations)).to.deep.equal([
      'tool call call_1 (read) has no tool result', 'the last message is "assistant": nothing for the model to answer',
    ])
  })

  it('refuses a request that does not repeat the previous request\'s messages at its start', () => {
    const rewritten = { ...withResult, messages: [{ role: 'system', content: 'Another prompt.' }, ...withResult.messages.slice(1)] }
    expect(checkRequest(rewritten, first, expectations)).to.deep.equal(['the request does not start with the messages of the previous request'])
  })
})

describe('examples/harness: the format mock refuses a second request that does not send the reasoning state back', () => {
  const post = (origin: string, path: string, body: object) =>
    fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

  it('anthropic without its thinking block, responses without its reasoning item, gemini without its thought signature: 400, and named', async () => {
    const mock = await startFormatMock('/notes/notes.md', (result) => result)
    try {
      const anthropic = await post(mock.origin, '/v1/messages', { messages: [
        { role: 'user', content: [{ type: 'text', text: 'Read it.' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] },
      ] })
      const responses = await post(mock.origin, '/v1/responses', { input: [{ type: 'function_call_output', call_id: 'call_1', output: 'x' }] })
      const gemini = await post(mock.origin, '/v1beta/models/m:generateContent', { contents: [
        { role: 'model', parts: [{ functionCall: { id: 'gemini-0-0', name: 'read', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'gemini-0-0', name: 'read', response: { output: 'x' } } }] },
      ] })
      expect([anthropic.status, responses.status, gemini.status]).to.deep.equal([400, 400, 400])
      expect(mock.failures).to.deep.equal([
        'anthropic: the thinking block (with its signature, first in its message) was not sent back',
        'openai-responses: the reasoning item (with its encrypted_content) was not sent back',
        'gemini: the thought signature was not sent back on its function call',
      ])
    } finally {
      await mock.close()
    }
  })
})

describe('examples/harness: the format mock asks for Anthropic\'s cache-diagnosis beta header', () => {
  const request = { model: 'mock-model', diagnostics: { previous_message_id: null }, messages: [{ role: 'user', content: [{ type: 'text', text: 'Read it.' }] }] }
  const post = (origin: string, headers: Record<string, string>) =>
    fetch(`${origin}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(request) })

  it('a request with diagnostics and without anthropic-beta: cache-diagnosis-2026-04-07 gets a 400, named; with it (among other betas), the reply', async () => {
    const mock = await startFormatMock('/notes/notes.md', (result) => result)
    try {
      const without = await post(mock.origin, {})
      const other = await post(mock.origin, { 'anthropic-beta': 'files-api-2025-04-14' })
      const withIt = await post(mock.origin, { 'anthropic-beta': 'files-api-2025-04-14,cache-diagnosis-2026-04-07' })
      expect([without.status, other.status, withIt.status]).to.deep.equal([400, 400, 200])
      expect(mock.failures).to.deep.equal(Array(2).fill('anthropic: the request carries diagnostics without the beta header anthropic-beta: cache-diagnosis-2026-04-07'))
    } finally {
      await mock.close()
    }
  })
})

describe('examples/harness: the mock server after a compaction', () => {
  const expectations = { model: 'mock-model', tool: 'read', file: '/notes/notes.md' }
  const tools = [{ type: 'function', function: { name: 'read' } }]
  const system = { role: 'system', content: 'You are the notes assistant.' }
  const before: WireRequest = { model: 'mock-model', tools, messages: [system, { role: 'user', content: 'One.' }, { role: 'assistant', content: 'Noted.' }, { role: 'user', content: 'Two.' }] }
  const summary = { role: 'user', content: `${COMPACTION_SUMMARY_MARKER}\n\nThe user said one thing.` }

  it('accepts the first request of a new epoch when it keeps the opening system prompt, and refuses it when it does not', () => {
    const after: WireRequest = { ...before, messages: [system, summary, { role: 'user', content: 'Two.' }] }
    expect(checkRequest(after, before, expectations)).to.deep.equal([])
    const reopened = { ...after, messages: [{ role: 'system', content: 'Another prompt.' }, ...after.messages.slice(1)] }
    expect(checkRequest(reopened, before, expectations)).to.deep.equal(['the first request after a compaction does not keep the opening system prompt of the request before it'])
  })

  it('reports as cached the prefix a request shares with the previous one, from 1,024 tokens in 128-token steps', () => {
    const long = { role: 'system', content: 'Keep the notes tidy. '.repeat(400) }
    const first: WireRequest = { model: 'mock-model', messages: [long, { role: 'user', content: 'One.' }] }
    const second: WireRequest = { ...first, messages: [...first.messages, { role: 'assistant', content: 'Noted.' }, { role: 'user', content: 'Two.' }] }
    expect(usageOf(first, undefined).prompt_tokens_details.cached_tokens).to.equal(0)
    const cached = usageOf(second, first).prompt_tokens_details.cached_tokens
    expect(cached).to.be.at.least(1024)
    expect((cached - 1024) % 128).to.equal(0)
  })
})
