import { expect } from 'chai'
import { checkRequest, type WireRequest } from '../../../examples/harness/mock-server.js'

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
