import { expect } from 'chai'
import AgentsDefault, { Agents } from 'dsh-agent'
import { parentOf, scopeChain } from 'dsh-scope'
import { bootApp } from 'dsh-testing'

describe('dsh-agent: SPEC conformance', () => {
  it('§2 default-exports the service class, so a deployment row can name the package alone', () => {
    expect(AgentsDefault).to.equal(Agents)
  })

  it('§10 an agent given both a preset and a parent agent takes the preset\'s scope as its parent scope', async () => {
    const { app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, agents: true })
    const preset = host.agents.definePreset('reviewer')
    preset.ctx.systemPrompt.section({ name: 'preset:rules', order: 10, text: 'Review only.' })
    const lead = await host.agents.create({ id: 'lead', model: 'deepseek-chat' })
    lead.ctx.systemPrompt.section({ name: 'lead:plan', order: 20, text: 'The lead\'s plan.' })
    const helper = await host.agents.create({ id: 'helper', model: 'deepseek-chat', preset: 'reviewer', parent: lead })
    expect(parentOf(app, helper)).to.equal(preset.key)
    expect(scopeChain(app, helper)).to.deep.equal([helper, preset.key])
    expect(helper.parent).to.equal(lead)
    expect((await helper.step()).messages).to.deep.equal([{ role: 'system', content: 'Review only.' }])
  })

  it('§10 a sub-agent without a preset takes its parent agent\'s scope as its parent scope', async () => {
    const { app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, agents: true })
    const lead = await host.agents.create({ id: 'lead', model: 'deepseek-chat' })
    const helper = await host.agents.create({ id: 'helper', model: 'deepseek-chat', parent: 'lead' })
    expect(scopeChain(app, helper)).to.deep.equal([helper, lead])
  })
})
