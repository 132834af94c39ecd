import { expect } from 'chai'
import { Context } from 'cordis'
import { createScope, onScoped, ownEffect } from 'dsh-scope'
import { captureLogs, loadPlugin } from 'dsh-testing'

/** A plugin that makes, in this order, the steps it is given and records the order they are torn down in. */
async function pluginMaking(steps: readonly string[]) {
  const app = new Context()
  const log: string[] = []
  const plugin = await loadPlugin(app, 'mixer')
  for (const step of steps) make(plugin.ctx, step, log)
  return { app, plugin, log }
}

/** `x…` is a dsh registration (ownEffect), `e…` an ordinary Cordis effect. */
function make(ctx: Context, step: string, log: string[]): void {
  if (step.startsWith('x')) ownEffect(ctx, () => { log.push(step) })
  else ctx.effect(() => () => { log.push(step) })
}

/**
 * Registers `x1`, an ordinary `test/plain` listener, then `x2`, through `ctx`; each teardown emits
 * `test/plain` on `app` and records whether the listener was still there.
 */
function listenerBetween(app: Context, ctx: Context): string[] {
  const log: string[] = []
  let heard = false
  const probe = (name: string) => () => {
    heard = false
    app.emit('test/plain')
    log.push(`${name} ${heard ? 'heard' : 'alone'}`)
  }
  ownEffect(ctx, probe('x1'))
  ctx.on('test/plain', () => { heard = true })
  ownEffect(ctx, probe('x2'))
  return log
}

describe('dsh-scope: teardown mirrors setup', () => {
  describe('in a plugin', () => {
    it('tears down a dsh registration, a ctx.effect and another registration last-in first-out', async () => {
      const { plugin, log } = await pluginMaking(['x1', 'e', 'x2'])
      await plugin.dispose()
      expect(log).to.deep.equal(['x2', 'e', 'x1'])
    })

    it('keeps reverse order over longer interleavings, consecutive registrations included', async () => {
      const { plugin, log } = await pluginMaking(['x1', 'x2', 'e1', 'x3', 'e2', 'e3', 'x4', 'x5', 'e4'])
      await plugin.dispose()
      expect(log).to.deep.equal(['e4', 'x5', 'x4', 'e3', 'e2', 'x3', 'e1', 'x2', 'x1'])
    })

    it('treats an ordinary listener as an effect in between: there for later registrations, gone for earlier ones', async () => {
      const app = new Context()
      const plugin = await loadPlugin(app, 'mixer')
      const log = listenerBetween(app, plugin.ctx)
      await plugin.dispose()
      expect(log).to.deep.equal(['x2 heard', 'x1 alone'])
    })

    it('counts the effect of any Cordis call (a listener, a child plugin) as a boundary between buckets', async () => {
      const app = new Context()
      const plugin = await loadPlugin(app, 'mixer')
      const before = plugin.ctx.fiber.getEffects().length
      ownEffect(plugin.ctx, () => {})
      plugin.ctx.on('test/plain', () => {})
      ownEffect(plugin.ctx, () => {})
      await loadPlugin(plugin.ctx, 'child')
      ownEffect(plugin.ctx, () => {})
      const labels = plugin.ctx.fiber.getEffects().slice(before).map((effect) => effect.label)
      expect(labels).to.deep.equal(['dsh registrations', 'ctx.on("test/plain")', 'dsh registrations', 'ctx.plugin()', 'dsh registrations'])
    })

    it('shares one Cordis effect among consecutive registrations and opens another after an ordinary effect', async () => {
      const app = new Context()
      const plugin = await loadPlugin(app, 'mixer')
      const before = plugin.ctx.fiber.getEffects().length
      for (let i = 0; i < 50; i++) ownEffect(plugin.ctx, () => {})
      plugin.ctx.effect(() => () => {})
      for (let i = 0; i < 50; i++) ownEffect(plugin.ctx, () => {})
      const labels = plugin.ctx.fiber.getEffects().slice(before).map((effect) => effect.label)
      expect(labels).to.deep.equal(['dsh registrations', 'anonymous', 'dsh registrations'])
    })

    it('lets go of a bucket effect once every registration in it is disposed and it is no longer the newest', async () => {
      const app = new Context()
      const plugin = await loadPlugin(app, 'mixer')
      const before = plugin.ctx.fiber.getEffects().length
      for (let round = 0; round < 20; round++) {
        const dispose = ownEffect(plugin.ctx, () => {})
        plugin.ctx.effect(() => () => {})
        dispose()
      }
      const labels = plugin.ctx.fiber.getEffects().slice(before).map((effect) => effect.label)
      expect(labels.filter((label) => label === 'dsh registrations')).to.have.length(0)
      expect(labels).to.have.length(20)
    })

    it('keeps the newest bucket when it empties, so register-dispose cycles make no new effect', async () => {
      const app = new Context()
      const plugin = await loadPlugin(app, 'mixer')
      ownEffect(plugin.ctx, () => {})()
      const before = plugin.ctx.fiber.getEffects().length
      for (let i = 0; i < 20; i++) ownEffect(plugin.ctx, () => {})()
      expect(plugin.ctx.fiber.getEffects().length).to.equal(before)
    })

    it('joins the newest bucket again once every effect made after it is gone', async () => {
      const app = new Context()
      const plugin = await loadPlugin(app, 'mixer')
      const log: string[] = []
      const before = plugin.ctx.fiber.getEffects().length
      make(plugin.ctx, 'x1', log)
      plugin.ctx.effect(() => () => {})()
      make(plugin.ctx, 'x2', log)
      expect(plugin.ctx.fiber.getEffects().length).to.equal(before + 1)
      await plugin.dispose()
      expect(log).to.deep.equal(['x2', 'x1'])
    })

    it('keeps the order when a fiber holds too many effects to look through (a new bucket then)', async () => {
      const app = new Context()
      const plugin = await loadPlugin(app, 'mixer')
      const log: string[] = []
      for (let i = 0; i < 40; i++) plugin.ctx.effect(() => () => {})
      make(plugin.ctx, 'x1', log)
      const dispose = plugin.ctx.effect(() => () => { log.push('e') })
      make(plugin.ctx, 'x2', log)
      await plugin.dispose()
      expect(log).to.deep.equal(['x2', 'e', 'x1'])
      void dispose
    })

    it('after a restart, registers into a fresh bucket, not the one torn down', async () => {
      const app = new Context()
      let ctx!: Context
      const log: string[] = []
      const fiber = app.plugin({ name: 'restartable', apply(c: Context) { ctx = c } }) as unknown as {
        restart(): Promise<void>; dispose(): Promise<void>
      }
      await fiber
      ownEffect(ctx, () => { log.push('before restart') })
      await fiber.restart()
      ownEffect(ctx, () => { log.push('after restart') })
      await fiber.dispose()
      expect(log).to.deep.equal(['before restart', 'after restart'])
    })
  })

  describe('in a scope', () => {
    it('tears down a dsh registration, a scope.ctx.effect and another registration last-in first-out', async () => {
      const app = new Context()
      const host = await loadPlugin(app, 'host')
      const scope = createScope(host.ctx, {})
      const log: string[] = []
      for (const step of ['x1', 'e', 'x2']) make(scope.ctx, step, log)
      await scope.dispose()
      expect(log).to.deep.equal(['x2', 'e', 'x1'])
    })

    it('keeps reverse order over longer interleavings, effects made before the first registration included', async () => {
      const app = new Context()
      const host = await loadPlugin(app, 'host')
      const scope = createScope(host.ctx, {})
      const log: string[] = []
      const steps = ['x0', 'e1', 'x1', 'x2', 'e2', 'e3', 'x3', 'e4']
      for (const step of steps) make(scope.ctx, step, log)
      await scope.dispose()
      expect(log).to.deep.equal(['e4', 'x3', 'e3', 'e2', 'x2', 'x1', 'e1', 'x0'])
    })

    it('keeps reverse order when the scope made an ordinary effect before any registration', async () => {
      const app = new Context()
      const host = await loadPlugin(app, 'host')
      const scope = createScope(host.ctx, {})
      const log: string[] = []
      for (const step of ['e1', 'x1', 'e2', 'x2']) make(scope.ctx, step, log)
      await scope.dispose()
      expect(log).to.deep.equal(['x2', 'e2', 'x1', 'e1'])
    })

    it('treats an ordinary listener routed to the scope as an effect in between', async () => {
      const app = new Context()
      const host = await loadPlugin(app, 'host')
      const scope = createScope(host.ctx, {})
      const log = listenerBetween(app, scope.ctx)
      await scope.dispose()
      expect(log).to.deep.equal(['x2 heard', 'x1 alone'])
    })

    it('mirrors setup when the scope ends with its creating plugin', async () => {
      const app = new Context()
      const host = await loadPlugin(app, 'host')
      const log: string[] = []
      make(host.ctx, 'x0', log)
      const scope = createScope(host.ctx, {})
      for (const step of ['x1', 'e', 'x2']) make(scope.ctx, step, log)
      make(host.ctx, 'x3', log)
      await host.dispose()
      expect(log).to.deep.equal(['x3', 'x2', 'e', 'x1', 'x0'])
    })

    it('logs a failing ordinary effect torn down between registrations, as Cordis does, and still resolves', async () => {
      const app = new Context()
      const logs = captureLogs(app)
      const host = await loadPlugin(app, 'host')
      const scope = createScope(host.ctx, {}, { label: 'agent:a' })
      const log: string[] = []
      make(scope.ctx, 'x1', log)
      scope.ctx.effect(() => () => { throw new Error('effect broke') })
      make(scope.ctx, 'x2', log)
      await scope.dispose()
      expect(log).to.deep.equal(['x2', 'x1'])
      expect(logs.filter((entry) => entry.type === 'error').map((entry) => entry.text)).to.have.length(1)
      expect(logs.find((entry) => entry.type === 'error')!.text).to.include('effect broke')
    })

    it('still tears down its dsh registrations before dispose() returns', async () => {
      const app = new Context()
      const host = await loadPlugin(app, 'host')
      const scope = createScope(host.ctx, {})
      const log: string[] = []
      for (const step of ['x1', 'e', 'x2']) make(scope.ctx, step, log)
      onScoped(scope.ctx, 'test/scoped', () => {})
      const done = scope.dispose()
      expect(log).to.deep.equal(['x2', 'e', 'x1'])
      await done
    })
  })
})
