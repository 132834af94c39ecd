import { expect } from 'chai'
import type { Agent } from 'dsh-agent'
import { bootApp } from 'dsh-testing'

// The TTL plan and the price table on an agent (issue 23, item 4), with the `agents` service's clock
// (no wall clock: the test moves it).

async function agentAt(clock: { now: number }, wire: object): Promise<Agent> {
  const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'You are a careful coder. '.repeat(400) }, tools: true, agents: { now: () => clock.now } })
  return host.agents.create({ id: 'a', model: 'claude-opus-4-8', wire })
}

const MIN = 60_000
const usage = { input_tokens: 100, cache_read_input_tokens: 2000, cache_creation_input_tokens: 500, output_tokens: 20 }

describe('dsh-agent: the priced TTL plan and the price table', () => {
  it('measures the gaps between the agent\'s requests on its clock and marks the system prompt 1h once gaps pass 5 minutes', async () => {
    const clock = { now: 1_000_000 }
    const agent = await agentAt(clock, { ttlPlan: true })
    const first = await agent.stepDetailed('One.', { format: 'anthropic' })
    expect(first.report.ttlPlan).to.deep.include({ gaps: 0 })
    expect(first.request.system![0].cache_control).to.deep.equal({ type: 'ephemeral' })
    for (const input of ['Two.', 'Three.']) {
      agent.record({ role: 'assistant', content: 'ok' })
      clock.now += 12 * MIN
      await agent.step(input, { format: 'anthropic' })
    }
    agent.record({ role: 'assistant', content: 'ok' })
    clock.now += 12 * MIN
    const late = await agent.stepDetailed('Four.', { format: 'anthropic' })
    expect(late.report.ttlPlan!.within).to.deep.equal({ '5m': 0, '1h': 1 })
    expect(late.request.system![0].cache_control).to.deep.equal({ type: 'ephemeral', ttl: '1h' })
    expect(late.report.ttlPlan!.expected.plan).to.be.below(late.report.ttlPlan!.expected['5m'])
  })

  it('without wire.ttlPlan the breakpoints keep the default 5m whatever the gaps', async () => {
    const clock = { now: 0 }
    const agent = await agentAt(clock, {})
    await agent.step('One.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'ok' })
    clock.now += 20 * MIN
    const step = await agent.stepDetailed('Two.', { format: 'anthropic' })
    expect(step.report.ttlPlan).to.equal(undefined)
    expect(step.request.system![0].cache_control).to.deep.equal({ type: 'ephemeral' })
  })

  it('a price table turns each request\'s usage into money, and sums the conversation', async () => {
    const agent = await agentAt({ now: 0 }, { prices: { 'claude-opus': { input: 5, cacheRead: 0.5, cacheWrite: 6.25, output: 25 } } })
    const first = await agent.stepDetailed('One.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'ok' }, { usage, format: 'anthropic' })
    // written 500 * 6.25, read 2000 * 0.5, uncached 100 * 5, output 20 * 25, per million.
    const cost = first.report.cost!.request
    expect([cost.written, cost.read, cost.uncached, cost.output]).to.deep.equal([0.003125, 0.001, 0.0005, 0.0005])
    expect(cost.total).to.be.closeTo(0.005125, 1e-12)
    const second = await agent.stepDetailed('Two.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'ok' }, { usage, format: 'anthropic' })
    expect(second.report.cost!.conversation.total).to.be.closeTo(0.01025, 1e-12)
  })

  it('refuses a price table row without the input price with AGENT_INVALID_WIRE naming it', async () => {
    const error = await agentAt({ now: 0 }, { prices: { claude: { output: 1 } } }).then(() => undefined, (caught: unknown) => caught)
    expect(error).to.deep.include({ code: 'AGENT_INVALID_WIRE' })
    expect((error as { details: { key: string } }).details.key).to.equal('prices.claude.input')
  })
})
