import { expect } from 'chai'
import { Context } from 'cordis'
import {
  createScope, isScopeActive, kOwner, kScope, listenersFor, onScoped, ownEffect, ownerName, ownerScope, scopedListenerStats,
  scopeLabel, scopeOf, scopeStats, defineScopedEvent, ScopeErrors,
} from 'dsh-scope'
import { bootApp, loadPlugin, pluginContext, thrown, tick } from 'dsh-testing'

describe('dsh-scope: scopes', () => {
  describe('tagging', () => {
    it('tags the scope context and every context derived from it with the key', async () => {
      const { host } = await bootApp()
      const key = { id: 'a' }
      const scope = createScope(host, key)
      expect(scopeOf(scope.ctx)).to.equal(key)
      expect(scopeOf(scope.ctx.extend({}))).to.equal(key)
      expect(scopeOf(host)).to.equal(undefined)
    })

    it('returns the key it was minted for on the handle', async () => {
      const { host } = await bootApp()
      const key = { id: 'a' }
      expect(createScope(host, key).key).to.equal(key)
    })

    it('tags the context of a plugin loaded through the scope context', async () => {
      const { host } = await bootApp()
      const key = { id: 'a' }
      const scope = createScope(host, key)
      const inner = await pluginContext(scope.ctx, 'inner')
      expect(scopeOf(inner)).to.equal(key)
      expect(scopeOf(inner.extend({}))).to.equal(key)
    })

    it('tags with the public kScope property', async () => {
      const { host } = await bootApp()
      const key = {}
      const scope = createScope(host, key)
      expect((scope.ctx as unknown as Record<symbol, unknown>)[kScope]).to.equal(key)
    })

    it('leaves an untagged context untagged, and a nested scope carries its own key', async () => {
      const { app, host } = await bootApp()
      const outer = createScope(host, { id: 'outer' })
      const nested = createScope(outer.ctx, { id: 'nested' })
      expect(scopeOf(app)).to.equal(undefined)
      expect(scopeOf(nested.ctx)).to.equal(nested.key)
      expect(scopeOf(outer.ctx)).to.equal(outer.key)
    })

    it('attributes what is registered through it to its label (default "scope")', async () => {
      const { app, host } = await bootApp()
      const plain = createScope(host, {})
      const labelled = createScope(host, {}, { label: 'agent:reviewer' })
      expect(ownerName(plain.ctx)).to.equal('scope')
      expect(ownerName(labelled.ctx)).to.equal('agent:reviewer')
      expect(ownerName(labelled.ctx.extend({}))).to.equal('agent:reviewer')
      expect(ownerName(host)).to.equal('host')
      onScoped(labelled.ctx, 'ev', () => {})
      expect(listenersFor(app, 'ev', labelled.key).map((l) => l.owner)).to.deep.equal(['agent:reviewer'])
    })

    it('remembers its label per key, also after disposal', async () => {
      const { app, host } = await bootApp()
      const scope = createScope(host, {}, { label: 'agent:kept' })
      expect(scopeLabel(app, scope.key)).to.equal('agent:kept')
      await scope.dispose()
      expect(scopeLabel(app, scope.key)).to.equal('agent:kept')
      expect(scopeLabel(app, {})).to.equal(undefined)
    })

    it('exposes its owner record on the scope context and contexts derived from it', async () => {
      const { host } = await bootApp()
      const key = {}
      const scope = createScope(host, key, { label: 'agent:a' })
      const record = ownerScope(scope.ctx)
      expect(record).to.include({ key, label: 'agent:a', disposed: false })
      expect(ownerScope(scope.ctx.extend({}))).to.equal(record)
      expect((scope.ctx as unknown as Record<symbol, unknown>)[kOwner]).to.equal(record)
      expect(ownerScope(host)).to.equal(undefined)
      await scope.dispose()
      expect(record!.disposed).to.equal(true)
    })
  })

  describe('lifetime', () => {
    it('owns the Cordis effects, listeners and plugins made through its context, not the creating plugin', async () => {
      const { app, host } = await bootApp()
      const scope = createScope(host, {})
      const log: string[] = []
      scope.ctx.effect(() => () => { log.push('effect') })
      scope.ctx.on('test/plain', () => { log.push('listener called') })
      const inner = await loadPlugin(scope.ctx, 'inner')
      inner.ctx.effect(() => () => { log.push('inner plugin') })
      await scope.dispose()
      expect(log).to.have.members(['effect', 'inner plugin'])
      app.emit('test/plain')
      expect(log).to.not.include('listener called')
      expect(() => host.effect(() => () => {})).to.not.throw()
    })

    it('is disposed, with everything registered through it, when the creating plugin is disposed', async () => {
      const app = new Context()
      const creator = await loadPlugin(app, 'creator')
      const key = { id: 'a' }
      const scope = createScope(creator.ctx, key)
      const disposed: string[] = []
      scope.ctx.effect(() => () => { disposed.push('effect') })
      onScoped(scope.ctx, 'ev', () => {})
      const inner = await loadPlugin(scope.ctx, 'inner')
      inner.ctx.effect(() => () => { disposed.push('inner effect') })
      onScoped(inner.ctx, 'ev', () => {})
      expect(isScopeActive(app, key)).to.equal(true)
      expect(scopedListenerStats(app, 'ev')).to.deep.equal({ listeners: 2, buckets: 1 })

      await creator.dispose()

      expect(isScopeActive(app, key)).to.equal(false)
      expect(disposed).to.have.members(['effect', 'inner effect'])
      expect(scopedListenerStats(app, 'ev')).to.deep.equal({ listeners: 0, buckets: 0 })
    })

    it('lets the key be minted again once the creating plugin is gone', async () => {
      const app = new Context()
      const creator = await loadPlugin(app, 'creator')
      const key = {}
      createScope(creator.ctx, key)
      await creator.dispose()
      const other = await pluginContext(app, 'other')
      const again = createScope(other, key)
      expect(isScopeActive(app, key)).to.equal(true)
      expect(scopeOf(again.ctx)).to.equal(key)
    })

    it('disposes what was registered through the scope before the scope plugin started', async () => {
      const { app, host } = await bootApp()
      const key = {}
      const scope = createScope(host, key)
      // Registered synchronously, while the scope's own fiber is still loading.
      let disposed = false
      scope.ctx.effect(() => () => { disposed = true })
      await scope.dispose()
      expect(disposed).to.equal(true)
      expect(isScopeActive(app, key)).to.equal(false)
    })

    it('is disposed with the scope it was created through', async () => {
      const { app, host } = await bootApp()
      const outer = createScope(host, { id: 'outer' })
      const nested = createScope(outer.ctx, { id: 'nested' })
      let disposed = false
      ownEffect(nested.ctx, () => { disposed = true })
      await outer.dispose()
      expect(isScopeActive(app, nested.key)).to.equal(false)
      expect(disposed).to.equal(true)
    })

    it('routes once() for ordinary events to the scope: the listener goes with the scope', async () => {
      const { app, host } = await bootApp()
      const scope = createScope(host, {})
      const calls: string[] = []
      scope.ctx.once('test/plain', () => { calls.push('once') })
      const other = createScope(host, {})
      other.ctx.once('test/plain', () => { calls.push('other') })
      await other.dispose()
      app.emit('test/plain')
      app.emit('test/plain')
      expect(calls).to.deep.equal(['once'])
    })

    it('does not dispose the creating plugin when the scope is disposed', async () => {
      const { host } = await bootApp()
      let hostEffectDisposed = false
      host.effect(() => () => { hostEffectDisposed = true })
      await createScope(host, {}).dispose()
      expect(hostEffectDisposed).to.equal(false)
      expect(() => host.effect(() => () => {})).to.not.throw()
    })
  })

  describe('scopeStats()', () => {
    it('counts live scopes, what they own, scoped listeners and routed event names, and returns to zero', async () => {
      const app = new Context()
      const creator = await loadPlugin(app, 'creator')
      const stopRouting = defineScopedEvent(creator.ctx, 'test/scoped')
      expect(scopeStats(app)).to.deep.equal({ liveScopes: 0, scopeOwned: 0, listeners: 0, scopedEvents: 1 })
      const a = createScope(creator.ctx, {})
      const b = createScope(creator.ctx, {})
      ownEffect(a.ctx, () => {})
      a.ctx.on('test/scoped', () => {})
      b.ctx.on('test/scoped', () => {})
      creator.ctx.on('test/scoped', () => {})
      expect(scopeStats(app)).to.deep.equal({ liveScopes: 2, scopeOwned: 3, listeners: 3, scopedEvents: 1 })
      await a.dispose()
      expect(scopeStats(app)).to.deep.equal({ liveScopes: 1, scopeOwned: 1, listeners: 2, scopedEvents: 1 })
      stopRouting()
      await creator.dispose()
      expect(scopeStats(app)).to.deep.equal({ liveScopes: 0, scopeOwned: 0, listeners: 0, scopedEvents: 0 })
    })
  })

  describe('dispose()', () => {
    it('resolves only when every disposer, asynchronous ones included, has finished', async () => {
      const { app, host } = await bootApp()
      const key = {}
      const scope = createScope(host, key)
      const log: string[] = []
      scope.ctx.effect(() => async () => {
        await tick(5)
        log.push('slow disposer finished')
      })
      await scope.dispose()
      expect(log).to.deep.equal(['slow disposer finished'])
      expect(isScopeActive(app, key)).to.equal(false)
    })

    it('is idempotent: every call returns the same promise and disposers run once', async () => {
      const { host } = await bootApp()
      const scope = createScope(host, {})
      let runs = 0
      scope.ctx.effect(() => () => { runs++ })
      const first = scope.dispose()
      const second = scope.dispose()
      expect(second).to.equal(first)
      await first
      await scope.dispose()
      expect(runs).to.equal(1)
    })

    it('resolves when the scope is already gone with its creating plugin', async () => {
      const app = new Context()
      const creator = await loadPlugin(app, 'creator')
      const scope = createScope(creator.ctx, {})
      await creator.dispose()
      await scope.dispose()
    })

    it('refuses new registrations through a disposed scope context, naming the scope', async () => {
      const { host } = await bootApp()
      const scope = createScope(host, {}, { label: 'agent:gone' })
      await scope.dispose()
      const message = 'scope "agent:gone" has been disposed; nothing more can be registered through its context'
      expect(() => scope.ctx.effect(() => () => {})).to.throw(message)
      expect(() => onScoped(scope.ctx, 'ev', () => {})).to.throw(message)
      expect(() => ownEffect(scope.ctx.extend({}), () => {})).to.throw(message)
    })

    it('frees the key as soon as dispose() is called', async () => {
      const { app, host } = await bootApp()
      const key = {}
      const scope = createScope(host, key)
      const disposing = scope.dispose()
      expect(isScopeActive(app, key)).to.equal(false)
      expect(() => createScope(host, key)).to.not.throw()
      await disposing
    })

    it('runs the scope\'s own registrations\' teardowns before dispose() returns', async () => {
      const { host } = await bootApp()
      const scope = createScope(host, {})
      const log: string[] = []
      ownEffect(scope.ctx, () => { log.push('first') })
      ownEffect(scope.ctx, () => { log.push('second') })
      const disposing = scope.dispose()
      expect(log).to.deep.equal(['second', 'first'])
      await disposing
    })
  })

  describe('keys', () => {
    it('refuses a second live scope for the same key, naming the live one', async () => {
      const { app, host } = await bootApp()
      const key = {}
      const first = createScope(host, key, { label: 'agent:first' })
      const error = thrown(() => createScope(host, key, { label: 'agent:second' }))
      expect(error).to.be.instanceOf(Error)
      expect(error.message).to.equal('scope "agent:first" is already active for this key')
      // The live scope is untouched.
      expect(isScopeActive(app, key)).to.equal(true)
      expect(() => first.ctx.effect(() => () => {})).to.not.throw()
    })

    it('refuses a second live scope for the same key from another plugin of the same app', async () => {
      const { app, host } = await bootApp()
      const key = {}
      createScope(host, key)
      const other = await pluginContext(app, 'other')
      expect(() => createScope(other, key)).to.throw('scope "scope" is already active for this key')
    })

    it('accepts the same key again once its scope is disposed', async () => {
      const { app, host } = await bootApp()
      const key = {}
      await createScope(host, key).dispose()
      createScope(host, key)
      expect(isScopeActive(app, key)).to.equal(true)
    })

    it('keeps live scopes per app: the same key may live in two apps', async () => {
      const one = await bootApp()
      const two = await bootApp()
      const key = {}
      createScope(one.host, key)
      expect(() => createScope(two.host, key)).to.not.throw()
      expect(isScopeActive(one.app, key)).to.equal(true)
      expect(isScopeActive(two.app, key)).to.equal(true)
    })

    it('compares keys by identity: equal-looking objects are different scopes', async () => {
      const { host } = await bootApp()
      createScope(host, { id: 'a' })
      expect(() => createScope(host, { id: 'a' })).to.not.throw()
    })

    for (const [value, received] of [
      ['agent', 'string'], [42, 'number'], [null, 'null'], [undefined, 'undefined'], [Symbol('k'), 'symbol'],
    ] as const) {
      it(`refuses a key of type ${received} with a TypeError`, async () => {
        const { host } = await bootApp()
        const error = thrown(() => createScope(host, value as unknown as object))
        expect(error).to.be.instanceOf(TypeError)
        expect(error.message).to.equal(`scope key must be an object or a function (compared by identity), received ${received}`)
      })
    }

    it('accepts a function as a key, compared by identity', async () => {
      const { app, host } = await bootApp()
      const key = () => {}
      const scope = createScope(host, key)
      expect(scopeOf(scope.ctx)).to.equal(key)
      expect(isScopeActive(app, key)).to.equal(true)
    })

    it('refuses a non-object parent key with the same TypeError and creates nothing', async () => {
      const { app, host } = await bootApp()
      const key = {}
      const error = thrown(() => createScope(host, key, { parent: 'preset' as unknown as object }))
      expect(error).to.be.instanceOf(TypeError)
      expect(error.message).to.equal('scope key must be an object or a function (compared by identity), received string')
      expect(isScopeActive(app, key)).to.equal(false)
    })

    it('builds its messages in ScopeErrors', () => {
      expect(ScopeErrors.scopeAlreadyActive('x').message).to.equal('scope "x" is already active for this key')
      expect(ScopeErrors.parentAlreadySet('x').message).to.equal('scope "x" already has a parent; a parent link is set once')
      expect(ScopeErrors.parentCycle('x').message).to.equal('scope "x" cannot take this parent: the parent chain would form a cycle')
      expect(ScopeErrors.invalidScopeKey(null)).to.be.instanceOf(TypeError)
      expect(ScopeErrors.invalidScopeKey(null).message).to.equal('scope key must be an object or a function (compared by identity), received null')
      expect(ScopeErrors.invalidScopeKey(7).message).to.equal('scope key must be an object or a function (compared by identity), received number')
      expect(ScopeErrors.scopeDisposed('x').message).to.equal('scope "x" has been disposed; nothing more can be registered through its context')
    })
  })
})
