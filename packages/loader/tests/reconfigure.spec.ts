import { expect } from 'chai'
import type { Context } from 'cordis'
import type { PromptChangeEvent } from 'dsh-system-prompt'
import { DeploymentError, loadDeployment, type Deployment } from 'dsh-loader'
import { bootApp, rejection } from 'dsh-testing'
import { fixture, renderOnce, shown } from './helpers.js'

const ACTIVE = 2
const DISPOSED = 4

/** Loads valid.yml (rows hello, prompt, bye; a disabled row later) and records every prompt change from then on. */
async function loaded(): Promise<{ host: Context; deployment: Deployment; changes: string[] }> {
  const { host } = await bootApp()
  const deployment = await loadDeployment(host, fixture('valid.yml'), { env: {} })
  const changes: string[] = []
  host.on('system-prompt/change', (event: PromptChangeEvent) => { changes.push(`${event.action} ${event.kind} ${event.name ?? ''}`.trim()) })
  return { host, deployment, changes }
}


describe('dsh-loader: reconfiguring one row of a loaded deployment', () => {
  it('replaces a row\'s config: that row is applied again, every other row keeps its fiber and registrations', async () => {
    const { host, deployment, changes } = await loaded()
    const fibers = deployment.entries.map((entry) => entry.fiber)
    const service = host.get('systemPrompt')
    const entry = await deployment.reconfigure('hello', { section: 'greeting', text: 'Hi again.', order: 100 })
    expect(entry).to.equal(deployment.entry('hello'))
    expect(entry.config).to.deep.equal({ section: 'greeting', text: 'Hi again.', order: 100 })
    expect(deployment.entries.map((item) => item.fiber)).to.deep.equal(fibers)
    expect(deployment.entries.map((item) => item.state)).to.deep.equal([ACTIVE, ACTIVE, ACTIVE])
    expect(host.get('systemPrompt')!.config === service!.config, 'the same service instance').to.equal(true)
    expect(changes).to.deep.equal(['dispose section greeting', 'register section greeting'])
    expect(await renderOnce(host)).to.equal('You are Dee, a careful assistant.\n\nHi again.\n\nGoodbye from the fixture plugin.')
    await deployment.dispose()
  })

  it('a new persona of the systemPrompt row applies in place: the service and the rows that inject it do not restart', async () => {
    const { host, deployment, changes } = await loaded()
    const service = host.get('systemPrompt')
    await deployment.reconfigure('prompt', { includeHarnessIdentity: false, persona: 'You are Kay.' })
    expect(host.get('systemPrompt')!.config === service!.config, 'the same service instance').to.equal(true)
    expect(service!.config.persona).to.equal('You are Kay.')
    expect(deployment.entry('prompt')!.fiber.config.persona).to.equal('You are Kay.')
    expect(changes).to.deep.equal(['dispose section deployment:persona', 'register section deployment:persona'])
    expect(await renderOnce(host)).to.equal('You are Kay.\n\nHello from the fixture plugin.\n\nGoodbye from the fixture plugin.')
    await deployment.dispose()
  })

  it('any other key of the systemPrompt row restarts the service, as Cordis restarts a plugin, and the rows that inject it come back', async () => {
    const { host, deployment } = await loaded()
    const service = host.get('systemPrompt')
    await deployment.reconfigure('prompt', { includeHarnessIdentity: true, persona: 'You are Dee, a careful assistant.' })
    expect(host.get('systemPrompt')!.config === service!.config, 'the same service instance').to.equal(false)
    expect(deployment.entries.map((item) => item.state)).to.deep.equal([ACTIVE, ACTIVE, ACTIVE])
    expect(await renderOnce(host)).to.match(/^You are an AI agent powered by the DeepSeek Harness SDK\.\n\nYou are Dee/)
    await deployment.dispose()
  })

  it('refuses an invalid config with the key, and leaves the old config in force', async () => {
    const { host, deployment, changes } = await loaded()
    const error = await rejection(deployment.reconfigure('hello', { section: 'greeting', text: 7, colour: 'red' }))
    expect(DeploymentError.is(error)).to.equal(true)
    expect((error as DeploymentError).problems).to.deep.equal([
      { file: shown('valid.yml'), entry: 'plugins[0] (id "hello")', id: 'hello', key: 'plugins[0].config.colour', code: 'LOADER_UNKNOWN_CONFIG_KEY', message: 'unknown config key "colour" (allowed: order, section, text)' },
      { file: shown('valid.yml'), entry: 'plugins[0] (id "hello")', id: 'hello', key: 'plugins[0].config.text', code: 'LOADER_INVALID_CONFIG', message: 'invalid config: $.text expected string but got 7' },
    ])
    expect(changes).to.deep.equal([])
    expect(deployment.entry('hello')!.config).to.deep.equal({ section: 'greeting', text: 'Hello from the fixture plugin.', order: 100 })
    expect(await renderOnce(host)).to.contain('Hello from the fixture plugin.')
    await deployment.dispose()
  })

  it('an unknown id is LOADER_UNKNOWN_ROW, listing the mounted rows (a disabled row is said to be one)', async () => {
    const { deployment } = await loaded()
    const unknown = await rejection(deployment.reconfigure('nope', {})) as DeploymentError
    expect(unknown.problems).to.deep.equal([{
      file: shown('valid.yml'), code: 'LOADER_UNKNOWN_ROW', message: 'no mounted row has the id "nope"; mounted rows: "hello", "prompt", "bye"',
    }])
    const disabled = await rejection(deployment.removeRow('later')) as DeploymentError
    expect(disabled.problems[0].message).to.equal('no mounted row has the id "later" (that row is disabled: it was never mounted); mounted rows: "hello", "prompt", "bye"')
    await deployment.dispose()
  })

  it('a failing apply restores the previous config and names the row', async () => {
    const { host, deployment } = await loaded()
    // An order that is not finite makes the greeter's section() throw inside apply.
    const error = await rejection(deployment.reconfigure('bye', { section: 'farewell', text: 'x', order: Number.POSITIVE_INFINITY })) as DeploymentError
    expect(error.problems.map((p) => [p.entry, p.code])).to.deep.equal([['plugins[2] (id "bye")', 'PROMPT_NON_FINITE_ORDER']])
    expect(deployment.entry('bye')!.state).to.equal(ACTIVE)
    expect(deployment.entry('bye')!.config).to.deep.equal({ section: 'farewell', text: 'Goodbye from the fixture plugin.', order: 200 })
    expect(await renderOnce(host)).to.contain('Goodbye from the fixture plugin.')
    await deployment.dispose()
  })
})

describe('dsh-loader: adding and removing a row of a loaded deployment', () => {
  it('adds a row after the others, resolved from the deployment\'s folder like a file row', async () => {
    const { host, deployment, changes } = await loaded()
    const fibers = deployment.entries.map((entry) => entry.fiber)
    const entry = await deployment.addRow({ name: './plugins/greeter.ts', id: 'extra', config: { section: 'extra', text: 'One more.', order: 300 } })
    expect(entry!.index).to.equal(4)
    expect(entry!.state).to.equal(ACTIVE)
    expect(deployment.entries.map((item) => item.id)).to.deep.equal(['hello', 'prompt', 'bye', 'extra'])
    expect(deployment.entries.slice(0, 3).map((item) => item.fiber)).to.deep.equal(fibers)
    expect(deployment.entry('extra')).to.equal(entry)
    expect(changes).to.deep.equal(['register section extra'])
    expect(await renderOnce(host)).to.match(/Goodbye from the fixture plugin\.\n\nOne more\.$/)
    await deployment.dispose()
    expect(entry!.state).to.equal(DISPOSED)
  })

  it('refuses a row that cannot be resolved, has a bad shape, reuses an id or has an invalid config, mounting nothing', async () => {
    const { deployment } = await loaded()
    const unknown = await rejection(deployment.addRow({ name: 'dsh-not-installed-anywhere' })) as DeploymentError
    expect(unknown.problems.map((p) => [p.entry, p.key, p.code])).to.deep.equal([['plugins[4] (id "dsh-not-installed-anywhere")', 'plugins[4].name', 'LOADER_UNKNOWN_PACKAGE']])
    const shape = await rejection(deployment.addRow({ name: 3, colour: 'red' } as never)) as DeploymentError
    expect(shape.problems.map((p) => [p.key, p.code])).to.deep.equal([['plugins[4].colour', 'LOADER_UNKNOWN_ROW_KEY'], ['plugins[4].name', 'LOADER_WRONG_TYPE']])
    const duplicate = await rejection(deployment.addRow({ name: './plugins/greeter.ts', id: 'bye' })) as DeploymentError
    expect(duplicate.problems.map((p) => [p.key, p.code])).to.deep.equal([['plugins[4].id', 'LOADER_DUPLICATE_ID']])
    const invalid = await rejection(deployment.addRow({ name: './plugins/greeter.ts', id: 'x', config: { section: 'x' } })) as DeploymentError
    expect(invalid.problems.map((p) => [p.key, p.code])).to.deep.equal([['plugins[4].config.text', 'LOADER_INVALID_CONFIG']])
    expect(deployment.entries.map((item) => item.id)).to.deep.equal(['hello', 'prompt', 'bye'])
    await deployment.dispose()
  })

  it('removes a row: its registrations go, the others stay', async () => {
    const { host, deployment, changes } = await loaded()
    const bye = deployment.entry('bye')!
    await deployment.removeRow('hello')
    expect(deployment.entries.map((item) => item.id)).to.deep.equal(['prompt', 'bye'])
    expect(deployment.entry('hello')).to.equal(undefined)
    expect(deployment.entry('bye')).to.equal(bye)
    expect(changes).to.deep.equal(['dispose section greeting'])
    expect(await renderOnce(host)).to.equal('You are Dee, a careful assistant.\n\nGoodbye from the fixture plugin.')
    await deployment.dispose()
  })

  it('removing the row that provides a service reports the rows it stopped, and the removal stands', async () => {
    const { deployment } = await loaded()
    const error = await rejection(deployment.removeRow('prompt')) as DeploymentError
    expect(error.problems.map((p) => [p.entry, p.code])).to.deep.equal([
      ['plugins[0] (id "hello")', 'LOADER_ROW_DISTURBED'], ['plugins[2] (id "bye")', 'LOADER_ROW_DISTURBED'],
    ])
    expect(error.problems[0].message).to.equal('stopped working after removing plugins[1] (id "prompt"): service "systemPrompt" is never provided (this plugin injects it; no active plugin provides it)')
    expect(deployment.entries.map((item) => item.id)).to.deep.equal(['hello', 'bye'])
    await deployment.dispose()
  })

  it('an unloaded deployment refuses changes (LOADER_DEPLOYMENT_DISPOSED)', async () => {
    const { deployment } = await loaded()
    await deployment.dispose()
    const error = await rejection(deployment.reconfigure('hello', {})) as DeploymentError
    expect(error.problems.map((p) => p.code)).to.deep.equal(['LOADER_DEPLOYMENT_DISPOSED'])
  })
})

describe('dsh-loader: the messages of the row changes', () => {
  it('each carries its code and details, the words unchanged', async () => {
    const { LoaderErrors } = await import('dsh-loader')
    expect([
      LoaderErrors.unknownRow('x', ['a', 'b'], false), LoaderErrors.rowNotObject('a list'), LoaderErrors.deploymentDisposed(),
      LoaderErrors.rowDisturbed('removing plugins[0] (id "p")', 'service "tools" is never provided\n(more)'),
    ]).to.deep.equal([
      { code: 'LOADER_UNKNOWN_ROW', details: { id: 'x', known: ['a', 'b'], disabled: false }, message: 'no mounted row has the id "x"; mounted rows: "a", "b"' },
      { code: 'LOADER_ROW_NOT_OBJECT', details: { found: 'a list' }, message: 'a row to add must be an object like { name: "<package or ./path>", config: {...} }, found a list' },
      { code: 'LOADER_DEPLOYMENT_DISPOSED', details: {}, message: 'the deployment has been unloaded: its rows can no longer be changed' },
      { code: 'LOADER_ROW_DISTURBED', details: { change: 'removing plugins[0] (id "p")', reason: 'service "tools" is never provided (more)' },
        message: 'stopped working after removing plugins[0] (id "p"): service "tools" is never provided (more)' },
    ])
  })
})
