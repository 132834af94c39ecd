import { expect } from 'chai'
import { ANTHROPIC_CACHE_DIAGNOSIS_BETA, type Agent } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'

// Anthropic's cache diagnostics is behind a beta header (`anthropic-beta: cache-diagnosis-2026-04-07`,
// Anthropic's "Cache diagnostics" page): the step result hands it to the harness with the request that
// carries `diagnostics` (issue 23, item 2).

async function agentOf(model: string, diagnostics: boolean): Promise<Agent> {
  const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'You are a careful coder.' }, tools: true, agents: true })
  host.tools.register(tool('read', { description: 'Read a file.' }))
  return host.agents.create({ id: 'a', model, wire: { diagnostics } })
}

describe('dsh-agent: the headers a diagnostics request needs', () => {
  it('is the documented beta name', () => {
    expect(ANTHROPIC_CACHE_DIAGNOSIS_BETA).to.equal('cache-diagnosis-2026-04-07')
  })

  it('an Anthropic step with the diagnostics bridge on has headers { anthropic-beta: cache-diagnosis-2026-04-07 }, and a fork of it too', async () => {
    const agent = await agentOf('claude-opus-4-8', true)
    const step = await agent.stepDetailed('Fix it.', { format: 'anthropic' })
    expect(step.request).to.have.property('diagnostics')
    expect(step.headers).to.deep.equal({ 'anthropic-beta': 'cache-diagnosis-2026-04-07' })
    const fork = await agent.fork({ kind: 'title', instruction: 'Title this.' })
    expect(fork.request).to.have.property('diagnostics')
    expect(fork.result.headers).to.deep.equal({ 'anthropic-beta': 'cache-diagnosis-2026-04-07' })
  })

  it('no headers ({}) without the bridge, nor for a format whose comparison needs none (OpenAI Responses)', async () => {
    const off = await agentOf('claude-opus-4-8', false)
    const step = await off.stepDetailed('Fix it.', { format: 'anthropic' })
    expect(step.request).to.not.have.property('diagnostics')
    expect(step.headers).to.deep.equal({})
    expect((await off.fork({ kind: 'title', instruction: 'Title this.' })).result.headers).to.deep.equal({})
    const responses = await agentOf('gpt-5.6', true)
    expect((await responses.stepDetailed('Fix it.', { format: 'openai-responses' })).headers).to.deep.equal({})
  })
})
