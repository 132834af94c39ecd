import { expect } from 'chai'
import type { Context } from 'cordis'
import { exportLedger, type Agent, type ProviderReply } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'

// The diagnostics bridge (issue 23, item 2): the previous reply's id threaded into the next request's
// diagnostics field, the provider's reason read from the reply and joined with dsh's own break. Reply
// shapes as the providers document them (Anthropic `Message.diagnostics.cache_miss_reason`, the
// `CacheMissReason` union of @anthropic-ai/sdk 1.14; OpenAI `Response.prompt_cache_diagnostics`).

/** An Anthropic Message as the API returns it, with a diagnosis (`null`: no divergence found). */
const message = (id: string, diagnostics: object | null): ProviderReply => ({
  id, type: 'message', role: 'assistant', model: 'claude-opus-4-8', content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn', stop_sequence: null,
  usage: { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3 }, diagnostics,
}) as ProviderReply

/** A Response as the API returns it, with its prompt cache diagnostics. */
const response = (id: string, diagnostics?: object): ProviderReply => ({
  id, object: 'response', model: 'gpt-5.6', status: 'completed',
  output: [{ type: 'message', id: `m_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] }],
  usage: { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3 }, ...(diagnostics ? { prompt_cache_diagnostics: diagnostics } : {}),
}) as ProviderReply

async function agentOf(model: string, promptChange: 'append' | 'replace' = 'append', diagnostics = true): Promise<{ host: Context; agent: Agent; persona: (text: string) => void }> {
  const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, agents: true })
  let text = 'You are a careful coder.'
  host.systemPrompt.section({ name: 'persona', order: 0, text: () => text })
  host.tools.register(tool('read', { description: 'Read a file.' }))
  const agent = await host.agents.create({ id: 'a', model, promptChange, wire: { diagnostics } })
  return { host, agent, persona: (next) => { text = next } }
}

describe('dsh-agent: the diagnostics bridge', () => {
  it('anthropic: the first request opts in with previous_message_id null, the next names the previous reply, kept in the record and the ledger', async () => {
    const { agent } = await agentOf('claude-opus-4-8')
    const first = await agent.stepDetailed('Fix it.', { format: 'anthropic' })
    expect(first.request).to.deep.include({ diagnostics: { previous_message_id: null } })
    expect(first.body).to.equal(JSON.stringify(first.request))
    agent.record(message('msg_01', null), { format: 'anthropic' })
    expect(agent.conversation.at(-1)!.reply).to.deep.equal({ id: 'msg_01', format: 'anthropic', miss: { reason: 'no divergence', class: 'hit' } })
    const second = await agent.stepDetailed('Again.', { format: 'anthropic' })
    expect(second.request).to.deep.include({ diagnostics: { previous_message_id: 'msg_01' } })
    expect(exportLedger(agent)).to.contain('"reply":{"id":"msg_01","format":"anthropic","miss":{"reason":"no divergence","class":"hit"}}')
  })

  it('the id comes back from the ledger: a restored agent\'s record holds it', async () => {
    const { host, agent } = await agentOf('claude-opus-4-8')
    await agent.step('Fix it.', { format: 'anthropic' })
    agent.record(message('msg_07', null), { format: 'anthropic' })
    const ledger = exportLedger(agent)
    await agent.dispose()
    const again = await host.agents.restore(ledger)
    expect(again.conversation.at(-1)!.reply).to.deep.include({ id: 'msg_07', format: 'anthropic' })
  })

  it('openai-responses: no comparison before a reply, then prompt_cache_options.comparison_response_id names it', async () => {
    const { agent } = await agentOf('gpt-5.6')
    const first = await agent.stepDetailed('Fix it.', { format: 'openai-responses' })
    expect(first.request).to.not.have.property('prompt_cache_options')
    agent.record(response('resp_01'), { format: 'openai-responses' })
    const second = await agent.stepDetailed('Again.', { format: 'openai-responses' })
    expect(second.request).to.deep.include({ prompt_cache_options: { comparison_response_id: 'resp_01' } })
    expect(second.body).to.equal(JSON.stringify(second.request))
  })

  it('sends no diagnostics field when the bridge is off', async () => {
    const { agent } = await agentOf('claude-opus-4-8', 'append', false)
    expect(await agent.step('Fix it.', { format: 'anthropic' })).to.not.have.property('diagnostics')
  })

  it('tools_changed and dsh\'s break on tool "write" agree', async () => {
    const { host, agent } = await agentOf('claude-opus-4-8')
    await agent.step('Fix it.', { format: 'anthropic' })
    agent.record(message('msg_01', null), { format: 'anthropic' })
    host.tools.register(tool('write', { description: 'Write a file.' }))
    const step = await agent.stepDetailed('Now write.', { format: 'anthropic' })
    agent.record(message('msg_02', { cache_miss_reason: { type: 'tools_changed', cache_missed_input_tokens: 1800 } }), { format: 'anthropic' })
    expect(step.report.breaks[0]).to.include({ kind: 'tool', section: 'write' })
    expect(step.report.providerMiss).to.deep.equal({ reason: 'tools_changed', class: 'tools', missedTokens: 1800, verdict: 'agrees', dsh: 'tools' })
  })

  it('system_changed and dsh\'s break in the top-level system prompt (under replace) agree; tools_changed there disagrees', async () => {
    for (const [type, verdict] of [['system_changed', 'agrees'], ['tools_changed', 'disagrees']] as const) {
      const { agent, persona } = await agentOf('claude-opus-4-8', 'replace')
      await agent.step('Fix it.', { format: 'anthropic' })
      agent.record(message('msg_01', null), { format: 'anthropic' })
      persona('You are a careful coder. Write tests first.')
      const step = await agent.stepDetailed('Again.', { format: 'anthropic' })
      agent.record(message('msg_02', { cache_miss_reason: { type, cache_missed_input_tokens: 40 } }), { format: 'anthropic' })
      expect(step.report.providerMiss, type).to.deep.include({ reason: type, verdict, dsh: 'system' })
    }
  })

  it('a provider miss on a prefix dsh saw unbroken is classed apart (here: below the minimum), and a cache_hit agrees', async () => {
    const { agent } = await agentOf('gpt-5.6')
    await agent.step('Fix it.', { format: 'openai-responses' })
    agent.record(response('resp_01'), { format: 'openai-responses' })
    const second = await agent.stepDetailed('Again.', { format: 'openai-responses' })
    agent.record(response('resp_02', { type: 'cache_miss', reason: 'input_changed', cache_missed_tokens: 12 }), { format: 'openai-responses' })
    expect(second.report.breaks).to.deep.equal([])
    // The whole prompt is a few dozen tokens, under OpenAI's 1,024-token minimum: the report's limit says so.
    expect(second.report.providerMiss).to.deep.include({ class: 'messages', verdict: 'below-minimum', dsh: null })
    const third = await agent.stepDetailed('Once more.', { format: 'openai-responses' })
    expect(third.request).to.deep.include({ prompt_cache_options: { comparison_response_id: 'resp_02' } })
    agent.record(response('resp_03', { type: 'cache_hit' }), { format: 'openai-responses' })
    expect(third.report.providerMiss).to.deep.include({ reason: 'cache_hit', verdict: 'agrees' })
  })

  it('previous_message_not_found and unavailable are unknown, a null reason is pending', async () => {
    const reasons = [[{ cache_miss_reason: { type: 'previous_message_not_found' } }, 'unknown'], [{ cache_miss_reason: { type: 'unavailable' } }, 'unknown'], [{ cache_miss_reason: null }, 'pending']] as const
    for (const [diagnostics, verdict] of reasons) {
      const { agent } = await agentOf('claude-opus-4-8')
      await agent.step('Fix it.', { format: 'anthropic' })
      agent.record(message('msg_01', null), { format: 'anthropic' })
      const step = await agent.stepDetailed('Again.', { format: 'anthropic' })
      agent.record(message('msg_02', diagnostics), { format: 'anthropic' })
      expect(step.report.providerMiss?.verdict, JSON.stringify(diagnostics)).to.equal(verdict)
    }
  })
})
