import { expect } from 'chai'
import { Context } from 'cordis'
import { createScope, onScoped, ownEffect } from 'dsh-scope'
import { captureLogs, loadPlugin } from 'dsh-testing'

/** Something that owns what is made through `ctx`: a plugin, or a scope (generic effects go to its child fiber). */
interface Owner {
  app: Context
  ctx: Context
  dispose(): Promise<void>
}

/** A fresh app and an owner in it, of each kind. */
const OWNERS: Record<string, () => Promise<Owner>> = {
  'in a plugin': async () => {
    const app = new Context()
    return { app, ...await loadPlugin(app, 'mixer') }
  },
  'in a scope': async () => {
    const app = new Context()
    const scope = createScope((await loadPlugin(app, 'host')).ctx, {})
    return { app, ctx: scope.ctx, dispose: () => scope.dispose() }
  },
}

/** The labels of the effects `ctx`'s fiber made after it held `before` of them. */
function effectLabels(ctx: Context, before: number): string[] {
  return ctx.fiber.getEffects().slice(before).map((effect) => effect.label)
}

/** `x…` is a dsh registration (ownEffect), `e…` an ordinary Cordis effect (`ctx.effect`). */
function make(ctx: Context, step: string, log: string[]): void {
  if (step.startsWith('x')) ownEffect(ctx, () => { log.push(step) })
  else ctx.effect(() => () => { log.push(step) })
}

/** Makes `steps` in order through a fresh owner, disposes it, and returns the order they were torn down in. */
async function teardownOrder(newOwner: () => Promise<Owner>, steps: readonly string[]): Promise<string[]> {
  const owner = await newOwner()
  const log: string[] = []
  for (const step of steps) make(owner.ctx, step, log)
  await owner.dispose()
  return log
}

/**
 * Registers `x1`, an ordinary `test/plain` listener, then `x2`, through a fresh owner and disposes it;
 * each teardown emits `test/plain` and records whether the listener was still there.
 */
async function listenerBetween(newOwner: () => Promise<Owner>): Promise<string[]> {
  const { app, ctx, dispose } = await newOwner()
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
  await dispose()
  return log
}

describe('dsh-scope: teardown mirrors setup', () => {
  for (const [where, newOwner] of Object.entries(OWNERS)) {
    describe(where, () => {
      it('tears down a dsh registration, a ctx.effect and another registration last-in first-out', async () => {
        expect(await teardownOrder(newOwner, ['x1', 'e', 'x2'])).to.deep.equal(['x2', 'e', 'x1'])
      })

      it('keeps reverse order over longer interleavings, consecutive registrations included', async () => {
        expect(await teardownOrder(newOwner, ['x1', 'x2', 'e1', 'x3', 'e2', 'e3', 'x4', 'x5', 'e4']))
          .to.deep.equal(['e4', 'x5', 'x4', 'e3', 'e2', 'x3', 'e1', 'x2', 'x1'])
      })

      it('keeps reverse order when an ordinary effect came before any registration', async () => {
        expect(await teardownOrder(newOwner, ['e1', 'x1', 'e2', 'x2'])).to.deep.equal(['x2', 'e2', 'x1', 'e1'])
        expect(await teardownOrder(newOwner, ['x0', 'e1', 'x1', 'x2', 'e2', 'e3', 'x3', 'e4']))
          .to.deep.equal(['e4', 'x3', 'e3', 'e2', 'x2', 'x1', 'e1', 'x0'])
      })

      it('treats an ordinary listener as an effect in between: there for later registrations, gone for earlier ones', async () => {
        expect(await listenerBetween(newOwner)).to.deep.equal(['x2 heard', 'x1 alone'])
      })
    })
  }

  describe('in a plugin: buckets are Cordis effects', () => {
    it('counts the effect of any Cordis call (a listener, a child plugin) as a boundary between buckets', async () => {
      const plugin = await OWNERS['in a plugin']()
      const before = plugin.ctx.fiber.getEffects().length
      ownEffect(plugin.ctx, () => {})
      plugin.ctx.on('test/plain', () => {})
      ownEffect(plugin.ctx, () => {})
      await loadPlugin(plugin.ctx, 'child')
      ownEffect(plugin.ctx, () => {})
      const labels = effectLabels(plugin.ctx, before)
      expect(labels).to.deep.equal(['dsh registrations', 'ctx.on("test/plain")', 'dsh registrations', 'ctx.plugin()', 'dsh registrations'])
    })

    it('shares one Cordis effect among consecutive registrations and opens another after an ordinary effect', async () => {
      const plugin = await OWNERS['in a plugin']()
      const before = plugin.ctx.fiber.getEffects().length
      for (let i = 0; i < 50; i++) ownEffect(plugin.ctx, () => {})
      plugin.ctx.effect(() => () => {})
      for (let i = 0; i < 50; i++) ownEffect(plugin.ctx, () => {})
      const labels = effectLabels(plugin.ctx, before)
      expect(labels).to.deep.equal(['dsh registrations', 'anonymous', 'dsh registrations'])
    })

    it('lets go of a bucket effect once every registration in it is disposed and it is no longer the newest', async () => {
      const plugin = await OWNERS['in a plugin']()
      const before = plugin.ctx.fiber.getEffects().length
      for (let round = 0; round < 20; round++) {
        const dispose = ownEffect(plugin.ctx, () => {})
        plugin.ctx.effect(() => () => {})
        dispose()
      }
      const labels = effectLabels(plugin.ctx, before)
      expect(labels.filter((label) => label === 'dsh registrations')).to.have.length(0)
      expect(labels).to.have.length(20)
    })

    it('keeps the newest bucket when it empties, so register-dispose cycles make no new effect', async () => {
      const plugin = await OWNERS['in a plugin']()
      ownEffect(plugin.ctx, () => {})()
      const before = plugin.ctx.fiber.getEffects().length
      for (let i = 0; i < 20; i++) ownEffect(plugin.ctx, () => {})()
      expect(plugin.ctx.fiber.getEffects().length).to.equal(before)
    })

    it('joins the newest bucket again once every effect made after it is gone', async () => {
      const plugin = await OWNERS['in a plugin']()
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
      const plugin = await OWNERS['in a plugin']()
      const log: string[] = []
      for (let i = 0; i < 40; i++) plugin.ctx.effect(() => () => {})
      for (const step of ['x1', 'e', 'x2']) make(plugin.ctx, step, log)
      await plugin.dispose()
      expect(log).to.deep.equal(['x2', 'e', 'x1'])
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

  describe('in a scope: its child fiber\'s effects', () => {
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
