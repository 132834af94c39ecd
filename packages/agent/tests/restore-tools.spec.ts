/**
 * A restored agent declares what its ledger's last request declared (R-LEDGER-9, R-TOOL-12, R-TOOL-13):
 * an inert tool stays declared and told, an appended tool stays appended, and a tool whose plugin did
 * not come back with the worker goes inert instead of breaking the tools.
 */
import { expect } from 'chai'
import type { Context } from 'cordis'
import { exportLedger, type Agent, type WireFormat } from 'dsh-agent'
import { bootApp, loadPlugin, tool, type LoadedPlugin } from 'dsh-testing'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(160)
const PERSONA = { persona: `Persona. ${LONG}` }

/** A booted app with `read` (the host's) and, unless `bare`, `write` from the plugin `lender`. */
async function boot(bare = false): Promise<{ host: Context; lender?: LoadedPlugin }> {
  const { host } = await bootApp({ systemPrompt: PERSONA, tools: true, agents: true })
  host.tools.register(tool('read', { guidance: 'Read before you edit.' }))
  if (bare) return { host }
  const lender = await loadPlugin(host, 'lender', ['tools', 'systemPrompt'])
  lender.ctx.tools.register(tool('write', { guidance: 'Write whole files only.' }))
  return { host, lender }
}

/** The declared tool names of a request of `format`. */
function declared(format: WireFormat, request: object): string[] {
  const body = request as { tools?: Record<string, unknown>[] }
  if (format === 'openai-chat') return (body.tools ?? []).map((entry) => (entry.function as { name: string }).name)
  return (body.tools ?? []).map((entry) => entry.name as string)
}

describe('dsh-agent: a restored agent declares what its ledger last declared (R-LEDGER-9)', () => {
  let made = 0
  const create = (host: Context, extra: object = {}): Promise<Agent> => host.agents.create({ id: `r${made++}`, model: 'claude-sonnet-4-5', promptChange: 'append', ...extra })

  for (const format of ['anthropic', 'openai-chat'] as const) {
    it(`${format}: restored in the inert period, without the tool's plugin, the next request is the exported agent's next request byte for byte (the tool kept declared, nothing told twice, no break)`, async () => {
      const { host, lender } = await boot()
      const agent = await create(host)
      await agent.stepDetailed('Hi.', { format })
      agent.record({ role: 'assistant', content: 'Hello.' })
      await lender!.dispose()
      await agent.stepDetailed('Write it.', { format })
      agent.record({ role: 'assistant', content: 'Noted.' })
      const ledger = exportLedger(agent)

      const { host: later } = await boot(true)
      const restored = await later.agents.restore(ledger)
      const [next, original] = [await restored.stepDetailed('Go on.', { format }), await agent.stepDetailed('Go on.', { format })]
      expect(next.body).to.equal(original.body)
      expect(declared(format, next.request)).to.deep.equal(['read', 'write'])
      expect(next.report.breaks).to.deep.equal([])
      expect(next.added.map((item) => item.source)).to.deep.equal(['user'])
      // A call to it after the restore is refused as it would have been.
      const [refusal] = restored.record({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'write', arguments: '{}' } }] })
      expect(refusal.error.code).to.equal('AGENT_TOOL_UNAVAILABLE')
    })
  }

  it('a tool whose plugin is not loaded on the worker that restores goes inert with one note, named with the plugin its ledger recorded (format 4), and the tools do not break', async () => {
    const { host } = await boot()
    const agent = await create(host)
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello.' })
    const { host: later } = await boot(true)
    const restored = await later.agents.restore(exportLedger(agent))
    const next = await restored.stepDetailed('Go on.', { format: 'anthropic' })
    expect(declared('anthropic', next.request)).to.deep.equal(['read', 'write'])
    expect(next.report.breaks).to.deep.equal([])
    // Its guidance stays too, as the ledger's last version sent it (R-TOOL-12).
    expect(next.report.toolChanges).to.deep.equal([{
      tool: 'write', kind: 'removed', owner: 'lender', handling: 'inert', breaks: false, cost: 0, kept: [{ section: 'tool:write', owner: 'lender' }],
    }])
    const notes = restored.conversation.filter((item) => typeof item.content === 'string' && item.content.startsWith('[tools changed'))
    expect(notes).to.have.length(1)
    restored.record({ role: 'assistant', content: 'Going.' })
    const again = await restored.stepDetailed('And on.', { format: 'anthropic' })
    expect(again.added.map((item) => item.source)).to.deep.equal(['user'])
  })

  it('a ledger whose last epoch came after its last declaration declares the live tools exactly at the first step, as the epoch would', async () => {
    const { host, lender } = await boot()
    const agent = await create(host)
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello.' })
    await lender!.dispose()
    await agent.stepDetailed('Write it.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Noted.' })
    await agent.compact({ summary: 'Hello, then write went away.', keep: { turns: 1 }, format: 'anthropic' })
    const { host: later } = await boot(true)
    const restored = await later.agents.restore(exportLedger(agent))
    const [next, original] = [await restored.stepDetailed('Next.', { format: 'anthropic' }), await agent.stepDetailed('Next.', { format: 'anthropic' })]
    expect(declared('anthropic', next.request)).to.deep.equal(['read'])
    expect(next.body).to.equal(original.body)
  })

  it('a tool appended through Anthropic\'s path stays appended after a restore: the next request is the exported agent\'s, byte for byte, with the beta header', async () => {
    const { host } = await boot(true)
    const helper = await loadPlugin(host, 'helper', ['tools'])
    const agent = await create(host, { model: 'claude-opus-5', wire: { toolAdditions: true } })
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello.' })
    helper.ctx.tools.register(tool('grep', { description: 'Searches files.' }))
    await agent.stepDetailed('Search.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Searching.' })

    const { host: later } = await boot(true)
    const again = await loadPlugin(later, 'helper', ['tools'])
    again.ctx.tools.register(tool('grep', { description: 'Searches files.' }))
    const restored = await later.agents.restore(exportLedger(agent))
    const [next, original] = [await restored.stepDetailed('Go on.', { format: 'anthropic' }), await agent.stepDetailed('Go on.', { format: 'anthropic' })]
    expect(next.body).to.equal(original.body)
    expect(declared('anthropic', next.request)).to.deep.equal(['read'])
    expect(next.headers).to.deep.equal(original.headers)
    expect(next.report.breaks).to.deep.equal([])
  })
})
