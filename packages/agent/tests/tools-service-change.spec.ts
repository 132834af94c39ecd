import { expect } from 'chai'
import ToolRegistry from 'dsh-tools'
import { bootApp, loadPlugin, tool } from 'dsh-testing'

describe('dsh-agent: a tools service that goes and another that comes', () => {
  it('a step after the tools service was replaced names the owners the new one reports', async () => {
    const { app, host } = await bootApp({ systemPrompt: {}, tools: true, agents: true, host: { inject: ['systemPrompt', 'agents'] } })
    const agent = await host.agents.create({ id: 'a', model: 'claude-sonnet-4' })
    const first = await loadPlugin(host, 'first-owner', ['tools'])
    first.ctx.tools.register(tool('grep'))
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    await app.registry.delete(ToolRegistry)
    await app.plugin(ToolRegistry)
    const second = await loadPlugin(host, 'second-owner', ['tools'])
    second.ctx.tools.register(tool('grep', { description: 'Search the files, the new way.' }))
    const { report } = await agent.stepDetailed('Again.', { format: 'anthropic' })
    expect(report.breaks[0]).to.deep.include({ section: 'grep', kind: 'tool', owner: 'second-owner' })
  })
})
