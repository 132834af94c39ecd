import { expect } from 'chai'
import { Context } from 'cordis'
import fc from 'fast-check'
import {
  createScope, defineScopedEvent, listenersFor, onScoped, scopeChain, scopeIndex, scopedListenerStats, type ScopedListener,
} from 'dsh-scope'
import { bootApp, loadPlugin, pluginContext } from 'dsh-testing'

const EVENT = 'test/scoped'

/** Calls every admitted listener (they return their own id) and lists the ids in dispatch order. */
function ids(listeners: ScopedListener[]): string[] {
  return listeners.map((listener) => listener.callback())
}

/**
 * An app with the scoped event defined, a host plugin and four scopes:
 * `a`, its child `b`, b's child `c`, and `s`, a sibling of `a`.
 */
async function fixture() {
  const { app, host } = await bootApp()
  defineScopedEvent(host, EVENT)
  const a = createScope(host, { id: 'a' }, { label: 'a' })
  const b = createScope(host, { id: 'b' }, { label: 'b', parent: a.key })
  const c = createScope(host, { id: 'c' }, { label: 'c', parent: b.key })
  const s = createScope(host, { id: 's' }, { label: 's' })
  return { app, host, a, b, c, s }
}

describe('dsh-scope: scoped events', () => {
  describe('routing ctx.on() with defineScopedEvent', () => {
    it('files a plain ctx.on() of the defined name in the scoped index, not in Cordis', async () => {
      const { app, a } = await fixture()
      const calls: string[] = []
      a.ctx.on(EVENT, () => { calls.push('a'); return 'a' })
      expect(ids(listenersFor(app, EVENT, a.key))).to.deep.equal(['a'])
      expect(calls).to.deep.equal(['a'])
      // Cordis's own dispatch does not know the listener.
      app.emit(EVENT)
      expect(calls).to.deep.equal(['a'])
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 1, buckets: 1 })
    })

    it('files an untagged ctx.on() in the global bucket', async () => {
      const { app, host } = await fixture()
      host.on(EVENT, () => 'host')
      expect(ids(listenersFor(app, EVENT, undefined))).to.deep.equal(['host'])
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 1, buckets: 1 })
    })

    it('leaves other event names to Cordis', async () => {
      const { app, a } = await fixture()
      const calls: string[] = []
      a.ctx.on('test/plain', () => { calls.push('plain') })
      app.emit('test/plain')
      expect(calls).to.deep.equal(['plain'])
      expect(listenersFor(app, 'test/plain', a.key)).to.deep.equal([])
      expect(scopedListenerStats(app, 'test/plain')).to.deep.equal({ listeners: 0, buckets: 0 })
    })

    it('returns a disposer from ctx.on() that removes the scoped listener', async () => {
      const { app, a } = await fixture()
      const dispose = a.ctx.on(EVENT, () => 'a')
      dispose()
      expect(listenersFor(app, EVENT, a.key)).to.deep.equal([])
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 0, buckets: 0 })
    })

    it('stops routing when its disposer is called: ctx.on() is plain Cordis again', async () => {
      const { app, host } = await bootApp()
      const stop = defineScopedEvent(host, EVENT)
      const scope = createScope(host, {})
      stop()
      const calls: string[] = []
      scope.ctx.on(EVENT, () => { calls.push('after') })
      app.emit(EVENT)
      expect(calls).to.deep.equal(['after'])
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 0, buckets: 0 })
    })

    it('stops routing when the defining plugin is disposed, and keeps listeners filed before', async () => {
      const app = new Context()
      const definer = await loadPlugin(app, 'definer')
      defineScopedEvent(definer.ctx, EVENT)
      const user = await pluginContext(app, 'user')
      user.on(EVENT, () => 'before')
      await definer.dispose()
      user.on(EVENT, () => 'after')
      expect(ids(listenersFor(app, EVENT, undefined))).to.deep.equal(['before'])
    })

    it('does not route a name it was not given', async () => {
      const { app, host } = await bootApp()
      defineScopedEvent(host, EVENT)
      const calls: string[] = []
      host.on('test/plain', () => { calls.push('plain') })
      app.emit('test/plain')
      expect(calls).to.deep.equal(['plain'])
    })

    it('records the owning plugin, the context and the scope of each listener', async () => {
      const { app, a } = await fixture()
      const inner = await pluginContext(a.ctx, 'inner-plugin')
      inner.on(EVENT, () => 'inner')
      const [listener] = listenersFor(app, EVENT, a.key)
      expect(listener.owner).to.equal('inner-plugin')
      expect(listener.scope).to.equal(a.key)
      expect(listener.ctx.fiber).to.equal(inner.fiber)
    })
  })

  describe('listenersFor() admission', () => {
    async function populated() {
      const f = await fixture()
      f.host.on(EVENT, () => 'untagged')
      f.a.ctx.on(EVENT, () => 'a')
      f.b.ctx.on(EVENT, () => 'b')
      f.c.ctx.on(EVENT, () => 'c')
      f.s.ctx.on(EVENT, () => 's')
      f.b.ctx.on(EVENT, () => 'b:global', { global: true })
      return f
    }

    it('admits untagged and global listeners only to a dispatch without a scope', async () => {
      const { app } = await populated()
      expect(ids(listenersFor(app, EVENT, undefined))).to.deep.equal(['untagged', 'b:global'])
    })

    it('admits a scope\'s listeners to that scope and its descendants, in registration order', async () => {
      const { app, a, b, c } = await populated()
      expect(ids(listenersFor(app, EVENT, a.key))).to.deep.equal(['untagged', 'a', 'b:global'])
      expect(ids(listenersFor(app, EVENT, b.key))).to.deep.equal(['untagged', 'a', 'b', 'b:global'])
      expect(ids(listenersFor(app, EVENT, c.key))).to.deep.equal(['untagged', 'a', 'b', 'c', 'b:global'])
    })

    it('never admits a sibling scope\'s listeners', async () => {
      const { app, a, s } = await populated()
      expect(ids(listenersFor(app, EVENT, s.key))).to.deep.equal(['untagged', 's', 'b:global'])
      expect(ids(listenersFor(app, EVENT, a.key))).to.not.include('s')
    })

    it('admits untagged and global listeners to a scope that has none of its own', async () => {
      const { app, host } = await populated()
      const lonely = createScope(host, {})
      expect(ids(listenersFor(app, EVENT, lonely.key))).to.deep.equal(['untagged', 'b:global'])
    })

    it('files a listener registered with onScoped() exactly like a routed ctx.on()', async () => {
      const { app, a, b } = await fixture()
      onScoped(a.ctx, EVENT, () => 'a')
      onScoped(b.ctx, EVENT, () => 'b:global', { global: true })
      expect(ids(listenersFor(app, EVENT, a.key))).to.deep.equal(['a', 'b:global'])
      expect(ids(listenersFor(app, EVENT, undefined))).to.deep.equal(['b:global'])
    })

    it('is empty for an event nobody listens to', async () => {
      const { app, a } = await fixture()
      expect(listenersFor(app, 'nobody', a.key)).to.deep.equal([])
      expect(listenersFor(app, 'nobody', undefined)).to.deep.equal([])
    })

    it('returns a fresh array: changing it changes nothing in the index', async () => {
      const { app, host, a } = await fixture()
      a.ctx.on(EVENT, () => 'a')
      const single = listenersFor(app, EVENT, a.key)
      single.length = 0
      expect(ids(listenersFor(app, EVENT, a.key))).to.deep.equal(['a'])
      host.on(EVENT, () => 'untagged')
      const merged = listenersFor(app, EVENT, a.key)
      expect(ids(merged)).to.deep.equal(['a', 'untagged'])
      merged.reverse().pop()
      expect(ids(listenersFor(app, EVENT, a.key))).to.deep.equal(['a', 'untagged'])
    })

    it('answers from a scope index kept across registrations, disposals and new parent links', async () => {
      const { app, host, a, b } = await fixture()
      const index = scopeIndex(host)
      expect(index.listeners(EVENT, index.chain(b.key))).to.deep.equal([])
      host.on(EVENT, () => 'g')
      const dispose = b.ctx.on(EVENT, () => 'b')
      a.ctx.on(EVENT, () => 'a', { prepend: true })
      expect(ids(index.listeners(EVENT, index.chain(b.key)))).to.deep.equal(['a', 'g', 'b'])
      dispose()
      expect(ids(index.listeners(EVENT, index.chain(b.key)))).to.deep.equal(['a', 'g'])
      const late = createScope(host, { id: 'late' }, { label: 'late', parent: b.key })
      expect(index.chain(late.key)).to.deep.equal([late.key, b.key, a.key])
      const fresh = index.listeners(EVENT, index.chain(undefined))
      fresh.length = 0
      expect(ids(index.listeners(EVENT, []))).to.deep.equal(['g'])
      expect(ids(listenersFor(app, EVENT, late.key))).to.deep.equal(['a', 'g'])
    })

    it('keeps apps apart', async () => {
      const one = await fixture()
      const two = await fixture()
      one.host.on(EVENT, () => 'one')
      expect(listenersFor(two.app, EVENT, undefined)).to.deep.equal([])
    })
  })

  describe('ordering', () => {
    it('puts prepended listeners first, the latest prepend first, then registration order, across buckets', async () => {
      const { app, host, a, b } = await fixture()
      host.on(EVENT, () => 'g1')
      b.ctx.on(EVENT, () => 'b1')
      a.ctx.on(EVENT, () => 'a-prepend-1', { prepend: true })
      host.on(EVENT, () => 'g2')
      b.ctx.on(EVENT, () => 'b-prepend-2', true as never)
      a.ctx.on(EVENT, () => 'a1')
      expect(ids(listenersFor(app, EVENT, b.key))).to.deep.equal(['b-prepend-2', 'a-prepend-1', 'g1', 'b1', 'g2', 'a1'])
      expect(ids(listenersFor(app, EVENT, a.key))).to.deep.equal(['a-prepend-1', 'g1', 'g2', 'a1'])
    })

    it('orders every admitted subset exactly as Cordis orders one list (property)', async () => {
      type Where = 'untagged' | 'a' | 'b' | 'c' | 's'
      const op = fc.record({
        where: fc.constantFrom<Where>('untagged', 'a', 'b', 'c', 's'),
        prepend: fc.boolean(),
        global: fc.boolean(),
        // Dispose this listener again after the whole sequence is registered.
        drop: fc.boolean(),
      })
      await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 24 }), async (ops) => {
        const f = await fixture()
        const contexts: Record<Where, Context> = { untagged: f.host, a: f.a.ctx, b: f.b.ctx, c: f.c.ctx, s: f.s.ctx }
        const cordisOrder: number[] = []
        const disposers: (() => void)[] = []
        ops.forEach((o, i) => {
          const options = { prepend: o.prepend, global: o.global }
          // The reference: one plain Cordis list, dispatched unfiltered.
          disposers.push(contexts[o.where].on('test/plain', () => { cordisOrder.push(i) }, options))
          disposers.push(contexts[o.where].on(EVENT, () => i, options))
        })
        ops.forEach((o, i) => {
          if (!o.drop) return
          disposers[2 * i]()
          disposers[2 * i + 1]()
        })
        f.app.emit('test/plain')
        const ancestry: Record<string, Where[]> = { none: [], a: ['a'], b: ['b', 'a'], c: ['c', 'b', 'a'], s: ['s'] }
        for (const [dispatch, key] of [['none', undefined], ['a', f.a.key], ['b', f.b.key], ['c', f.c.key], ['s', f.s.key]] as const) {
          const admitted = (i: number) => ops[i].global || ops[i].where === 'untagged' || ancestry[dispatch].includes(ops[i].where)
          const expected = cordisOrder.filter(admitted)
          const actual = listenersFor(f.app, EVENT, key).map((l) => l.callback() as number)
          expect(actual, `dispatch for ${dispatch}`).to.deep.equal(expected)
          // The index a service keeps answers the same, through a scope's context too.
          const index = scopeIndex(f.c.ctx)
          expect(index.chain(key), `chain for ${dispatch}`).to.deep.equal(scopeChain(f.app, key))
          expect(index.listeners(EVENT, index.chain(key)).map((l) => l.callback() as number), `index for ${dispatch}`).to.deep.equal(expected)
        }
      }), { numRuns: 150 })
    })
  })

  describe('removal and reclamation', () => {
    it('removes the listeners of a disposed plugin and reclaims its bucket', async () => {
      const { app, a } = await fixture()
      const plugin = await loadPlugin(a.ctx, 'listener-plugin')
      plugin.ctx.on(EVENT, () => 'p1')
      plugin.ctx.on(EVENT, () => 'p2')
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 2, buckets: 1 })
      await plugin.dispose()
      expect(listenersFor(app, EVENT, a.key)).to.deep.equal([])
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 0, buckets: 0 })
    })

    it('removes the listeners of a disposed scope and leaves the other buckets alone', async () => {
      const { app, host, a, s } = await fixture()
      host.on(EVENT, () => 'untagged')
      a.ctx.on(EVENT, () => 'a')
      s.ctx.on(EVENT, () => 's')
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 3, buckets: 3 })
      await a.dispose()
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 2, buckets: 2 })
      expect(ids(listenersFor(app, EVENT, a.key))).to.deep.equal(['untagged'])
      expect(ids(listenersFor(app, EVENT, s.key))).to.deep.equal(['untagged', 's'])
    })

    it('reclaims every bucket once the last listener is gone', async () => {
      const app = new Context()
      const creator = await loadPlugin(app, 'creator')
      defineScopedEvent(creator.ctx, EVENT)
      const scopes = Array.from({ length: 20 }, (_, i) => createScope(creator.ctx, { i }))
      scopes.forEach((scope, i) => {
        scope.ctx.on(EVENT, () => i)
        scope.ctx.on(EVENT, () => -i, { prepend: true })
      })
      creator.ctx.on(EVENT, () => 'untagged')
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 41, buckets: 21 })
      await Promise.all(scopes.slice(0, 10).map((scope) => scope.dispose()))
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 21, buckets: 11 })
      await creator.dispose()
      expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 0, buckets: 0 })
    })

    it('makes a disposer safe to call twice', async () => {
      const { app, a } = await fixture()
      const dispose = onScoped(a.ctx, EVENT, () => 'a')
      a.ctx.on(EVENT, () => 'kept')
      expect(dispose()).to.equal(true)
      dispose()
      expect(ids(listenersFor(app, EVENT, a.key))).to.deep.equal(['kept'])
    })

    it('removes only the disposed registration when the same function is registered twice', async () => {
      const { app, a } = await fixture()
      const callback = () => 'same'
      const first = a.ctx.on(EVENT, callback)
      a.ctx.on(EVENT, callback)
      first()
      expect(ids(listenersFor(app, EVENT, a.key))).to.deep.equal(['same'])
      expect(scopedListenerStats(app, EVENT).listeners).to.equal(1)
    })
  })
})
