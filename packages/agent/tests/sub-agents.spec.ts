import { expect } from 'chai'
import type { Context } from 'cordis'
import { parentOf, scopeChain } from 'dsh-scope'
import { bootApp, tool } from 'dsh-testing'
import { stats } from './helpers.js'

describe('dsh-agent: sub-agents', () => {
  let app: Context
  let harness: Context
  beforeEach(async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'You work in the shop.' }, tools: true, agents: true, host: { name: 'harness' } }))
  })

  it('a sub-agent sees its parent agent\'s registrations; a sibling agent does not', async () => {
    const lead = await harness.agents.create({ id: 'lead', model: 'deepseek-chat' })
    lead.ctx.systemPrompt.section({ name: 'lead:plan', order: 10, text: 'The plan: fix the cart, then add a test.' })
    lead.ctx.tools.register(tool('notes'))
    const helper = await harness.agents.create({ id: 'helper', model: 'deepseek-chat', parent: lead })
    const sibling = await harness.agents.create({ id: 'sibling', model: 'deepseek-chat' })
    const fromHelper = await helper.step()
    expect(fromHelper.messages).to.deep.equal([{ role: 'system', content: 'You work in the shop.\n\nThe plan: fix the cart, then add a test.' }])
    expect(fromHelper.tools!.map((t) => t.function.name)).to.deep.equal(['notes'])
    expect(await sibling.step()).to.deep.equal({ model: 'deepseek-chat', messages: [{ role: 'system', content: 'You work in the shop.' }] })
  })

  it('a parent agent does not see what its sub-agent registers', async () => {
    const lead = await harness.agents.create({ id: 'lead', model: 'deepseek-chat' })
    const helper = await harness.agents.create({ id: 'helper', model: 'deepseek-chat', parent: 'lead' })
    helper.ctx.systemPrompt.section({ name: 'helper:task', order: 10, text: 'Write the test.' })
    expect(helper.parent).to.equal(lead)
    expect((await lead.step()).messages).to.deep.equal([{ role: 'system', content: 'You work in the shop.' }])
    expect((await helper.step()).messages).to.deep.equal([{ role: 'system', content: 'You work in the shop.\n\nWrite the test.' }])
  })

  it('a sub-agent created through its parent\'s ctx is disposed with the parent', async () => {
    const baseline = stats(app)
    const lead = await harness.agents.create({ id: 'lead', model: 'deepseek-chat' })
    const helper = await lead.ctx.agents.create({ id: 'helper', model: 'deepseek-chat', parent: lead })
    helper.ctx.systemPrompt.section({ name: 'helper:task', order: 10, text: 'Write the test.' })
    await lead.dispose()
    expect(helper.disposed).to.equal(true)
    expect(stats(app)).to.deep.equal(baseline)
  })

  it('a sub-agent created elsewhere outlives its parent and falls back to the wider text', async () => {
    const lead = await harness.agents.create({ id: 'lead', model: 'deepseek-chat' })
    lead.ctx.systemPrompt.section({ name: 'lead:plan', order: 10, text: 'The plan.' })
    const helper = await harness.agents.create({ id: 'helper', model: 'deepseek-chat', parent: lead })
    await helper.step()
    await lead.dispose()
    expect(helper.disposed).to.equal(false)
    expect((await helper.step()).messages).to.deep.equal([
      { role: 'system', content: 'You work in the shop.\n\nThe plan.' },
      { role: 'system', content: 'You work in the shop.' },
    ])
  })
})

describe('dsh-agent: a sub-agent\'s parent scope (R-CONV-1)', () => {
  it('an agent given both a preset and a parent agent takes the preset\'s scope as its parent scope', async () => {
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

  it('a sub-agent without a preset takes its parent agent\'s scope as its parent scope', async () => {
    const { app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, agents: true })
    const lead = await host.agents.create({ id: 'lead', model: 'deepseek-chat' })
    const helper = await host.agents.create({ id: 'helper', model: 'deepseek-chat', parent: 'lead' })
    expect(scopeChain(app, helper)).to.deep.equal([helper, lead])
  })
})
