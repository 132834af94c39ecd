import { expect } from 'chai'
import type { Context } from 'cordis'
import { assembleContextFor, exportLedger, type Agent } from 'dsh-agent'
import { bootApp, captureLogs, loadPlugin } from 'dsh-testing'
import * as promptProbe from './published/prompt-probe.js'
import * as workspaceNotes from './published/workspace-notes.js'
import * as workflowState from './published/workflow-state.js'

// Issue 24: plugins written for the published dsh-agent, each a plugin module of its own under
// tests/published, mounted unchanged on a real Cordis app.
describe('dsh-agent: plugins written for the published agent run unchanged', () => {
  let app: Context
  let harness: Context
  beforeEach(async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'You work in the shop.' }, tools: true, agents: true, host: { name: 'harness' } }))
    workflowState.heard.length = 0
  })

  describe('assembleContextFor(agent, signal)', () => {
    it('gives the context a step assembles with: the agent as scope and agent, and the signal when one is given', async () => {
      const agent = await harness.agents.create({ id: 'a', model: 'm' })
      const signal = new AbortController().signal
      expect(assembleContextFor(agent, signal)).to.deep.equal({ scope: agent, agent, signal })
      expect(assembleContextFor(agent)).to.deep.equal({ scope: agent, agent })
      expect(Object.keys(assembleContextFor(agent))).to.deep.equal(['scope', 'agent'])
    })

    it('lets a plugin assemble what the agent is sent: its scoped sections and its variables', async () => {
      await app.plugin(promptProbe)
      const agent = await harness.agents.create({ id: 'a', model: 'm', cwd: '/w' })
      agent.ctx.systemPrompt.section({ name: 'mine', order: 5, text: 'Agent {{probe_agent}} in {{cwd}}.' })
      const assembly = await promptProbe.probe(app, agent)
      expect(assembly.sections.map((s) => s.name)).to.include('mine')
      expect(assembly.variables).to.include({ probe_agent: 'a', cwd: '/w', model: 'm' })
    })

    it('passes the signal on: an aborted signal rejects the assembly with its reason', async () => {
      await app.plugin(promptProbe)
      const agent = await harness.agents.create({ id: 'a', model: 'm' })
      const controller = new AbortController()
      const reason = new Error('stop')
      controller.abort(reason)
      let caught: unknown
      try {
        await promptProbe.probe(app, agent, controller.signal)
      } catch (error) {
        caught = error
      }
      expect(caught).to.equal(reason)
    })
  })

  describe('the published agent fields', () => {
    it('renders a plugin that reads agent.session.header.cwd, agent.session.id and agent.options.model / .provider', async () => {
      await app.plugin(workspaceNotes)
      const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek', cwd: '/work/shop' })
      expect((await agent.step()).messages[0].content).to.equal(
        'You work in the shop.\n\nWorkspace /work/shop, session a, deepseek-chat via deepseek.')
    })

    it('are read-only views over the agent\'s own fields, the same object at every read', async () => {
      const agent = await harness.agents.create({ id: 'a', model: 'm', provider: 'p', cwd: '/w' })
      expect(agent.session).to.equal(agent.session)
      expect(agent.options).to.equal(agent.options)
      expect({ id: agent.session.id, cwd: agent.session.header.cwd }).to.deep.equal({ id: agent.id, cwd: agent.cwd })
      expect({ model: agent.options.model, provider: agent.options.provider, cwd: agent.options.cwd }).to.deep.equal({ model: 'm', provider: 'p', cwd: '/w' })
      expect(() => { (agent.options as { model: string }).model = 'x' }).to.throw(TypeError)
      expect(() => { (agent.session.header as { cwd?: string }).cwd = '/x' }).to.throw(TypeError)
      expect(agent.options.model).to.equal('m')
    })
  })

  describe('agent/session-start', () => {
    it('fires once for a created agent, with { agent, source: "startup" }, before its first step', async () => {
      await app.plugin(workflowState)
      const agent = await harness.agents.create({ id: 'a', model: 'm' })
      expect(workflowState.heard).to.deep.equal(['a:startup'])
      expect((await agent.step()).messages[0].content).to.equal('You work in the shop.\n\nWorkflow state: fresh (startup).')
      await agent.step('Again.')
      expect(workflowState.heard).to.deep.equal(['a:startup'])
    })

    it('fires with source "resume" for a restored agent, once its conversation is back', async () => {
      await app.plugin(workflowState)
      const first = await harness.agents.create({ id: 'a', model: 'm' })
      await first.step('Hello.')
      const ledger = exportLedger(first)
      await first.dispose()
      let entries = -1
      app.on('agent/session-start', ({ agent }) => { entries = agent.conversation.length })
      const restored: Agent = await harness.agents.restore(ledger)
      expect(workflowState.heard).to.deep.equal(['a:startup', 'a:resume'])
      expect(entries).to.equal(restored.conversation.length)
      expect(entries).to.be.greaterThan(0)
    })

    it('reaches a listener registered through an agent\'s scope for that agent and its sub-agents only', async () => {
      const parent = await harness.agents.create({ id: 'p', model: 'm' })
      const heard: string[] = []
      parent.ctx.on('agent/session-start', ({ agent, source }) => { heard.push(`${agent.id}:${source}`) })
      await harness.agents.create({ id: 'other', model: 'm' })
      await harness.agents.create({ id: 'child', model: 'm', parent })
      expect(heard).to.deep.equal(['child:startup'])
    })

    it('cannot make create() reject: a throwing listener is logged naming its plugin, and the listeners after it still run', async () => {
      const logs = captureLogs(app)
      const broken = await loadPlugin(harness, 'broken-refresher')
      broken.ctx.on('agent/session-start', () => { throw new Error('refresh failed') })
      const heard: string[] = []
      harness.on('agent/session-start', ({ agent }) => { heard.push(agent.id) })
      const agent = await harness.agents.create({ id: 'a', model: 'm' })
      expect(agent.disposed).to.equal(false)
      expect(heard).to.deep.equal(['a'])
      expect(logs.filter((log) => log.type === 'warn').map((log) => log.text)).to.deep.equal([
        'agent "a": agent/session-start listener of plugin "broken-refresher" failed: refresh failed (the agent is created and its session started)',
      ])
    })
  })
})
