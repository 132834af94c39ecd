import { expect } from 'chai'
import { DeploymentError, loadDeployment, type Deployment } from 'dsh-loader'
import { bootApp, captureLogs, rejection } from 'dsh-testing'
import { fixture, shown } from './helpers.js'

// SPEC §7: the toolOrder check also runs once the deployment has finished loading and reports a
// logger warning before the first turn. The loader says when that is (`deployment/loaded`); the
// `systemPrompt` service does the check.
describe('dsh-loader: SPEC conformance (§7, the check once the deployment has loaded)', () => {
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
