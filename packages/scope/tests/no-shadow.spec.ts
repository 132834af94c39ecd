import { expect } from 'chai'
import { Context, Service } from 'cordis'
import { markNoShadow } from 'dsh-scope'
import { loadPlugin } from 'dsh-testing'

declare module 'cordis' {
  interface Context {
    shadowed: Probe
    unshadowed: Probe
  }
}

/** A service that reports the context a call sees; `unshadowed` is marked, `shadowed` keeps Cordis's default tracker. */
class Probe extends Service {
  declare ctx: Context
  constructor(ctx: Context, name: 'shadowed' | 'unshadowed') {
    super(ctx, name)
    if (name === 'unshadowed') markNoShadow(this)
  }

  caller(): Context {
    return this.ctx
  }
}

async function app() {
  const root = new Context()
  await root.plugin({ name: 'shadowed', apply: (ctx: Context) => { new Probe(ctx, 'shadowed') } })
  await root.plugin({ name: 'unshadowed', apply: (ctx: Context) => { new Probe(ctx, 'unshadowed') } })
  return loadPlugin(root, 'caller', ['shadowed', 'unshadowed'])
}

describe('dsh-scope: markNoShadow()', () => {
  it('sets noShadow on the service\'s Cordis tracker and drops its associate name', async () => {
    const caller = await app()
    const tracker = (service: object) => (service as Record<symbol, Record<string, unknown>>)[Service.tracker]
    expect(tracker(caller.ctx.shadowed)).to.deep.include({ associate: 'shadowed', property: 'ctx' })
    expect(tracker(caller.ctx.unshadowed)).to.deep.equal({ property: 'ctx', noShadow: true })
  })

  it('makes Cordis hand out the method itself instead of a new proxy per read', async () => {
    const caller = await app()
    expect(caller.ctx.shadowed.caller).to.not.equal(Probe.prototype.caller)
    expect(caller.ctx.unshadowed.caller).to.equal(Probe.prototype.caller)
  })

  it('still lets a method see the calling context as this.ctx', async () => {
    const caller = await app()
    expect(caller.ctx.unshadowed.caller().fiber).to.equal(caller.ctx.fiber)
    expect(caller.ctx.shadowed.caller().fiber).to.equal(caller.ctx.fiber)
  })

  it('leaves a value without a Cordis tracker alone', () => {
    const plain = { noShadow: undefined }
    markNoShadow(plain)
    expect(plain).to.deep.equal({ noShadow: undefined })
  })
})
