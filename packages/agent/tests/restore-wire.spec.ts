import { expect } from 'chai'
import { exportLedger, readLedger, type Agent } from 'dsh-agent'
import { bootApp, thrown } from 'dsh-testing'
import { rechain } from './helpers.js'

// An agent's `wire` options and the TTL plan's measures across a restore (issue 23, R-LEDGER-10), on
// the `agents` service's clock (no wall clock: the test moves it).

const MIN = 60_000
const WIRE = { ttlPlan: true, diagnostics: true, prices: { 'claude-opus': { input: 5, cacheRead: 0.5, cacheWrite: 6.25, output: 25 } } }

/** A worker: its own app with the same deployment, reading the shared clock. */
async function worker(clock: { now: number }) {
  const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'You are a careful coder. '.repeat(400) }, tools: true, agents: { now: () => clock.now } })
  host.tools.register({ name: 'read', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } })
  return host
}

/** Three requests 12 minutes apart (past the 5-minute lifetime, within the hour), each answered. */
async function converse(agent: Agent, clock: { now: number }): Promise<void> {
  for (const [i, input] of ['One.', 'Two.', 'Three.'].entries()) {
    if (i) clock.now += 12 * MIN
    await agent.step(input, { format: 'anthropic' })
    agent.record({ id: `msg_${i}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 10, cache_read_input_tokens: 2000, cache_creation_input_tokens: 30, output_tokens: 2 } } as never, { format: 'anthropic' })
  }
}

describe('dsh-agent: wire options and the TTL plan\'s measures survive a restore (R-LEDGER-10)', () => {
  it('a restored agent\'s next request is byte-identical to the one the original sends, 1-hour breakpoints and the diagnostics field included, and its costs go on from the ledger\'s', async () => {
    const clock = { now: 1_000_000 }
    const original = await (await worker(clock)).agents.create({ id: 'a', model: 'claude-opus-4-8', wire: WIRE })
    await converse(original, clock)
    const ledger = exportLedger(original)
    clock.now += 12 * MIN
    const restored = await (await worker(clock)).agents.restore(ledger)
    expect(restored.wire).to.deep.equal(WIRE)
    const expected = await original.stepDetailed('Four.', { format: 'anthropic' })
    const resumed = await restored.stepDetailed('Four.', { format: 'anthropic' })
    expect(resumed.body).to.equal(expected.body)
    expect(expected.request.system![0].cache_control).to.deep.equal({ type: 'ephemeral', ttl: '1h' })
    expect(expected.body).to.include('"diagnostics":{"previous_message_id":"msg_2"}')
    expect(resumed.report.ttlPlan).to.deep.equal(expected.report.ttlPlan)
    // The price table's running total goes on from the restored replies' usage.
    for (const agent of [original, restored]) agent.record({ role: 'assistant', content: 'ok' }, { usage: { inputTokens: 2040, cachedReadTokens: 2000, cacheWriteTokens: 30, outputTokens: 2 } })
    expect(resumed.report.cost).to.deep.equal(expected.report.cost)
    expect(resumed.report.cost!.conversation.total).to.be.above(resumed.report.cost!.request.total)
    // And the restored agent writes the ledger the original wrote.
    expect(exportLedger(restored)).to.equal(exportLedger(original))
  })

  it('an agent with a price table and no TTL plan restored prices its next reply into the same conversation total', async () => {
    const clock = { now: 0 }
    const wire = { prices: WIRE.prices }
    const original = await (await worker(clock)).agents.create({ id: 'a', model: 'claude-opus-4-8', wire })
    await converse(original, clock)
    const restored = await (await worker(clock)).agents.restore(exportLedger(original))
    const [expected, resumed] = [await original.stepDetailed('Four.', { format: 'anthropic' }), await restored.stepDetailed('Four.', { format: 'anthropic' })]
    for (const agent of [original, restored]) agent.record({ role: 'assistant', content: 'ok' }, { usage: { inputTokens: 2040, cachedReadTokens: 2000, cacheWriteTokens: 30, outputTokens: 2 } })
    expect(resumed.body).to.equal(expected.body)
    expect(resumed.report.cost).to.deep.equal(expected.report.cost)
    expect(exportLedger(restored)).to.equal(exportLedger(original))
  })

  it('keeps the options in the header and the TTL plan\'s measure on each reply line; an agent without wire options writes neither', async () => {
    const clock = { now: 0 }
    const host = await worker(clock)
    const planned = await host.agents.create({ id: 'planned', model: 'claude-opus-4-8', wire: WIRE })
    await converse(planned, clock)
    const { header, entries } = readLedger(exportLedger(planned))
    expect(header.wire).to.deep.equal(WIRE)
    const replies = entries.filter((line) => line.source === 'assistant')
    expect(replies.map((line) => line.request?.at)).to.deep.equal([0, 12 * MIN, 24 * MIN])
    expect(replies[0].request).to.deep.include({ format: 'anthropic' })
    expect(replies[0].request!.breakpoints.map((point) => point.kind)).to.include('system')
    const plain = await host.agents.create({ id: 'plain', model: 'claude-opus-4-8' })
    await converse(plain, clock)
    const text = exportLedger(plain)
    expect(text).to.not.include('"wire"').and.not.include('"request"')
  })

  it('refuses a header whose wire options are not of their shape with AGENT_LEDGER_BAD_HEADER naming the key', async () => {
    const clock = { now: 0 }
    const agent = await (await worker(clock)).agents.create({ id: 'a', model: 'claude-opus-4-8', wire: { ttlPlan: true } })
    await converse(agent, clock)
    const lines = exportLedger(agent).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    lines[0].wire = { ttlPlan: 'yes' }
    const error = thrown(() => readLedger(rechain(lines)))
    expect(error).to.include({ code: 'AGENT_LEDGER_BAD_HEADER' })
    expect((error as unknown as { details: { problem: string } }).details.problem).to.equal('"wire.ttlPlan": expected true or false, received "yes"')
  })

  it('refuses a reply line whose request facts are not of their shape with AGENT_LEDGER_BAD_LINE naming the line', async () => {
    const clock = { now: 0 }
    const agent = await (await worker(clock)).agents.create({ id: 'a', model: 'claude-opus-4-8', wire: { ttlPlan: true } })
    await converse(agent, clock)
    const lines = exportLedger(agent).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    const at = lines.findIndex((line) => line.source === 'assistant')
    lines[at].request = { at: 0, format: 'anthropic', breakpoints: [{ kind: 'everything', prefixTokens: 10 }] }
    const error = thrown(() => readLedger(rechain(lines)))
    expect(error).to.deep.include({ code: 'AGENT_LEDGER_BAD_LINE' })
    expect((error as unknown as { details: { line: number } }).details.line).to.equal(at + 1)
  })
})
