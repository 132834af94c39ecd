import { expect } from 'chai'
import type { Usage } from 'dsh-wire'
import { bootApp, captureLogs } from 'dsh-testing'

const USAGE = { inputTokens: 1200, cachedReadTokens: 1024, cacheWriteTokens: 64, outputTokens: 30 }

describe('dsh-agent: the agent/usage event the telemetry plugin ends its spans with', () => {
  it('is emitted by record() with the normalised usage, after the latest report has taken it', async () => {
    const { host } = await bootApp({ systemPrompt: { persona: 'Persona.' }, agents: true })
    const agent = await host.agents.create({ id: 'main', model: 'gpt-5' })
    const step = await agent.stepDetailed('Hi.')
    const seen: [string, Usage, unknown][] = []
    host.on('agent/usage', (from, usage) => seen.push([from.id, usage, step.report.reportedCachedTokens]))
    agent.record({ role: 'assistant', content: 'Hello.' })
    expect(seen).to.deep.equal([])
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    expect(seen).to.deep.equal([['main', USAGE, 1024]])
  })

  it('a listener that throws leaves the reply recorded, is logged as AGENT_USAGE_LISTENER_FAILED naming its plugin, not thrown, and the listeners after it still run', async () => {
    const { app, host } = await bootApp({ systemPrompt: { persona: 'Persona.' }, agents: true })
    const logs = captureLogs(app)
    const agent = await host.agents.create({ id: 'main', model: 'gpt-5' })
    await agent.step('Hi.')
    host.on('agent/usage', () => { throw new Error('exporter down') })
    let after = 0
    host.on('agent/usage', () => { after++ })
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    expect(agent.conversation.at(-1)).to.include({ source: 'assistant', content: 'Hello.' })
    expect(after).to.equal(1)
    expect(logs.map((log) => log.line).filter((line) => line.includes('agent/usage'))).to.have.lengthOf(1)
    expect(logs.map((log) => log.line).find((line) => line.includes('agent/usage'))).to.match(/^warn dsh-agent: agent "main": agent\/usage listener of plugin "[^"]+" failed: exporter down \(the reply is recorded\)$/)
  })
})
