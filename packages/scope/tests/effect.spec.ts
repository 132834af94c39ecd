import { expect } from 'chai'
import { Context } from 'cordis'
import { createScope, ownEffect } from 'dsh-scope'
import { bootApp, loadPlugin } from 'dsh-testing'

describe('dsh-scope: ownEffect()', () => {
  it('runs the teardown when the owning plugin is disposed', async () => {
    const app = new Context()
    const plugin = await loadPlugin(app, 'owner')
    let runs = 0
    ownEffect(plugin.ctx, () => { runs++ })
    expect(runs).to.equal(0)
    await plugin.dispose()
    expect(runs).to.equal(1)
  })

  it('runs the teardowns of one fiber last-in first-out', async () => {
    const app = new Context()
    const plugin = await loadPlugin(app, 'owner')
    const log: number[] = []
    for (let i = 1; i <= 4; i++) ownEffect(plugin.ctx, () => { log.push(i) })
    await plugin.dispose()
    expect(log).to.deep.equal([4, 3, 2, 1])
  })

  it('belongs to the scope when made through a scope context', async () => {
    const { host } = await bootApp()
    const scope = createScope(host, {})
    let hostRuns = 0
    let scopeRuns = 0
    ownEffect(host, () => { hostRuns++ })
    ownEffect(scope.ctx, () => { scopeRuns++ })
    await scope.dispose()
    expect(scopeRuns).to.equal(1)
    expect(hostRuns).to.equal(0)
  })

  it('returns a disposer that runs the teardown once, and never again with the fiber', async () => {
    const app = new Context()
    const plugin = await loadPlugin(app, 'owner')
    let runs = 0
    const dispose = ownEffect(plugin.ctx, () => { runs++ })
    dispose()
    dispose()
    expect(runs).to.equal(1)
    await plugin.dispose()
    expect(runs).to.equal(1)
  })

  it('makes one Cordis effect per fiber, however many teardowns it owns', async () => {
    const { host } = await bootApp()
    const before = host.fiber.getEffects().length
    for (let i = 0; i < 100; i++) ownEffect(host, () => {})
    expect(host.fiber.getEffects().length).to.equal(before + 1)
  })

  it('starts a fresh owner after the fiber restarted', async () => {
    const app = new Context()
    let ctx!: Context
    let runs = 0
    const fiber = app.plugin({ name: 'restartable', apply(c: Context) { ctx = c } })
    await fiber
    ownEffect(ctx, () => { runs++ })
    await (fiber as unknown as { restart(): Promise<void> }).restart()
    expect(runs).to.equal(1)
    ownEffect(ctx, () => { runs++ })
    await (fiber as unknown as { dispose(): Promise<void> }).dispose()
    expect(runs).to.equal(2)
  })

  it('refuses an inactive context with Cordis\'s own error', async () => {
    const app = new Context()
    const plugin = await loadPlugin(app, 'gone')
    await plugin.dispose()
    expect(() => ownEffect(plugin.ctx, () => {})).to.throw('cannot create effect on inactive context')
  })
})
