import { expect } from 'chai'
import type { Context } from 'cordis'
import { exportLedger, type Agent, type ToolChangeOption, type WireFormat } from 'dsh-agent'
import { bootApp, loadPlugin, tool, type LoadedPlugin } from 'dsh-testing'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(160)
const GUIDANCE = 'Write whole files only; prefer edit for small changes.'
const FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const
const MODEL: Record<(typeof FORMATS)[number], string> = { 'openai-chat': 'gpt-5', 'openai-responses': 'gpt-5', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-pro' }

/** The declared tool names of a request of `format`. */
function declared(format: WireFormat, request: object): string[] {
  const body = request as { tools?: Record<string, unknown>[]; config?: { tools?: Record<string, unknown>[] } }
  const tools = body.tools ?? body.config?.tools ?? []
  if (format === 'gemini') return tools.flatMap((group) => ((group.functionDeclarations ?? []) as { name: string }[]).map((fn) => fn.name))
  if (format === 'openai-chat') return tools.map((entry) => (entry.function as { name: string }).name)
  return tools.map((entry) => entry.name as string)
}

/** A booted app with `read` (the host's) and `write` with its guidance and a templated note shown with it (plugin `lender`). */
async function boot(): Promise<{ host: Context; lender: LoadedPlugin }> {
  const { host } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, tools: true, agents: true })
  host.tools.register(tool('read', { guidance: 'Read before you edit.' }))
  const lender = await loadPlugin(host, 'lender', ['tools', 'systemPrompt'])
  lender.ctx.tools.register(tool('write', { guidance: GUIDANCE }))
  // A section shown with `write` whose variable the plugin provides: with the plugin gone it cannot render again.
  lender.ctx.systemPrompt.variable('write_limit', () => '64 KB')
  lender.ctx.systemPrompt.section({ name: 'write:limit', order: 1210, tool: 'write', text: 'Write at most {{write_limit}} per call.' })
  return { host, lender }
}

const systemVersions = (agent: Agent) => agent.conversation.filter((item) => item.source === 'system-prompt').length

describe('dsh-agent: an inert tool\'s guidance stays until the next epoch (issue 21, item 4; R-TOOL-12)', () => {
  let host: Context
  let lender: LoadedPlugin
  let made = 0
  beforeEach(async () => { ({ host, lender } = await boot()) })
  const agentFor = (format: (typeof FORMATS)[number], toolChange?: ToolChangeOption): Promise<Agent> =>
    host.agents.create({ id: `a${made++}`, model: MODEL[format], promptChange: 'append', ...(toolChange === undefined ? {} : { toolChange }) })

  for (const format of FORMATS) {
    it(`${format}: disposing the plugin of a tool with guidance keeps the prompt byte for byte (no new version), predicts the previous request whole, and names the kept sections; the compaction drops both`, async () => {
      const agent = await agentFor(format)
      const first = await agent.stepDetailed('Hi.', { format })
      expect(first.system).to.include(GUIDANCE).and.to.include('Write at most 64 KB per call.')
      agent.record({ role: 'assistant', content: 'Hello.' })
      await lender.dispose()
      const second = await agent.stepDetailed('Write it.', { format })
      expect(second.system).to.equal(first.system)
      expect(second.added.map((item) => item.source)).to.deep.equal(['user', 'user'])
      expect(systemVersions(agent)).to.equal(1)
      expect(declared(format, second.request)).to.deep.equal(['read', 'write'])
      expect(second.report.breaks).to.deep.equal([])
      expect(second.report.reusableTokens).to.equal(first.report.requestTokens)
      expect(second.report.toolChanges).to.deep.equal([{
        tool: 'write', kind: 'removed', owner: 'lender', handling: 'inert', breaks: false, cost: 0,
        kept: [{ section: 'tool:write', owner: 'lender' }, { section: 'write:limit', owner: 'lender' }],
      }])
      agent.record({ role: 'assistant', content: 'Noted.' })
      const third = await agent.stepDetailed('Go on.', { format })
      expect(third.system).to.equal(first.system)
      expect(third.report.toolChanges).to.equal(undefined)
      agent.record({ role: 'assistant', content: 'Going.' })
      await agent.compact({ summary: 'We said hello; write went away.', keep: { turns: 1 }, format })
      const after = await agent.stepDetailed('Next.', { format })
      expect(after.system).not.to.include(GUIDANCE)
      expect(after.system).not.to.include('Write at most')
      expect(after.system).to.include('Read before you edit.')
      expect(declared(format, after.request)).to.deep.equal(['read'])
    })
  }

  it('a tool a restriction hides keeps its guidance in place while it is inert; shown again, its live section takes the place once', async () => {
    const agent = await agentFor('anthropic')
    const first = await agent.stepDetailed('Hi.', { format: 'anthropic' })
    const hide = agent.ctx.tools.restrict({ deny: ['write'] })
    const hidden = await agent.stepDetailed('Go.', { format: 'anthropic' })
    expect(hidden.system).to.equal(first.system)
    expect(hidden.report.toolChanges![0].kept).to.deep.equal([{ section: 'tool:write', owner: 'lender' }, { section: 'write:limit', owner: 'lender' }])
    hide()
    const back = await agent.stepDetailed('Again.', { format: 'anthropic' })
    expect(back.system).to.equal(first.system)
    expect(back.system.split(GUIDANCE)).to.have.length(2)
    expect(back.rendered.sections.map((section) => section.name).filter((name) => name === 'tool:write')).to.have.length(1)
    expect(systemVersions(agent)).to.equal(1)
  })

  it('the kept text is the last rendered text: a change of the hidden section\'s variable does not reach the prompt before the epoch', async () => {
    const agent = await agentFor('anthropic')
    const first = await agent.stepDetailed('Hi.', { format: 'anthropic' })
    agent.ctx.tools.restrict({ deny: ['write'] })
    agent.ctx.systemPrompt.variable('write_limit', () => '1 MB')
    const second = await agent.stepDetailed('Go.', { format: 'anthropic' })
    expect(second.system).to.equal(first.system).and.to.include('Write at most 64 KB per call.')
  })

  it('under removed: immediate the guidance leaves at once, with the tool', async () => {
    const agent = await agentFor('anthropic', 'immediate')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    await lender.dispose()
    const second = await agent.stepDetailed('Write it.', { format: 'anthropic' })
    expect(second.system).not.to.include(GUIDANCE)
    expect(systemVersions(agent)).to.equal(2)
    expect(second.report.toolChanges![0]).not.to.have.property('kept')
  })

  it('a fork during the inert period repeats the latest request with the kept sections (parity null)', async () => {
    const agent = await agentFor('anthropic')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    await lender.dispose()
    const second = await agent.stepDetailed('Write it.', { format: 'anthropic' })
    const fork = await agent.fork({ kind: 'title', instruction: 'Name this conversation.', format: 'anthropic' })
    expect(fork.parity()).to.equal(null)
    expect(fork.result.system).to.equal(second.system)
  })

  it('a ledger exported in the inert period names the tool of each section shown with one, and the restored agent renders the inert tool\'s byte for byte (no new version, resume unchanged)', async () => {
    const agent = await agentFor('anthropic')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello.' })
    await lender.dispose()
    const second = await agent.stepDetailed('Write it.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Noted.' })
    const ledger = exportLedger(agent)
    expect(ledger).to.include('"tool":"write"')

    // A fresh process without the lender plugin: the kept sections have no registration there.
    const { host: later } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, tools: true, agents: true })
    later.tools.register(tool('read', { guidance: 'Read before you edit.' }))
    const restored = await later.agents.restore(ledger)
    expect(exportLedger(restored)).to.equal(ledger)
    const next = await restored.stepDetailed('Go on.', { format: 'anthropic' })
    expect(next.system).to.equal(second.system)
    expect(next.resume).to.deep.include({ changed: false, action: 'none' })
    expect(systemVersions(restored)).to.equal(1)
    // The epoch drops them there too.
    restored.record({ role: 'assistant', content: 'Going.' })
    await restored.compact({ summary: 'Hello, then write went away.', keep: { turns: 1 }, format: 'anthropic' })
    expect((await restored.stepDetailed('Next.', { format: 'anthropic' })).system).not.to.include(GUIDANCE)
  })
})
