import { expect } from 'chai'
import { bootApp, captureLogs, loadPlugin, ownSections, thrown } from 'dsh-testing'
import { BARE } from './helpers.js'

describe('dsh-system-prompt: a throwing system-prompt/change listener', () => {
  it('vetoes a registration, as the published package does: PROMPT_CHANGE_VETOED reaches the registering plugin and nothing stands (issue 24)', async () => {
    const { app, host } = await bootApp({ systemPrompt: BARE })
    const logs = captureLogs(app)
    const seen: string[] = []
    host.on('system-prompt/change', (event) => {
      seen.push(`${event.action} ${event.name}`)
      if (event.action === 'register' && event.name === 'secret') throw new Error('no secrets in the prompt')
    })
    const error = thrown(() => host.systemPrompt.section({ name: 'secret', order: 1, text: 'The key is 42.' }))
    expect([(error as { code?: string }).code, error.message]).to.deep.equal([
      'PROMPT_CHANGE_VETOED', 'a system-prompt/change listener refused the registration of section "secret" by plugin "host": no secrets in the prompt',
    ])
    expect(ownSections(await app.systemPrompt.assemble())).to.deep.equal([])
    // Taken back unreported, and free again: a later registration of the name stands.
    host.systemPrompt.section({ name: 'rules', order: 1, text: 'Be brief.' })
    expect(ownSections(await app.systemPrompt.assemble())).to.deep.equal(['rules'])
    expect(seen).to.deep.equal(['register secret', 'register rules'])
    expect(logs).to.deep.equal([])
  })

  it('cannot veto a disposal: the entry goes, and the failure is a warning', async () => {
    const { app, host } = await bootApp({ systemPrompt: BARE })
    const logs = captureLogs(app)
    const dispose = host.systemPrompt.section({ name: 'rules', order: 1, text: 'Be brief.' })
    host.on('system-prompt/change', () => { throw new Error('listener broke') })
    dispose()
    expect(ownSections(await app.systemPrompt.assemble())).to.deep.equal([])
    expect(logs.map((log) => log.line)).to.deep.equal([
      'warn dsh-system-prompt: a system-prompt/change listener failed on dispose of section "rules": listener broke',
    ])
  })

  it('cannot stop a disposal: disposing the plugin removes every entry it made', async () => {
    const { app, host } = await bootApp({ systemPrompt: BARE })
    captureLogs(app)
    const before = app.systemPrompt.stats().entries
    const plugin = await loadPlugin(app, 'team', ['systemPrompt'])
    plugin.ctx.systemPrompt.variable('team', () => 'core')
    plugin.ctx.systemPrompt.section({ name: 'rules', order: 1, text: 'Team {{team}}.' })
    host.on('system-prompt/change', () => { throw new Error('listener broke') })
    expect(app.systemPrompt.stats().entries).to.equal(before + 2)
    await plugin.dispose()
    expect(app.systemPrompt.stats().entries).to.equal(before)
  })
})

describe('dsh-tools: a throwing tools/change listener', () => {
  it('cannot veto a tool registration; the failure is a warning', async () => {
    const { app, host } = await bootApp({ systemPrompt: BARE, tools: true })
    const logs = captureLogs(app)
    host.on('tools/change', () => { throw new Error('listener broke') })
    const dispose = host.tools.register({ name: 'ls', description: 'List.', parameters: { type: 'object', properties: {} } })
    expect((await app.systemPrompt.assemble()).tools.map((tool) => tool.name)).to.deep.equal(['ls'])
    dispose()
    expect((await app.systemPrompt.assemble()).tools).to.deep.equal([])
    expect(logs.map((log) => log.line)).to.deep.equal([
      'warn dsh-tools: a tools/change listener failed on register of tool "ls": listener broke',
      'warn dsh-tools: a tools/change listener failed on dispose of tool "ls": listener broke',
    ])
  })
})
