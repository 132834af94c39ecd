import { expect } from 'chai'
import type { Context } from 'cordis'
import { bootApp, captureLogs, rejection, tool, type CapturedLog } from 'dsh-testing'

describe('dsh-agent: per-section debug logging', () => {
  let app: Context
  let harness: Context
  let logs: CapturedLog[]
  /** The debug lines of the `dsh-agent` logger captured so far, as their text. */
  const lines = () => logs.filter((log) => log.name === 'dsh-agent' && log.type === 'debug').map((log) => log.text)
  beforeEach(async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { persona: 'Работай аккуратно, {{model}}.' }, tools: true, agents: true }))
    harness.tools.register(tool('read', { guidance: 'Read before you edit.' }))
    harness.systemPrompt.section({ name: 'empty', order: 50, text: '' })
    logs = captureLogs(app, 3)
  })

  it('logs section=<name> bytes=<n> for every rendered section, then the total, on each step', async () => {
    const agent = await harness.agents.create({ id: 'coder', model: 'deepseek-chat' })
    const request = await agent.step('Hello.')
    expect(lines()).to.deep.equal([
      'agent=coder section=harness:identity bytes=56',
      // 33 characters, 16 of them Cyrillic (two bytes each in UTF-8): 49 bytes.
      'agent=coder section=deployment:persona bytes=49',
      'agent=coder section=tool:read bytes=21',
      'agent=coder total sections=3 bytes=130',
    ])
    expect(Buffer.byteLength(request.messages[0].content as string, 'utf8')).to.equal(130)
    await agent.step()
    expect(lines()).to.have.length(8)
    expect(lines().slice(4)).to.deep.equal(lines().slice(0, 4))
  })

  it('logs at debug level through the Cordis logger: an exporter at the default (info) level receives nothing', async () => {
    const atInfo = captureLogs(app)
    const atDebug = captureLogs(app, 3)
    const agent = await harness.agents.create({ id: 'coder', model: 'deepseek-chat' })
    await agent.step()
    expect(atInfo.filter((log) => log.name === 'dsh-agent')).to.deep.equal([])
    expect(atDebug.filter((log) => log.name === 'dsh-agent').map((log) => log.level)).to.deep.equal([3, 3, 3, 3])
  })

  it('logs "total sections=0 bytes=0" for an empty render', async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, agents: true }))
    logs = captureLogs(app, 3)
    const agent = await harness.agents.create({ id: 'quiet', model: 'deepseek-chat' })
    await agent.step()
    expect(lines()).to.deep.equal(['agent=quiet total sections=0 bytes=0'])
  })

  it('logs nothing for a step that fails', async () => {
    const agent = await harness.agents.create({ id: 'coder', model: 'deepseek-chat' })
    harness.systemPrompt.section({ name: 'git', order: 10, text: 'Branch {{branch}}.' })
    await rejection(agent.step())
    expect(lines()).to.deep.equal([])
  })

  it('writes the lines for an exporter that takes debug lines from this logger only', async () => {
    const forAgents = captureLogs(app)
    app.logger.exporter({ levels: { 'dsh-agent': 3 }, export: (message) => forAgents.push({ type: message.type, name: message.name, level: message.level, text: '', line: '' }) })
    const agent = await harness.agents.create({ id: 'coder', model: 'deepseek-chat' })
    await agent.step()
    expect(forAgents.filter((log) => log.name === 'dsh-agent')).to.have.length(4)
  })

  it('does not write to the logger at all when no exporter takes debug lines (a step pays nothing for them)', async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: {}, tools: true, agents: true }))
    const quietApp = app
    quietApp.logger.exporter({ levels: { default: 3, 'dsh-agent': 2 }, export: () => {} })
    // Cordis 4.0.0-rc.10 numbers every message a logger is asked to write, taken or not.
    const written = () => (quietApp.logger as unknown as { _snMessage: number })._snMessage
    const agent = await harness.agents.create({ id: 'coder', model: 'deepseek-chat' })
    const before = written()
    await agent.step()
    expect(written()).to.equal(before)
  })
})
