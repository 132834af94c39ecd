import { expect } from 'chai'
import type { Context } from 'cordis'
import { boot, captureAgentDebug, host, rejection, tool } from './helpers.js'

describe('dsh-agent: per-section debug logging', () => {
  let app: Context
  let harness: Context
  let lines: string[]
  beforeEach(async () => {
    app = await boot({ persona: 'Работай аккуратно, {{model}}.' })
    harness = (await host(app)).ctx
    harness.tools.register(tool('read', { guidance: 'Read before you edit.' }))
    harness.systemPrompt.section({ name: 'empty', order: 50, text: '' })
    lines = captureAgentDebug(app)
  })

  it('logs section=<name> bytes=<n> for every rendered section, then the total, on each step', async () => {
    const agent = await harness.agents.create({ id: 'coder', model: 'deepseek-chat' })
    const request = await agent.step('Hello.')
    expect(lines).to.deep.equal([
      'agent=coder section=harness:identity bytes=56',
      // 33 characters, 16 of them Cyrillic (two bytes each in UTF-8): 49 bytes.
      'agent=coder section=deployment:persona bytes=49',
      'agent=coder section=tool:read bytes=21',
      'agent=coder total sections=3 bytes=130',
    ])
    expect(Buffer.byteLength(request.messages[0].content!, 'utf8')).to.equal(130)
    await agent.step()
    expect(lines).to.have.length(8)
    expect(lines.slice(4)).to.deep.equal(lines.slice(0, 4))
  })

  it('logs at debug level through the Cordis logger: an exporter at the default (info) level receives nothing', async () => {
    const atInfo: string[] = []
    app.logger.exporter({ export(message) { if (message.name === 'dsh-agent') atInfo.push(String(message.args[0])) } })
    const levels: number[] = []
    app.logger.exporter({ levels: { 'dsh-agent': 3 }, export(message) { if (message.name === 'dsh-agent') levels.push(message.level) } })
    const agent = await harness.agents.create({ id: 'coder', model: 'deepseek-chat' })
    await agent.step()
    expect(atInfo).to.deep.equal([])
    expect(levels).to.deep.equal([3, 3, 3, 3])
  })

  it('logs "total sections=0 bytes=0" for an empty render', async () => {
    app = await boot({ includeHarnessIdentity: false })
    harness = (await host(app)).ctx
    lines = captureAgentDebug(app)
    const agent = await harness.agents.create({ id: 'quiet', model: 'deepseek-chat' })
    await agent.step()
    expect(lines).to.deep.equal(['agent=quiet total sections=0 bytes=0'])
  })

  it('logs nothing for a step that fails', async () => {
    const agent = await harness.agents.create({ id: 'coder', model: 'deepseek-chat' })
    harness.systemPrompt.section({ name: 'git', order: 10, text: 'Branch {{branch}}.' })
    await rejection(agent.step())
    expect(lines).to.deep.equal([])
  })
})
