import { expect } from 'chai'
import type { Context } from 'cordis'
import { bootApp, rejection } from 'dsh-testing'

describe('dsh-agent: loop variables', () => {
  let app: Context
  let harness: Context
  beforeEach(async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'You are {{model}} from {{provider}}, working in {{cwd}}.' }, tools: true, agents: true }))
  })

  it('fills {{model}}, {{provider}} and {{cwd}} from the agent', async () => {
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek', cwd: '/work/shop' })
    expect((await agent.step()).messages).to.deep.equal([
      { role: 'system', content: 'You are deepseek-chat from deepseek, working in /work/shop.' },
    ])
  })

  it('gives each agent its own values', async () => {
    const first = await harness.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek', cwd: '/a' })
    const second = await harness.agents.create({ id: 'b', model: 'deepseek-reasoner', provider: 'deepseek', cwd: '/b' })
    expect((await first.step()).messages[0].content).to.equal('You are deepseek-chat from deepseek, working in /a.')
    expect((await second.step()).messages[0].content).to.equal('You are deepseek-reasoner from deepseek, working in /b.')
  })

  it('rejects the step when the agent has no cwd, naming the variable and the section, and records nothing', async () => {
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek' })
    const error = await rejection(agent.step('Hello.'))
    expect(error.message).to.equal('prompt variable "{{cwd}}" has no value for this assembly (section "deployment:persona")')
    expect(agent.conversation).to.deep.equal([])
  })

  it('rejects the step when the agent has no provider', async () => {
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat', cwd: '/w' })
    expect((await rejection(agent.step())).message)
      .to.equal('prompt variable "{{provider}}" has no value for this assembly (section "deployment:persona")')
  })

  it('registers the three variables globally, without a value in an assembly that has no agent', async () => {
    expect((await app.systemPrompt.assemble()).variables).to.deep.equal({ cwd: undefined, model: undefined, provider: undefined })
  })

  it('fills the variables in runtime contexts too', async () => {
    harness.systemPrompt.context({ name: 'where', order: 1, text: 'Working directory: {{cwd}}' })
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek', cwd: '/w' })
    expect((await agent.step()).messages[1].content)
      .to.equal('Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\nWorking directory: /w')
  })
})
