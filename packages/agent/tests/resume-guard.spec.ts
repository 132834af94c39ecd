import { expect } from 'chai'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { exportLedger, WIRE_FORMATS, type Agent, type PromptChangePolicy, type ResumePolicy, type ResumeReport, type WireFormat } from 'dsh-agent'
import { bootApp, captureLogs, rejection, tool } from 'dsh-testing'

/** The ledger scenario as format version 1 wrote it (no parts). */
const OLD_LEDGER = readFileSync(new URL('../../cli/tests/fixtures/ledger/conversation.jsonl', import.meta.url), 'utf8')

/** A harness: a persona (as a deployment's dsh-system-prompt row sets it), a section, a tool; the same before and after a restart unless `persona` differs. */
async function harness(promptChange: PromptChangePolicy, persona = 'Be brief.') {
  const booted = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona }, tools: true, agents: { promptChange } })
  booted.host.tools.register(tool('read', { description: 'Read a file.' }))
  booted.host.systemPrompt.section({ name: 'rules', order: 100, text: 'Check every path.\n\nNever guess.' })
  return booted
}

/** A short conversation in `format`, ending after a reply. */
async function converse(agent: Agent, format: WireFormat): Promise<void> {
  await agent.step('Read a.txt.', { format })
  agent.record({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }] })
  agent.record({ role: 'tool', tool_call_id: 'c1', name: 'read', content: 'hello' })
  await agent.step(undefined, { format })
  agent.record({ role: 'assistant', content: 'It says hello.' })
}

/** The agent's ledger after the conversation, and the body the same agent (never restored) sends next. */
async function before(promptChange: PromptChangePolicy, format: WireFormat) {
  const { host } = await harness(promptChange)
  const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek' })
  await converse(agent, format)
  const ledger = exportLedger(agent)
  return { ledger, next: (await agent.stepDetailed('Again.', { format })).body }
}

describe('dsh-agent: the resume guard (R-LEDGER-8)', () => {
  it('a restore into the same deployment goes on: the first step reports no difference, once, and sends what the agent would have sent', async () => {
    const { ledger, next } = await before('append', 'openai-chat')
    const { host, app } = await harness('append')
    const heard: ResumeReport[] = []
    const told: ResumeReport[] = []
    app.on('agent/resume', (_agent, report) => { heard.push(report) })
    const agent = await host.agents.restore(ledger, { onResume: (report) => told.push(report) })
    const first = await agent.stepDetailed('Again.')
    expect(first.body).to.equal(next)
    expect(first.resume).to.deep.equal({ agent: 'a', policy: 'new-epoch', storedVersion: 1, parts: true, changed: false, action: 'none' })
    expect(heard).to.deep.equal([first.resume])
    expect(told).to.deep.equal([first.resume])
    const second = await agent.stepDetailed('Once more.')
    expect(second.resume).to.equal(undefined)
    expect(heard).to.have.length(1)
  })

  it('a ledger that sent no system prompt yet (its header alone) has nothing to keep: authoritative sends the rendered one', async () => {
    const first = await harness('append')
    const fresh = await first.host.agents.create({ id: 'a', model: 'deepseek-chat' })
    const ledger = exportLedger(fresh)
    const { host } = await harness('append', 'Be terse.')
    const agent = await host.agents.restore(ledger, { resume: 'authoritative' })
    const step = await agent.stepDetailed('Hi.')
    expect(step.resume).to.deep.equal({ agent: 'a', policy: 'authoritative', storedVersion: 0, parts: false, changed: false, action: 'none' })
    expect(step.added[0]).to.deep.include({ source: 'system-prompt', content: 'Be terse.\n\nCheck every path.\n\nNever guess.' })
  })

  for (const format of WIRE_FORMATS) for (const promptChange of ['append', 'replace'] as const) {
    it(`after a persona edit, both policies name deployment:persona, its owner and the predicted cost (${format}, ${promptChange}); authoritative sends the stored bytes`, async () => {
      const { ledger, next } = await before(promptChange, format)
      const reports: Partial<Record<ResumePolicy, ResumeReport>> = {}
      for (const policy of ['authoritative', 'new-epoch'] as const) {
        const { host } = await harness(promptChange, 'Be terse.')
        const agent = await host.agents.restore(ledger, { resume: policy })
        const first = await agent.stepDetailed('Again.', { format })
        reports[policy] = first.resume
        const versions = agent.conversation.filter((item) => item.source === 'system-prompt')
        if (policy === 'authoritative') {
          expect(first.body).to.equal(next)
          expect(versions.map((item) => item.content)).to.deep.equal(['Be brief.\n\nCheck every path.\n\nNever guess.'])
        } else {
          expect(first.body).to.not.equal(next)
          expect(versions.at(-1)!.content).to.equal('Be terse.\n\nCheck every path.\n\nNever guess.')
        }
      }
      const newEpoch = reports['new-epoch']!
      const authoritative = reports.authoritative!
      expect(newEpoch).to.deep.include({
        changed: true, storedVersion: 1, parts: true, action: promptChange === 'append' ? 'new-version' : 'new-opening',
        difference: { section: 'deployment:persona', owner: 'dsh-system-prompt', layer: 'global', cause: 'section text changed: "deployment:persona"' },
      })
      expect(authoritative).to.deep.include({ action: 'stored-prompt', difference: newEpoch.difference, cost: newEpoch.cost })
      const cost = newEpoch.cost!
      expect(cost.missedTokens).to.equal(cost.requestTokens - cost.predictedCachedTokens)
      expect(cost.missedTokens).to.be.greaterThan(0)
      // deepseek's rules (openai-chat) cache a prompt this small: under replace the whole request after
      // the opening misses, under append only what was added. The other providers' minimums cache none of it.
      if (format !== 'openai-chat') expect(cost.predictedCachedTokens).to.equal(0)
      else if (promptChange === 'replace') expect(cost.predictedCachedTokens).to.equal(0)
      else expect(cost.predictedCachedTokens).to.be.greaterThan(0)
    })
  }

  it('authoritative keeps the stored version while the deployment renders the same (forks too), and records a later change as any change', async () => {
    const { ledger } = await before('append', 'openai-chat')
    const { host } = await harness('append', 'Be terse.')
    const agent = await host.agents.restore(ledger, { resume: 'authoritative' })
    await agent.step('One.')
    agent.record({ role: 'assistant', content: 'ok' })
    await agent.step('Two.')
    agent.record({ role: 'assistant', content: 'ok' })
    expect(agent.conversation.filter((item) => item.source === 'system-prompt')).to.have.length(1)
    // A fork repeats the latest request: the stored version too.
    expect((await agent.fork({ kind: 'title', instruction: 'Title?' })).parity()).to.equal(null)
    agent.ctx.systemPrompt.section({ name: 'late', order: 200, text: 'A late rule.' })
    const third = await agent.stepDetailed('Three.')
    expect(third.added[0]).to.deep.include({ source: 'system-prompt', content: 'Be terse.\n\nCheck every path.\n\nNever guess.\n\nA late rule.' })
  })

  it('an old ledger (no parts): the difference names the section that holds the first differing byte, as rendered now', async () => {
    const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be quick.' }, tools: true, agents: true })
    host.tools.register(tool('read', { description: 'Read a file.' }))
    const agent = await host.agents.restore(OLD_LEDGER, { resume: 'authoritative' })
    const first = await agent.stepDetailed('Again.')
    expect(first.resume).to.deep.include({
      parts: false, storedVersion: 2, action: 'stored-prompt',
      difference: { section: 'deployment:persona', owner: 'dsh-system-prompt', layer: 'global', cause: 'system prompt differs from the stored version from byte 3, in section "deployment:persona" as rendered now (the ledger records no parts)' },
    })
    expect(first.added.map((item) => item.source)).to.deep.equal(['user', 'runtime-context'])
  })

  it('refuses an unknown policy (AGENT_INVALID_RESUME_POLICY) and logs a failing onResume (AGENT_RESUME_LISTENER_FAILED) without failing the step', async () => {
    const { ledger } = await before('append', 'openai-chat')
    const { host, app } = await harness('append', 'Be terse.')
    expect(await rejection(host.agents.restore(ledger, { resume: 'keep' as ResumePolicy }))).to.deep.include({ code: 'AGENT_INVALID_RESUME_POLICY', details: { received: 'keep' } })
    const logs = captureLogs(app)
    const agent = await host.agents.restore(ledger, { onResume: () => { throw new Error('audit down') } })
    expect((await agent.stepDetailed('Again.')).resume).to.deep.include({ changed: true })
    expect(logs.map((log) => log.line)).to.deep.include('warn dsh-agent: agent "a": agent/resume listener of plugin "onResume" failed: audit down (the resume is decided and the step goes on)')
  })

  // One turn of a random session: the user's text, then a reply in text or through a tool call.
  const turn = fc.record({ input: fc.string({ minLength: 1, maxLength: 30 }), viaTool: fc.boolean(), reply: fc.string({ minLength: 1, maxLength: 30 }) })
  const sessions = fc.record({
    turns: fc.array(turn, { minLength: 1, maxLength: 4 }), format: fc.constantFrom(...WIRE_FORMATS), promptChange: fc.constantFrom<PromptChangePolicy>('append', 'replace'),
    edited: fc.boolean(), next: fc.string({ minLength: 1, maxLength: 30 }),
  })

  it('over random sessions, restore + next step under authoritative sends the body a never-restored agent would send', async () => {
    await fc.assert(fc.asyncProperty(sessions, async ({ turns, format, promptChange, edited, next }) => {
      const { host } = await harness(promptChange)
      const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
      for (const [i, { input, viaTool, reply }] of turns.entries()) {
        await agent.step(input, { format })
        if (viaTool) {
          agent.record({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read', arguments: '{}' } }] })
          agent.record({ role: 'tool', tool_call_id: `call_${i}`, content: reply })
          await agent.step(undefined, { format })
        }
        agent.record({ role: 'assistant', content: reply })
      }
      const ledger = exportLedger(agent)
      const later = await harness(promptChange, edited ? 'Be terse.' : 'Be brief.')
      const restored = await later.host.agents.restore(ledger, { resume: 'authoritative' })
      const [plain, resumed] = await Promise.all([agent.stepDetailed(next, { format }), restored.stepDetailed(next, { format })])
      expect(resumed.body).to.equal(plain.body)
      expect(resumed.resume).to.deep.include({ changed: edited, action: edited ? 'stored-prompt' : 'none' })
    }), { numRuns: 24 })
  })
})
