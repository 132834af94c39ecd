import { expect } from 'chai'
import { Context } from 'cordis'
import z from 'schemastery'
import { DeploymentError, loadDeployment, type Deployment } from 'dsh-loader'
import { bootApp, captureLogs, rejection } from 'dsh-testing'
import { fixture, renderOnce, shown } from './helpers.js'

const ACTIVE = 2
const DISPOSED = 4

describe('dsh-loader: loading a deployment', () => {
  it('mounts a relative-path fixture plugin and a workspace package by name, and they work together', async () => {
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('valid.yml'), { env: {} })
    expect(deployment.entries.map((entry) => [entry.id, entry.name, entry.state])).to.deep.equal([
      ['hello', './plugins/greeter.ts', ACTIVE],
      ['prompt', 'dsh-system-prompt', ACTIVE],
      ['bye', './plugins/greeter.ts', ACTIVE],
    ])
    expect(deployment.entry('prompt')!.path).to.match(/packages\/system-prompt\/src\/index\.ts$/)
    const text = await renderOnce(host)
    expect(text).to.equal('You are Dee, a careful assistant.\n\nHello from the fixture plugin.\n\nGoodbye from the fixture plugin.')
    await deployment.dispose()
  })

  it('mounts each row as its own child plugin of the loader\'s context', async () => {
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('valid.yml'), { env: {} })
    for (const entry of deployment.entries) expect(entry.fiber.parent.fiber).to.equal(host.fiber)
    expect(new Set(deployment.entries.map((entry) => entry.fiber)).size).to.equal(3)
    await deployment.dispose()
  })

  it('leaves a disabled row unresolved and unmounted (its missing variable is not an error)', async () => {
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('valid.yml'), { env: {} })
    expect(deployment.disabled).to.deep.equal([{ index: 3, id: 'later', name: 'dsh-not-installed' }])
    expect(deployment.entry('later')).to.equal(undefined)
    await deployment.dispose()
  })

  it('unloading one entry removes only its registrations', async () => {
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('valid.yml'), { env: {} })
    await deployment.entry('hello')!.dispose()
    expect(deployment.entry('hello')!.state).to.equal(DISPOSED)
    expect(deployment.entry('bye')!.state).to.equal(ACTIVE)
    expect(await renderOnce(host)).to.equal('You are Dee, a careful assistant.\n\nGoodbye from the fixture plugin.')
    await deployment.entry('hello')!.dispose()
    await deployment.dispose()
  })

  it('deployment.dispose() unloads every entry and the services they provided', async () => {
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('valid.yml'), { env: {} })
    await deployment.dispose()
    expect(deployment.entries.map((entry) => entry.state)).to.deep.equal([DISPOSED, DISPOSED, DISPOSED])
    expect(host.get('systemPrompt')).to.equal(undefined)
    await deployment.dispose()
  })

  it('disposing the loader\'s context unloads the deployment', async () => {
    const { app, host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('valid.yml'), { env: {} })
    await host.fiber.dispose()
    expect(deployment.entries.map((entry) => entry.state)).to.deep.equal([DISPOSED, DISPOSED, DISPOSED])
    expect(app.get('systemPrompt')).to.equal(undefined)
  })
})

describe('dsh-loader: ${VAR} substitution', () => {
  it('substitutes set variables and defaults, and keeps $${ as a literal ${', async () => {
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('env.yml'), { env: { DSH_TEST_ROOT: '/srv/dsh' } })
    expect(deployment.entry('echo')!.fiber.config).to.deep.equal({
      root: '/srv/dsh/data', mode: 'safe', literal: '${NOT_A_VARIABLE}', list: ['/srv/dsh', 'plain'], count: 3,
    })
    await deployment.dispose()
  })

  it('a set variable wins over the default', async () => {
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('env.yml'), { env: { DSH_TEST_ROOT: '/r', DSH_TEST_MODE: 'strict' } })
    expect((deployment.entry('echo')!.fiber.config as { mode: string }).mode).to.equal('strict')
    await deployment.dispose()
  })

  it('reads process.env when no env is given', async () => {
    const { host } = await bootApp()
    process.env.DSH_TEST_ROOT = '/from/process'
    try {
      const deployment = await loadDeployment(host, fixture('env.yml'))
      expect((deployment.entry('echo')!.fiber.config as { root: string }).root).to.equal('/from/process/data')
      await deployment.dispose()
    } finally {
      delete process.env.DSH_TEST_ROOT
    }
  })

  it('an alias of an anchor written in a disabled row is substituted where it is used, once', async () => {
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('env-anchor.yml'), { env: { DSH_TEST_ROOT: '/srv' } })
    expect(deployment.entry('echo')!.fiber.config).to.deep.equal({ root: '/srv/data', mode: '${LITERAL}', again: '/srv/data' })
    await deployment.dispose()
  })

  it('an alias of an anchor in a disabled row that cannot be substituted fails at the alias', async () => {
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, fixture('env-anchor.yml'), { env: {} }), DeploymentError)
    expect(error.message).to.equal(
      `${shown('env-anchor.yml')}:11:13: plugins[1] (id "echo"): config.root: environment variable "DSH_TEST_ROOT" is not set (write \${DSH_TEST_ROOT:-default} to give a default)`)
  })

  it('a missing variable without default is an error naming the key, at its line and column', async () => {
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, fixture('env.yml'), { env: {} }), DeploymentError)
    expect(error).to.be.instanceOf(DeploymentError)
    expect(error.message).to.equal([
      `${shown('env.yml')}:5:13: plugins[0] (id "echo"): config.root: environment variable "DSH_TEST_ROOT" is not set (write \${DSH_TEST_ROOT:-default} to give a default)`,
      `${shown('env.yml')}:8:14: plugins[0] (id "echo"): config.list[0]: environment variable "DSH_TEST_ROOT" is not set (write \${DSH_TEST_ROOT:-default} to give a default)`,
    ].join('\n'))
    expect(error.problems[0]).to.deep.include({ line: 5, column: 13, entry: 'plugins[0] (id "echo")', id: 'echo', key: 'plugins[0].config.root' })
  })
})

describe('dsh-loader: declared sections', () => {
  const agents = z.array(z.object({ id: z.string().required(), cwd: z.string().default('.') }))

  it('validates a declared top-level section and returns it (with substitution)', async () => {
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, fixture('sections.yml'), { env: {}, sections: { agents } })
    expect(deployment.sections.agents).to.deep.equal([{ id: 'coder', cwd: '/tmp/work' }, { id: 'reviewer', cwd: '.' }])
    await deployment.dispose()
  })

  it('reports an invalid section value with its line and column', async () => {
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, fixture('sections-bad.yml'), { env: {}, sections: { agents } }), DeploymentError)
    expect(error.message).to.equal(`${shown('sections-bad.yml')}:5:9: invalid "agents": $[1].id expected string but got 7`)
    expect(error.problems[0].key).to.equal('agents[1].id')
  })

  it('an undeclared section is an unknown top-level key', async () => {
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, fixture('sections.yml'), { env: {} }))
    expect(error.message).to.equal(`${shown('sections.yml')}:3:1: unknown top-level key "agents" (allowed: plugins)`)
  })
})

describe('dsh-loader: afterLoad checks', () => {
  it('joins the problems of a check into the error, placed by entry and key, and unloads everything', async () => {
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, fixture('hook-check.yml'), {
      env: {},
      afterLoad: async (ctx, deployment) => {
        expect(deployment.entry('prompt')!.state).to.equal(ACTIVE)
        expect(ctx.get('systemPrompt')).to.not.equal(undefined)
        return [{ entry: 'prompt', key: 'config.toolOrder', message: 'toolOrder lists unregistered tool "search"; known tools: (none)' }]
      },
    }))
    expect(error.message).to.equal(`${shown('hook-check.yml')}:5:18: plugins[0] (id "prompt"): toolOrder lists unregistered tool "search"; known tools: (none)`)
    expect(host.get('systemPrompt')).to.equal(undefined)
  })

  it('a check that throws is one problem; several checks all run', async () => {
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, fixture('hook-check.yml'), {
      env: {},
      afterLoad: [
        () => { throw new TypeError('no tools service') },
        () => [{ key: 'plugins[0].name', message: 'second check' }],
      ],
    }))
    expect(error.message).to.equal([
      `${shown('hook-check.yml')}:2:11: second check`,
      `${shown('hook-check.yml')}: afterLoad check failed: TypeError: no tools service`,
    ].join('\n'))
  })

  it('a check that finds nothing lets the load succeed', async () => {
    const { host } = await bootApp()
    let ran = 0
    const deployment = await loadDeployment(host, fixture('hook-check.yml'), { env: {}, afterLoad: () => { ran++ } })
    expect(ran).to.equal(1)
    await deployment.dispose()
  })
})

// R-TOOL-4: the toolOrder check also runs once the deployment has finished loading and reports a
// logger warning before the first turn. The loader says when that is (`deployment/loaded`); the
// `systemPrompt` service does the check.
describe('dsh-loader: deployment/loaded (R-TOOL-4, the check once the deployment has loaded)', () => {
  it('emits deployment/loaded once, with the deployment, after the afterLoad checks and before it resolves', async () => {
    const { app, host } = await bootApp()
    const events: Array<[string, unknown]> = []
    app.on('deployment/loaded', (deployment) => { events.push(['loaded', deployment]) })
    const deployment = await loadDeployment(host, fixture('valid.yml'), { env: {}, afterLoad: () => { events.push(['afterLoad', undefined]) } })
    expect(events).to.deep.equal([['afterLoad', undefined], ['loaded', deployment]])
    await deployment.dispose()
  })

  it('a deployment whose toolOrder names an unregistered tool loads, and the service logs the warning before the load resolves', async () => {
    const { app, host } = await bootApp()
    const logs = captureLogs(app)
    const deployment = await loadDeployment(host, fixture('hook-check.yml'), { env: {} })
    expect(logs.filter((log) => log.type === 'warn').map((log) => `${log.name}: ${log.text}`))
      .to.deep.equal(['dsh-system-prompt: toolOrder lists unregistered tool "search"; known tools: (none)'])
    await deployment.dispose()
  })

  it('a deployment without a toolOrder problem loads without a warning', async () => {
    const { app, host } = await bootApp()
    const logs = captureLogs(app)
    const deployment = await loadDeployment(host, fixture('valid.yml'), { env: {} })
    expect(logs.filter((log) => log.type === 'warn')).to.deep.equal([])
    await deployment.dispose()
  })

  it('a failed load emits nothing: the afterLoad problem is the report', async () => {
    const { app, host } = await bootApp()
    let emitted = 0
    app.on('deployment/loaded', () => { emitted++ })
    await rejection(() => loadDeployment(host, fixture('hook-check.yml'), { env: {}, afterLoad: () => [{ message: 'bad' }] }), DeploymentError)
    expect(emitted).to.equal(0)
  })

  it('a deployment/loaded listener that throws fails the load like a check, and unloads everything', async () => {
    const { app, host } = await bootApp()
    let loaded: Deployment | undefined
    app.on('deployment/loaded', (deployment) => { loaded = deployment as Deployment; throw new TypeError('listener broke') })
    const error = await rejection(() => loadDeployment(host, fixture('valid.yml'), { env: {} }), DeploymentError)
    expect(error.message).to.equal(`${shown('valid.yml')}: a deployment/loaded listener failed: TypeError: listener broke`)
    expect(loaded!.entries.map((entry) => entry.state)).to.deep.equal([4, 4, 4])
    expect(host.get('systemPrompt')).to.equal(undefined)
  })
})

