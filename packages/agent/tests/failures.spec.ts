import { expect } from 'chai'
import type { Context } from 'cordis'
import type { Agent } from 'dsh-agent'
import { bootApp, rejection } from 'dsh-testing'
import { briefAgent } from './helpers.js'

describe('dsh-agent: a failing step records nothing', () => {
  let harness: Context
  let agent: Agent
  beforeEach(async () => {
    ({ host: harness, agent } = await briefAgent())
    await agent.step('One.')
    agent.record({ role: 'assistant', content: 'Sure.' })
  })

  /** Expects `step` to reject with `message` (or an error named `name`) and the record to be unchanged. */
  async function failsCleanly(step: Promise<unknown>, check: (error: Error) => void): Promise<void> {
    const before = agent.conversation.slice()
    check(await rejection(step))
    expect(agent.conversation).to.deep.equal(before)
  }

  it('an unknown variable rejects with the strict-rendering message; the input of that step is not recorded', async () => {
    const dispose = harness.systemPrompt.section({ name: 'git', order: 10, text: 'Commit on {{branch}}.' })
    await failsCleanly(agent.step('Two.'), (error) => expect(error.message).to.equal(
      'unknown prompt variable "{{branch}}" in section "git"; registered variables: cwd, model, provider',
    ))
    dispose()
    expect((await agent.step('Three.')).messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'One.' },
      { role: 'assistant', content: 'Sure.' },
      { role: 'user', content: 'Three.' },
    ])
  })

  it('a malformed reference in a context rejects the step', async () => {
    harness.systemPrompt.context({ name: 'sandbox:policy', order: 110, text: 'Sandbox: {{ mode }}' })
    await failsCleanly(agent.step('Two.'), (error) => expect(error.message).to.equal(
      'malformed prompt variable reference "{{ mode }}" in context "sandbox:policy" (variable names match /^[a-z][a-z0-9_]*$/)',
    ))
  })

  it('a throwing text provider rejects the step, naming the plugin', async () => {
    harness.systemPrompt.section({ name: 'flaky', order: 10, text: () => { throw new Error('disk unavailable') } })
    await failsCleanly(agent.step('Two.'), (error) => expect(error.message).to.equal(
      'prompt section "flaky" text provider of plugin "host" failed: disk unavailable',
    ))
  })

  it('two complete sections reject the step', async () => {
    harness.systemPrompt.section({ name: 'b:all', order: 1, complete: true, text: 'B' })
    agent.ctx.systemPrompt.section({ name: 'a:all', order: 2, complete: true, text: 'A' })
    await failsCleanly(agent.step(), (error) => expect(error.message).to.equal(
      'multiple complete prompt sections are active: "b:all", "a:all"',
    ))
  })

  it('an already aborted signal rejects with an AbortError', async () => {
    await failsCleanly(agent.step('Two.', { signal: AbortSignal.abort() }), (error) => expect(error.name).to.equal('AbortError'))
  })

  it('a signal aborted while the assembly runs rejects with an AbortError', async () => {
    const controller = new AbortController()
    harness.on('system-prompt/assemble', async (assembly, _context, next) => {
      controller.abort()
      return next(assembly)
    })
    await failsCleanly(agent.step('Two.', { signal: controller.signal }), (error) => expect(error.name).to.equal('AbortError'))
  })

  it('a step whose agent is disposed while it assembles rejects and records nothing', async () => {
    harness.on('system-prompt/assemble', async (assembly, _context, next) => {
      await agent.dispose()
      return next(assembly)
    })
    await failsCleanly(agent.step('Two.'), (error) => expect(error.message).to.equal('agent "a" has been disposed'))
  })

  it('a disposed agent refuses step() and record()', async () => {
    await agent.dispose()
    await failsCleanly(agent.step('Two.'), (error) => expect(error.message).to.equal('agent "a" has been disposed'))
    expect(() => agent.record({ role: 'assistant', content: 'x' })).to.throw('agent "a" has been disposed')
  })
})

describe('dsh-agent: a step that never settles', () => {
  it('rejects with AGENT_STEP_TIMEOUT naming the plugin of the listener, records nothing, and ends even with a timer alive', async () => {
    const { host } = await bootApp({ systemPrompt: { persona: 'P.' }, agents: true })
    const keepAlive = setInterval(() => {}, 1000)
    try {
      await host.plugin({ name: 'stuck', inject: ['systemPrompt'], apply: (ctx: Context) => { ctx.on('system-prompt/assemble', () => new Promise<never>(() => {})) } })
      const agent = await host.agents.create({ id: 'main', model: 'm' })
      const error = await agent.stepDetailed('Hi.', { timeout: 50 }).catch((e: unknown) => e)
      expect(error).to.include({ code: 'AGENT_STEP_TIMEOUT' })
      expect((error as { details: unknown }).details).to.deep.equal({ id: 'main', ms: 50, listeners: ['stuck'] })
      expect((error as Error).message).to.equal('agent "main" step(): the assembly did not finish within 50 ms; the system-prompt/assemble listener of "stuck" has not returned (raise the bound with the step\'s timeout option or the agents service\'s stepTimeout)')
      expect(agent.conversation).to.deep.equal([])
      expect(await agent.stepDetailed('Hi.', { timeout: -1 }).catch((e: { code?: string }) => e.code)).to.equal('AGENT_INVALID_STEP_TIMEOUT')
    } finally {
      clearInterval(keepAlive)
    }
  })

  it('names the listener the assembly waits on, not every listener, and does so under a caller\'s signal too', async () => {
    const { host } = await bootApp({ systemPrompt: { persona: 'P.' }, agents: true })
    await host.plugin({ name: 'passing', inject: ['systemPrompt'], apply: (ctx: Context) => { ctx.on('system-prompt/assemble', (a, _c, next) => next(a)) } })
    await host.plugin({ name: 'hanging', inject: ['systemPrompt'], apply: (ctx: Context) => { ctx.on('system-prompt/assemble', () => new Promise<never>(() => {})) } })
    await host.plugin({ name: 'after', inject: ['systemPrompt'], apply: (ctx: Context) => { ctx.on('system-prompt/assemble', (a, _c, next) => next(a)) } })
    const agent = await host.agents.create({ id: 'main', model: 'm' })
    const plain = await agent.stepDetailed('Hi.', { timeout: 40 }).catch((e: { details?: unknown }) => e.details)
    expect(plain).to.deep.equal({ id: 'main', ms: 40, listeners: ['hanging'] })
    const caller = new AbortController()
    const signalled = await agent.stepDetailed('Hi.', { timeout: 40, signal: caller.signal }).catch((e: { details?: unknown }) => e.details)
    expect(signalled).to.deep.equal({ id: 'main', ms: 40, listeners: ['hanging'] })
    expect(agent.conversation).to.deep.equal([])
  })

  it('the agents service bounds every step by default (stepTimeout), and 0 means no bound', async () => {
    const { host } = await bootApp({ systemPrompt: { persona: 'P.' }, agents: { stepTimeout: 30 } })
    let release!: () => void
    await host.plugin({ name: 'slow', inject: ['systemPrompt'], apply: (ctx: Context) => { ctx.on('system-prompt/assemble', async (a, _c, next) => { await new Promise<void>((r) => { release = r }); return next(a) }) } })
    const agent = await host.agents.create({ id: 'main', model: 'm' })
    expect(agent.stepTimeout).to.equal(30)
    expect(await agent.step('Hi.').catch((e: { code?: string }) => e.code)).to.equal('AGENT_STEP_TIMEOUT')
    const unbounded = agent.step('Hi.', { timeout: 0 })
    setTimeout(() => release(), 60)
    expect((await unbounded).messages.at(-1)).to.deep.equal({ role: 'user', content: 'Hi.' })
  })
})
