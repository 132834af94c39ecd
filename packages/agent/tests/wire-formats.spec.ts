import { expect } from 'chai'
import type { Usage } from 'dsh-agent'
import { rejection, thrown } from 'dsh-testing'
import { SYSTEM_PROMPT_UPDATE_MARKER } from 'dsh-wire'
import { briefAgent } from './helpers.js'

const usage: Usage = { inputTokens: 120, cachedReadTokens: 100, cacheWriteTokens: null, outputTokens: 8 }

describe('dsh-agent: step(input, { format }) and record(reply, { usage })', () => {
  it('without a format, step() resolves to the openai-chat body as before', async () => {
    const { agent } = await briefAgent()
    expect(await agent.step('Hi.')).to.deep.equal({ model: 'deepseek-chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi.' }] })
  })

  it('resolves to the body of the format it is given, from the same record', async () => {
    const { agent } = await briefAgent()
    expect(await agent.step('Hi.', { format: 'openai-responses' })).to.deep.equal({
      model: 'deepseek-chat', instructions: 'Be brief.', input: [{ type: 'message', role: 'user', content: 'Hi.' }], prompt_cache_key: 'a',
    })
    expect(await agent.step(undefined, { format: 'anthropic', maxTokens: 256 })).to.deep.equal({
      model: 'deepseek-chat', max_tokens: 256, system: [{ type: 'text', text: 'Be brief.' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi.' }] }],
    })
    expect((await agent.stepDetailed(undefined, { format: 'gemini' })).request).to.deep.equal({
      model: 'deepseek-chat', contents: [{ role: 'user', parts: [{ text: 'Hi.' }] }], config: { systemInstruction: { parts: [{ text: 'Be brief.' }] } },
    })
    expect(agent.conversation).to.have.length(2)
  })

  it('openai-responses takes prompt_cache_key from the step\'s conversationId when given, else the agent id', async () => {
    const { agent } = await briefAgent()
    expect((await agent.step('Hi.', { format: 'openai-responses', conversationId: 'chat-7f3' })).prompt_cache_key).to.equal('chat-7f3')
    expect((await agent.step(undefined, { format: 'openai-responses' })).prompt_cache_key).to.equal('a')
  })

  it('a prompt change under append reaches anthropic as a marked user message after the earlier turns', async () => {
    const { agent } = await briefAgent()
    await agent.step('Hi.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello.' })
    agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'Be careful.' })
    const body = await agent.step('Again.', { format: 'anthropic', breakpoints: false })
    expect(body.system).to.deep.equal([{ type: 'text', text: 'Be brief.' }])
    expect(body.messages.map((m) => m.content[0])).to.deep.equal([
      { type: 'text', text: 'Hi.' }, { type: 'text', text: 'Hello.' }, { type: 'text', text: `${SYSTEM_PROMPT_UPDATE_MARKER}\n\nBe careful.` }, { type: 'text', text: 'Again.' },
    ])
  })

  it('an unknown format rejects with WIRE_UNKNOWN_FORMAT before assembling, and records nothing', async () => {
    const { agent } = await briefAgent()
    const error = await rejection(agent.step('Hi.', { format: 'cohere' as 'gemini' }))
    expect(error).to.include({ code: 'WIRE_UNKNOWN_FORMAT' })
    expect(agent.conversation).to.have.length(0)
  })

  it('a body the format cannot lower rejects and records nothing for the step', async () => {
    const { agent } = await briefAgent()
    await agent.step('Hi.')
    agent.record({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'custom', custom: { name: 'patch', input: 'x' } }] })
    const before = agent.conversation.length
    const error = await rejection(agent.step('Go on.', { format: 'anthropic' }))
    expect(error).to.include({ code: 'WIRE_UNSUPPORTED_TOOL_CALL' })
    expect(agent.conversation).to.have.length(before)
  })

  it('record(reply, { usage }) keeps the usage on the reply\'s entry, and no format sends it', async () => {
    const { agent } = await briefAgent()
    await agent.step('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage })
    expect(agent.conversation[2].usage).to.deep.equal(usage)
    expect(Object.isFrozen(agent.conversation[2].usage)).to.equal(true)
    expect(agent.messages()[2]).to.deep.equal({ role: 'assistant', content: 'Hello.' })
    for (const format of ['openai-responses', 'anthropic', 'gemini'] as const) expect(JSON.stringify(await agent.step(undefined, { format }))).not.to.include('inputTokens')
  })

  it('record(reply, { usage, format }) normalises a provider usage object first', async () => {
    const { agent } = await briefAgent()
    await agent.step('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: { input_tokens: 20, cache_read_input_tokens: 100, output_tokens: 8 }, format: 'anthropic' })
    expect(agent.conversation[2].usage).to.deep.equal({ inputTokens: 120, cachedReadTokens: 100, cacheWriteTokens: null, outputTokens: 8 })
  })

  it('refuses usage on a tool result, and a provider object of another shape than the agent\'s provider reports', async () => {
    const { agent } = await briefAgent()
    await agent.step('Hi.')
    const onTool = thrown(() => agent.record({ role: 'tool', tool_call_id: 'c1', content: 'x' }, { usage }))
    expect(onTool).to.include({ code: 'AGENT_INVALID_RECORD', message: 'agent "a" record(): usage belongs to an assistant reply, not a tool result' })
    // Without a format, a usage object reads in the agent's provider's shape (here the openai-chat request's).
    const raw = thrown(() => agent.record({ role: 'assistant', content: 'Hello.' }, { usage: { input_tokens: 3 } }))
    expect(raw).to.include({ code: 'AGENT_INVALID_RECORD' })
    expect(agent.conversation).to.have.length(2)
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: { prompt_tokens: 3 } })
    expect(agent.conversation[2].usage).to.deep.include({ inputTokens: 3 })
  })
})
