import { expect } from 'chai'
import type { Context } from 'cordis'
import { COMPACTION_SUMMARY_MARKER, exportLedger, LedgerWriter, ledgerLines, type Agent, type LedgerStore, type PromptChangePolicy } from 'dsh-agent'
import { bootApp, rejection, tool } from 'dsh-testing'
import { rechain } from './helpers.js'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(160)
const RULES = 'Never push to main without a review. '.repeat(40)

describe('dsh-agent: compaction as epochs (issue 21)', () => {
  let harness: Context
  let made = 0
  let rules = 'v1'
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, tools: true, agents: true }))
    harness.tools.register(tool('read'))
    rules = 'v1'
    harness.systemPrompt.section({ name: 'rules', order: 10, text: () => `Rules ${rules}. ${RULES}` })
  })

  const agentFor = (model: string, promptChange: PromptChangePolicy = 'append', extra: object = {}) => harness.agents.create({ id: `a${made++}`, model, promptChange, ...extra })

  /** Six turns, with the rules section changed twice (three prompt versions). */
  async function talk(agent: Agent, format: 'anthropic' | 'openai-chat' = 'anthropic') {
    for (let turn = 1; turn <= 6; turn++) {
      if (turn === 3) rules = 'v2'
      if (turn === 5) rules = 'v3'
      await agent.stepDetailed(`Question ${turn}.`, { format })
      agent.record({ role: 'assistant', content: `Answer ${turn}.` })
    }
  }

  it('prices both re-anchors before anything is paid: the stable opening reads the tools and the opening from cache and writes what changed, the new opening writes the whole newest version', async () => {
    harness.tools.register(tool('search', { description: `Search the code base. ${LONG}` }))
    const agent = await agentFor('claude-sonnet-4-5')
    await talk(agent)
    const length = agent.conversation.length
    const plan = await agent.planCompaction({ summary: 'We answered six questions.', keep: { turns: 2 } })
    expect(agent.conversation.length).to.equal(length)
    expect(plan.offered.map((offer) => offer.kind)).to.deep.equal(['stable-opening', 'new-opening'])
    const [stable, fresh] = plan.offered
    // Both read the tools (the latest request's first breakpoint); only the stable opening reads the opening too.
    expect(fresh.cachedTokens).to.be.greaterThan(0)
    expect(stable.cachedTokens).to.be.greaterThan(fresh.cachedTokens + 2000)
    // The stable opening carries the opening and what changed: more to re-read per request, less to write now.
    expect(stable.requestTokens).to.be.greaterThan(fresh.requestTokens)
    expect(stable.costPerRequest).to.be.greaterThan(fresh.costPerRequest)
    expect(stable.costNow).to.be.lessThan(fresh.costNow)
    // Anthropic: 1.25x written, 0.1x read; the total weighs ten later requests.
    expect(stable.costNow).to.be.closeTo(stable.cachedTokens * 0.1 + stable.writtenTokens * 1.25, 0.01)
    expect(stable.total).to.be.closeTo(stable.costNow + 10 * stable.costPerRequest, 0.01)
    expect(plan.choice).to.equal(stable.total <= fresh.total ? 'stable-opening' : 'new-opening')
    const longer = await agent.planCompaction({ summary: 'We answered six questions.', keep: { turns: 2 }, horizon: 1000 })
    expect(longer.choice).to.equal('new-opening')
  })

  it('with one prompt version, both re-anchors are the same request, and the policy keeps the opening', async () => {
    const agent = await agentFor('claude-sonnet-4-5')
    for (let turn = 1; turn <= 4; turn++) {
      await agent.step(`Question ${turn}.`, { format: 'anthropic' })
      agent.record({ role: 'assistant', content: `Answer ${turn}.` })
    }
    const plan = await agent.planCompaction({ summary: 'S.', keep: { turns: 1 } })
    expect(JSON.stringify(plan.baseline('stable-opening'))).to.equal(JSON.stringify(plan.baseline('new-opening')))
    expect(plan.offered[0]).to.deep.equal({ ...plan.offered[1], kind: 'stable-opening' })
    expect(plan.choice).to.equal('stable-opening')
  })

  it('opens an epoch: the opening byte-stable, the newest version as one re-anchor, the summary, the newest snapshot and the kept turns, and nothing superseded twice', async () => {
    const agent = await agentFor('claude-sonnet-4-5')
    await talk(agent)
    const opening = agent.conversation[0]
    const epoch = await (await agent.planCompaction({ summary: 'We answered four questions.', keep: { turns: 2 } })).apply('stable-opening')
    expect(epoch).to.include({ epoch: 1, reanchor: 'stable-opening', format: 'anthropic', provider: 'anthropic' })
    const record = agent.conversation
    expect(record[0]).to.equal(opening)
    expect(record.map((item) => item.source)).to.deep.equal(['system-prompt', 'system-prompt', 'user', 'user', 'assistant', 'user', 'assistant'])
    expect(record[1].content).to.contain('Rules v3.')
    expect(record.filter((item) => item.source === 'system-prompt' && String(item.content).includes('Rules v2.'))).to.deep.equal([])
    expect(record[2].content).to.equal(`${COMPACTION_SUMMARY_MARKER}\n\nWe answered four questions.`)
    expect(record.slice(3).map((item) => item.content)).to.deep.equal(['Question 5.', 'Answer 5.', 'Question 6.', 'Answer 6.'])
    expect(agent.epochs).to.deep.equal([epoch])
    // Sent, the re-anchor is what changed since the opening: the persona once (in the opening), the new rules paragraph once.
    expect(record[1]).to.have.property('reanchor').that.matches(/^\[system prompt updated: the instructions above still hold, except as this message changes them\]\n\nIn the instructions above, the part from "Rules v1\. /)
    const body = (await agent.stepDetailed('Question 7.', { format: 'anthropic' })).body
    expect(body.split('Persona. Follow the house style').length - 1).to.equal(1)
    expect(body.split('Rules v3.').length - 1).to.equal(1)
  })

  it('the first step after a compaction credits what it shares with the latest request (not "reusable 0"), carries the epoch, and its reply\'s usage is the reported cost', async () => {
    const agent = await agentFor('claude-sonnet-4-5')
    await talk(agent)
    const epoch = await agent.compact({ summary: 'We answered four questions.', keep: { turns: 2 } })
    const next = await agent.stepDetailed('Question 7.', { format: 'anthropic' })
    expect(next.epoch).to.equal(epoch)
    expect(next.report.reusableTokens).to.be.greaterThan(0)
    if (epoch.reanchor === 'stable-opening') expect(next.report.predictedCachedTokens).to.equal(epoch.predicted.cachedTokens)
    expect(next.added.map((item) => item.source)).to.deep.equal(['user'])
    agent.record({ role: 'assistant', content: 'Answer 7.' }, { usage: { inputTokens: 5000, cachedReadTokens: 1000, cacheWriteTokens: 4000, outputTokens: 3 } })
    expect(epoch.reported).to.deep.equal({ inputTokens: 5000, cachedTokens: 1000, costNow: 1000 * 0.1 + 4000 * 1.25 })
    const after = await agent.stepDetailed('Question 8.', { format: 'anthropic' })
    expect(after.epoch).to.equal(undefined)
  })

  it('keeps the opening under the policy stable-opening and makes the newest version the opening under new-opening', async () => {
    const stable = await agentFor('claude-sonnet-4-5', 'append', { reanchor: 'stable-opening' })
    const fresh = await agentFor('claude-sonnet-4-5', 'append', { reanchor: 'new-opening' })
    for (const agent of [stable, fresh]) {
      rules = 'v1'
      await talk(agent)
    }
    expect((await stable.compact({ summary: 'S.', keep: { turns: 1 } })).reanchor).to.equal('stable-opening')
    expect((await fresh.compact({ summary: 'S.', keep: { turns: 1 } })).reanchor).to.equal('new-opening')
    expect(fresh.conversation[0].content).to.contain('Rules v3.')
    expect(fresh.conversation.filter((item) => item.source === 'system-prompt')).to.have.length(1)
  })

  it('under promptChange "replace" offers stable-opening as unavailable and takes new-opening', async () => {
    const agent = await agentFor('gpt-5', 'replace', { reanchor: 'stable-opening' })
    await talk(agent, 'openai-chat')
    const plan = await agent.planCompaction({ summary: 'S.', keep: { turns: 1 } })
    expect(plan.offered.map((offer) => offer.available)).to.deep.equal([false, true])
    expect(plan.choice).to.equal('new-opening')
    expect((await rejection(Promise.resolve().then(() => plan.apply('stable-opening'))))).to.have.property('code', 'AGENT_INVALID_COMPACTION')
  })

  it('refuses a plan applied after the record changed (AGENT_COMPACTION_STALE), a compaction that keeps everything (AGENT_NOTHING_TO_COMPACT), and bad options (AGENT_INVALID_COMPACTION)', async () => {
    const agent = await agentFor('gpt-5')
    await talk(agent, 'openai-chat')
    const plan = await agent.planCompaction({ summary: 'S.', keep: { turns: 1 } })
    agent.record({ role: 'assistant', content: 'More.' })
    expect(await rejection(Promise.resolve().then(() => plan.apply()))).to.deep.include({ code: 'AGENT_COMPACTION_STALE', details: { id: agent.id, planned: 15, now: 16 } })
    expect(await rejection(agent.compact({ summary: 'S.', keep: { turns: 6 } }))).to.deep.include({ code: 'AGENT_NOTHING_TO_COMPACT', details: { id: agent.id, keepTurns: 6, turns: 6 } })
    expect(await rejection(agent.compact({ summary: ' ' }))).to.have.property('code', 'AGENT_INVALID_COMPACTION')
    expect(await rejection(agent.compact({ summary: 'S.', keep: { turns: -1 } }))).to.have.property('code', 'AGENT_INVALID_COMPACTION')
    expect(await rejection(harness.agents.create({ id: 'bad', model: 'gpt-5', reanchor: 'sometimes' as never }))).to.have.property('code', 'AGENT_INVALID_COMPACTION')
  })

  it('exports every epoch to the ledger, and a restored agent sends the next request byte for byte', async () => {
    const agent = await agentFor('claude-sonnet-4-5')
    await talk(agent)
    await agent.compact({ summary: 'First summary.', keep: { turns: 1 } })
    await agent.step('Question 7.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Answer 7.' })
    await agent.compact({ summary: 'Second summary.', keep: { turns: 1 } })
    const ledger = exportLedger(agent)
    const epochLines = ledger.trim().split('\n').map((line) => JSON.parse(line)).filter((line) => 'epoch' in line)
    expect(epochLines.map((line) => line.epoch)).to.deep.equal([1, 2])
    const live = await agent.stepDetailed('Question 8.', { format: 'anthropic' })
    await agent.dispose()
    const restored = await harness.agents.restore(ledger)
    const again = await restored.stepDetailed('Question 8.', { format: 'anthropic' })
    expect(again.body).to.equal(live.body)
    expect(restored.epochs.map((epoch) => epoch.reanchor)).to.deep.equal(agent.epochs.map((epoch) => epoch.reanchor))
    expect(exportLedger(restored)).to.equal(exportLedger(agent))
  })

  it('ledger format 4 keeps both offers and the horizon on an epoch\'s line; an agent restored from format 3 keeps writing the chosen price only, and a format-3 line with offers is refused', async () => {
    const agent = await agentFor('claude-sonnet-4-5')
    await talk(agent)
    const epoch = await agent.compact({ summary: 'First summary.', keep: { turns: 1 } })
    const line = exportLedger(agent).trim().split('\n').map((text) => JSON.parse(text)).find((fields) => 'epoch' in fields)
    expect(line.offered.map((offer: { kind: string }) => offer.kind)).to.deep.equal(['stable-opening', 'new-opening'])
    expect(line.offered).to.deep.equal(epoch.offered.map((offer) => ({ ...offer })))
    expect(line.horizon).to.equal(epoch.horizon)
    const ledger = exportLedger(agent)
    await agent.dispose()
    const restored = await harness.agents.restore(ledger)
    expect(restored.epochs.map((item) => [item.offered.length, item.horizon])).to.deep.equal([[2, epoch.horizon]])

    // The same conversation restored from a format-3 ledger before its compaction keeps format 3.
    const older = await agentFor('claude-sonnet-4-5')
    await talk(older)
    // Format 3 has no toolOwners either.
    const objects = exportLedger(older).trim().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>).map(({ toolOwners: _owners, ...fields }) => fields)
    objects[0].version = 3
    await older.dispose()
    const three = await harness.agents.restore(rechain(objects))
    await three.compact({ summary: 'First summary.', keep: { turns: 1 } })
    const lines = exportLedger(three).trim().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>)
    const mark = lines.find((fields) => 'epoch' in fields)!
    expect([lines[0].version, 'offered' in mark, 'horizon' in mark]).to.deep.equal([3, false, false])
    const chosen = three.epochs[0].reanchor
    await three.dispose()
    const again = await harness.agents.restore(rechain(lines))
    expect(again.epochs.map((item) => item.offered.map((offer) => offer.kind))).to.deep.equal([[chosen]])
    await again.dispose()
    // A format-3 ledger whose epoch line carries a format-4 key is refused, naming the format.
    const stray = lines.map((fields) => ('epoch' in fields ? { ...fields, offered: line.offered, horizon: line.horizon } : fields))
    const refused = await rejection(harness.agents.restore(rechain(stray)))
    expect(refused.message).to.match(/an epoch line has no key "offered" \(it is written from ledger format 4; this ledger is format 3\)$/)
  })

  it('a LedgerWriter synced before and after a compaction stores exactly the exported ledger, the epoch line included', async () => {
    const agent = await agentFor('gpt-5')
    const stored: string[] = []
    const store: LedgerStore = { append: async (lines) => { stored.push(...lines) }, read: async () => [...stored] }
    const writer = new LedgerWriter(agent, store)
    await talk(agent, 'openai-chat')
    await writer.sync()
    await agent.compact({ summary: 'S.', keep: { turns: 1 } })
    await agent.step('Question 7.')
    expect(await writer.sync()).to.be.greaterThan(1)
    expect(stored).to.deep.equal(ledgerLines(agent))
    await agent.dispose()
    const restored = await harness.agents.restore(stored)
    const next = new LedgerWriter(restored, store, { stored: stored.length })
    restored.record({ role: 'assistant', content: 'Answer 7.' })
    expect(await next.sync()).to.equal(1)
    expect(stored).to.deep.equal(ledgerLines(restored))
  })

  it('the first request after a compaction is lowered from the new record, even when it is as long as the old one and ends with the same entry', async () => {
    for (const format of ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const) {
      const agent = await agentFor('gpt-5')
      await agent.step('Question 1.', { format })
      await agent.step('Question 2.', { format })
      agent.record({ role: 'assistant', content: 'Answer 2.' })
      const length = agent.conversation.length
      await agent.compact({ summary: 'The user asked one question.', keep: { turns: 1 }, format })
      expect(agent.conversation.length).to.equal(length)
      const body = (await agent.stepDetailed('Question 3.', { format })).body
      expect(body).to.contain('The user asked one question.')
      expect(body).to.not.contain('Question 1.')
    }
  })
})
