import { expect } from 'chai'
import type { Context } from 'cordis'
import { renderPrompt } from 'dsh-system-prompt'
import { bootApp, loadPlugin, tool } from 'dsh-testing'
import { IDENTITY, stats } from './helpers.js'

describe('dsh-agent: disposal', () => {
  let app: Context
  let harness: Context
  beforeEach(async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { persona: 'You are the shop\'s coding agent.' }, tools: true, agents: true, host: { name: 'harness' } }))
    harness.tools.register(tool('read', { guidance: 'Read before you edit.' }))
  })

  it('disposing an agent removes its sections, contexts, tools, variables, restrictions, listeners and layers', async () => {
    const baseline = stats(app)
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat' })
    agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'You review {{ticket}}.' })
    agent.ctx.systemPrompt.context({ name: 'ticket', order: 1, text: 'Ticket: {{ticket}}' })
    agent.ctx.systemPrompt.variable('ticket', () => 'SHOP-42')
    agent.ctx.systemPrompt.suppressRuntimeContext()
    agent.ctx.tools.register(tool('notes', { guidance: { text: 'Keep notes short.', order: 3000 } }))
    agent.ctx.tools.restrict({ deny: ['read'] })
    agent.ctx.on('system-prompt/assemble', (assembly, _context, next) => next(assembly))
    expect((await agent.step()).messages[0].content).to.equal(`${IDENTITY}\n\nYou review SHOP-42.\n\nKeep notes short.`)
    expect(app.systemPrompt.stats().listeners).to.equal(baseline.prompt.listeners + 1)
    expect(app.tools.stats().scopeLayers).to.equal(1)

    await agent.dispose()
    expect(stats(app)).to.deep.equal(baseline)
    expect(agent.disposed).to.equal(true)
    expect(app.agents.get('a')).to.equal(undefined)
    const leftover = await app.systemPrompt.assemble({ scope: agent.key })
    expect(renderPrompt(leftover)).to.equal(`${IDENTITY}\n\nYou are the shop's coding agent.\n\nRead before you edit.`)
    expect(leftover.tools.map((t) => t.name)).to.deep.equal(['read'])
  })

  it('agents and presets cost no Cordis plugin of their own unless something needs one', async () => {
    const plugins = () => [...app.registry.values()].reduce((count, runtime) => count + runtime.fibers.length, 0)
    const before = plugins()
    const preset = harness.agents.definePreset('light')
    const agents = await Promise.all(Array.from({ length: 5 }, (_, i) => harness.agents.create({ id: `a${i}`, model: 'm', preset: 'light' })))
    agents[0].ctx.systemPrompt.section({ name: 'note', order: 1, text: 'Agent note.' })
    expect(plugins()).to.equal(before)
    await Promise.all(agents.map((agent) => agent.dispose()))
    await preset.dispose()
    expect(harness.agents.list()).to.deep.equal([])
    expect(harness.agents.presetIds()).to.deep.equal([])
  })

  it('dispose() is idempotent, and the id can be used again afterwards', async () => {
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat' })
    await Promise.all([agent.dispose(), agent.dispose()])
    await agent.dispose()
    const again = await harness.agents.create({ id: 'a', model: 'deepseek-chat' })
    expect(app.agents.get('a')).to.equal(again)
    expect(again.conversation).to.deep.equal([])
  })

  it('disposing the plugin that created agents and presets disposes them all', async () => {
    const baseline = stats(app)
    const team = await loadPlugin(app, 'team', ['systemPrompt', 'tools', 'agents'])
    const preset = team.ctx.agents.definePreset('reviewer')
    preset.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'You review.' })
    const first = await team.ctx.agents.create({ id: 'first', model: 'deepseek-chat', preset: 'reviewer' })
    const second = await team.ctx.agents.create({ id: 'second', model: 'deepseek-chat' })
    second.ctx.tools.register(tool('notes'))
    await team.dispose()
    expect([first.disposed, second.disposed]).to.deep.equal([true, true])
    expect(stats(app)).to.deep.equal(baseline)
  })

  it('disposing a preset while an agent uses it falls back to the deployment text, appended later', async () => {
    const preset = harness.agents.definePreset('reviewer')
    preset.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'You review changes.' })
    preset.ctx.tools.restrict({ deny: ['read'] })
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat', preset: 'reviewer' })
    const before = await agent.step('Review it.')
    expect(before).to.not.have.property('tools')
    await preset.dispose()
    const after = await agent.step('And now?')
    expect(after.messages).to.deep.equal([
      { role: 'system', content: `${IDENTITY}\n\nYou review changes.` },
      { role: 'user', content: 'Review it.' },
      { role: 'system', content: `${IDENTITY}\n\nYou are the shop's coding agent.\n\nRead before you edit.` },
      { role: 'user', content: 'And now?' },
    ])
    expect(after.tools!.map((t) => t.function.name)).to.deep.equal(['read'])
    expect(agent.disposed).to.equal(false)
    expect(app.agents.preset('reviewer')).to.equal(undefined)
    expect(app.agents.presetIds()).to.deep.equal([])
  })

  it('a preset defined through a plugin goes with that plugin; an agent created elsewhere keeps running on the deployment text', async () => {
    const presets = await loadPlugin(app, 'presets', ['systemPrompt', 'tools', 'agents'])
    presets.ctx.agents.definePreset('reviewer').ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'You review changes.' })
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat', preset: 'reviewer' })
    await presets.dispose()
    expect((await agent.step()).messages).to.deep.equal([
      { role: 'system', content: `${IDENTITY}\n\nYou are the shop's coding agent.\n\nRead before you edit.` },
    ])
  })
})
