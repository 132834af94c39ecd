import { expect } from 'chai'
import type { Context } from 'cordis'
import type { PromptAssembly } from 'dsh-system-prompt'
import { captureLogs, loadPlugin, rejection, tick } from 'dsh-testing'
import { briefAgent } from './helpers.js'

// Issue 20, items 5 and 6: a step either records nothing or completes, whatever its listeners do.

/** Counts the rejections nobody handles while `body` runs (and for a few turns after). */
async function unhandledDuring(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = []
  const note = (reason: unknown) => { seen.push(reason) }
  process.on('unhandledRejection', note)
  try {
    await body()
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
  } finally {
    process.off('unhandledRejection', note)
  }
  return seen
}

describe('dsh-agent: steps and their listeners (issue 20)', () => {
  describe('a throwing agent/step listener', () => {
    it('cannot make the step reject: the step completes once, the failure is logged naming the plugin, and later listeners still run', async () => {
      const { host, app, agent } = await briefAgent()
      const logs = captureLogs(app)
      const metrics = await loadPlugin(host, 'metrics-exporter')
      metrics.ctx.on('agent/step', () => { throw new Error('exporter down') })
      const heard: string[] = []
      host.on('agent/step', (stepped) => { heard.push(stepped.id) })
      const request = await agent.step('Hello.')
      expect(request.messages.filter((message) => message.role === 'user')).to.have.length(1)
      expect(agent.conversation.map((item) => item.source)).to.deep.equal(['system-prompt', 'user'])
      expect(heard).to.deep.equal(['a'])
      expect(logs.filter((log) => log.type === 'warn').map((log) => log.text)).to.deep.equal([
        'agent "a": agent/step listener of plugin "metrics-exporter" failed: exporter down (the step is recorded and its request returned)',
      ])
    })

    it('a rejecting async listener is reported the same way, and never left unhandled', async () => {
      const { host, app, agent } = await briefAgent()
      const logs = captureLogs(app)
      const metrics = await loadPlugin(host, 'async-exporter')
      let fail!: (error: Error) => void
      metrics.ctx.on('agent/step', () => new Promise((_resolve, reject) => { fail = reject }))
      const unhandled = await unhandledDuring(async () => {
        await agent.step('Hello.')
        fail(new Error('late'))
      })
      expect(unhandled).to.deep.equal([])
      expect(logs.filter((log) => log.type === 'warn').map((log) => log.text)).to.deep.equal([
        'agent "a": agent/step listener of plugin "async-exporter" failed: late (the step is recorded and its request returned)',
      ])
    })
  })

  describe('a re-entrant assemble listener', () => {
    const reentries: Array<[string, (ctx: Context, agent: import('dsh-agent').Agent) => Promise<unknown>]> = [
      ['steps the agent again', (_ctx, agent) => agent.step()],
      ['steps the agent again after an await', async (_ctx, agent) => { await tick(); return agent.step() }],
      ['assembles for the agent again', (ctx, agent) => ctx.systemPrompt.assemble({ scope: agent, agent })],
    ]
    for (const [what, again] of reentries) {
      it(`one that ${what} gets PROMPT_ASSEMBLY_REENTRANT naming its plugin; nothing is recorded and no rejection is unhandled`, async () => {
        const { host, agent } = await briefAgent()
        const loop = await loadPlugin(host, 'loop-listener', ['systemPrompt'])
        loop.ctx.on('system-prompt/assemble', async (assembly: PromptAssembly, _context, next) => {
          await again(loop.ctx, agent)
          return next(assembly)
        })
        let error: Error & { code?: string; details?: unknown } = new Error('none')
        const unhandled = await unhandledDuring(async () => { error = await rejection(agent.step('Hello.')) })
        expect(error).to.deep.include({ code: 'PROMPT_ASSEMBLY_REENTRANT', details: { owner: 'loop-listener', depth: 3, limit: 8 } })
        expect(unhandled).to.deep.equal([])
        expect(agent.conversation).to.deep.equal([])
      })
    }

    it('a listener may still assemble for another scope, once, and overlapping steps of one agent both complete', async () => {
      const { host, agent } = await briefAgent()
      const other = await host.agents.create({ id: 'b', model: 'deepseek-chat' })
      const peek = await loadPlugin(host, 'peek-listener', ['systemPrompt'])
      let peeked = 0
      peek.ctx.on('system-prompt/assemble', async (assembly: PromptAssembly, context, next) => {
        if (context.agent === agent) {
          await peek.ctx.systemPrompt.assemble({ scope: other, agent: other })
          peeked++
        }
        return next(assembly)
      })
      await Promise.all([agent.step('One.'), agent.step('Two.')])
      expect(peeked).to.equal(2)
    })
  })
})
