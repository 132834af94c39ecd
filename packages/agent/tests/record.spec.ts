import { expect } from 'chai'
import type { Context } from 'cordis'
import type { Agent, FunctionToolCall, RecordedMessage, ToolCall } from 'dsh-agent'
import { rejection, thrown, tool } from 'dsh-testing'
import { briefAgent } from './helpers.js'

describe('dsh-agent: record() and the request shape', () => {
  let harness: Context
  let agent: Agent
  beforeEach(async () => {
    ({ host: harness, agent } = await briefAgent())
  })

  it('records an assistant reply with several tool calls, and the tool results in order', async () => {
    await agent.step('List the files and read the readme.')
    const calls: ToolCall[] = [
      { id: 'call_1', type: 'function', function: { name: 'glob', arguments: '{"pattern":"*"}' } },
      { id: 'call_2', type: 'function', function: { name: 'read', arguments: '{"path":"README.md"}' } },
    ]
    agent.record({ role: 'assistant', content: 'Looking.', tool_calls: calls })
    agent.record({ role: 'tool', tool_call_id: 'call_1', content: 'README.md\nsrc/' })
    agent.record({ role: 'tool', tool_call_id: 'call_2', name: 'read', content: '# Shop' })
    expect((await agent.step()).messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'List the files and read the readme.' },
      { role: 'assistant', content: 'Looking.', tool_calls: calls },
      { role: 'tool', content: 'README.md\nsrc/', tool_call_id: 'call_1' },
      { role: 'tool', content: '# Shop', tool_call_id: 'call_2', name: 'read' },
    ])
    expect(agent.conversation.slice(2).map((e) => e.source)).to.deep.equal(['assistant', 'tool', 'tool'])
  })

  it('records an assistant message without content as content null', () => {
    agent.record({ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{}' } }] })
    expect(agent.messages()).to.deep.equal([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{}' } }] },
    ])
  })

  it('keeps its own frozen copy of the tool calls', () => {
    const calls: FunctionToolCall[] = [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{}' } }]
    agent.record({ role: 'assistant', content: null, tool_calls: calls })
    calls[0].function.arguments = '{"changed":true}'
    const reply = agent.conversation[0]
    const recorded = (reply.role === 'assistant' ? reply.tool_calls : undefined) as FunctionToolCall[]
    expect(recorded[0].function.arguments).to.equal('{}')
    expect(Object.isFrozen(recorded[0].function)).to.equal(true)
  })

  describe('refuses a malformed message and records nothing', () => {
    const cases: Array<[string, unknown, string]> = [
      ['a missing message', null, 'agent "a" record(): expected a message object'],
      ['a user message', { role: 'user', content: 'Hi.' }, 'agent "a" record(): role must be "assistant" or "tool" (user input goes through step(input)), received "user"'],
      ['a system message', { role: 'system', content: 'Obey.' }, 'agent "a" record(): role must be "assistant" or "tool" (user input goes through step(input)), received "system"'],
      ['an assistant message with neither content nor tool calls', { role: 'assistant', tool_calls: [] }, 'agent "a" record(): an assistant message needs content or tool_calls'],
      ['assistant content that is not a string', { role: 'assistant', content: 42 }, 'agent "a" record(): assistant content must be a string or null'],
      ['tool_calls that are not an array', { role: 'assistant', content: 'x', tool_calls: {} }, 'agent "a" record(): tool_calls must be an array'],
      ['tool_calls holding a BigInt', { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'read', arguments: 1n } }] },
        'agent "a" record(): tool_calls[0].function.arguments is a bigint (1) (not JSON data)'],
      ['tool_calls holding a BigInt in a field of their own', { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{}' }, extra: 1n }] },
        'agent "a" record(): tool_calls[0].extra is a bigint (1) (not JSON data)'],
      ['a tool result without a tool_call_id', { role: 'tool', content: 'ok' }, 'agent "a" record(): a tool message needs a tool_call_id'],
      ['a tool result whose content is not a string', { role: 'tool', tool_call_id: 'c', content: { ok: true } }, 'agent "a" record(): tool content must be a string'],
    ]
    for (const [what, message, expected] of cases) {
      it(what, async () => {
        await agent.step('Hello.')
        const before = agent.conversation.slice()
        expect(thrown(() => agent.record(message as RecordedMessage)).message).to.equal(expected)
        expect(agent.conversation).to.deep.equal(before)
      })
    }
  })

  it('rejects a step whose input is not a string, and records nothing', async () => {
    expect((await rejection(agent.step(42 as never))).message).to.equal('agent "a" step(input): input must be a string when given')
    expect(agent.conversation).to.deep.equal([])
  })

  it('leaves "tools" out of the request when no tool is visible', async () => {
    const request = await agent.step('Hello.')
    expect(request).to.deep.equal({ model: 'deepseek-chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello.' }] })
    expect(request).to.not.have.property('tools')
  })

  it('offers visible tools as chat-completions functions, in name order', async () => {
    harness.tools.register(tool('read', { description: 'Read a file.' }))
    harness.tools.register(tool('bash', { description: 'Run a command.', parameters: { type: 'object', properties: { command: { type: 'string' } } } }))
    const request = await agent.step()
    expect(request.tools).to.deep.equal([
      { type: 'function', function: { name: 'bash', description: 'Run a command.', parameters: { type: 'object', properties: { command: { type: 'string' } } } } },
      { type: 'function', function: { name: 'read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
    ])
  })

  it('drops "tools" again once every tool is gone (toolChange immediate)', async () => {
    const agent = await harness.agents.create({ id: 'immediate', model: 'deepseek-chat', toolChange: 'immediate' })
    const dispose = harness.tools.register(tool('read'))
    expect((await agent.step()).tools).to.have.length(1)
    dispose()
    expect(await agent.step()).to.not.have.property('tools')
  })
})

describe('dsh-agent: record(reply, { usage }) reads the usage in the agent\'s provider\'s shape (issue 23)', () => {
  it('reads a usage object without a format as the agent\'s provider reports it for the latest step\'s format', async () => {
    const { host } = await briefAgent()
    const agent = await host.agents.create({ id: 'claude', model: 'claude-sonnet-4-5', provider: 'anthropic' })
    await agent.step('Hi', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: { input_tokens: 10, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0, output_tokens: 5 } })
    expect(agent.conversation.at(-1)!.usage).to.deep.equal({ inputTokens: 2010, cachedReadTokens: 2000, cacheWriteTokens: 0, outputTokens: 5 })
  })

  it('refuses a usage object that carries none of the named format\'s fields with AGENT_INVALID_RECORD, naming its fields', async () => {
    const { agent } = await briefAgent()
    await agent.step('Hi')
    const anthropicUsage = { input_tokens: 10, cache_read_input_tokens: 2000, output_tokens: 5 }
    const error = thrown(() => agent.record({ role: 'assistant', content: 'Hello.' }, { usage: anthropicUsage, format: 'openai-chat' }))
    expect(error).to.include({ code: 'AGENT_INVALID_RECORD' })
    expect(error.message).to.contain('usage carries none of the openai-chat usage fields (it has "input_tokens", "cache_read_input_tokens", "output_tokens")')
    expect(agent.conversation.at(-1)!.role).to.equal('user')
  })
})
