import { expect } from 'chai'
import fc from 'fast-check'
import { StampedLayers } from 'dsh-scope'

/** A memo probe: counts how often `compute` ran. */
function counter() {
  let calls = 0
  return {
    get calls() { return calls },
    compute: <T>(value: T) => () => { calls++; return value },
  }
}

describe('dsh-scope: StampedLayers', () => {
  describe('add / has / get / remove', () => {
    it('files a value in the global layer when the scope is undefined', () => {
      const layers = new StampedLayers<string>()
      expect(layers.add(undefined, 'k', 'global')).to.equal(true)
      expect(layers.has(undefined, 'k')).to.equal(true)
      expect(layers.get(undefined, 'k')).to.equal('global')
    })

    it('keeps each scope\'s layer apart from the global layer and from other scopes', () => {
      const layers = new StampedLayers<string>()
      const a = {}
      const b = {}
      layers.add(a, 'k', 'a')
      expect(layers.has(a, 'k')).to.equal(true)
      expect(layers.has(b, 'k')).to.equal(false)
      expect(layers.has(undefined, 'k')).to.equal(false)
      expect(layers.get(b, 'k')).to.equal(undefined)
      expect(layers.add(b, 'k', 'b')).to.equal(true)
      expect(layers.add(undefined, 'k', 'g')).to.equal(true)
      expect([layers.get(a, 'k'), layers.get(b, 'k'), layers.get(undefined, 'k')]).to.deep.equal(['a', 'b', 'g'])
    })

    it('refuses a key already taken in the same layer and keeps the first value', () => {
      const layers = new StampedLayers<string>()
      const a = {}
      layers.add(a, 'k', 'first')
      expect(layers.add(a, 'k', 'second')).to.equal(false)
      expect(layers.get(a, 'k')).to.equal('first')
      layers.add(undefined, 'k', 'first')
      expect(layers.add(undefined, 'k', 'second')).to.equal(false)
      expect(layers.get(undefined, 'k')).to.equal('first')
    })

    it('removes only when the layer still holds that very value', () => {
      const layers = new StampedLayers<{ id: number }>()
      const a = {}
      const first = { id: 1 }
      const second = { id: 2 }
      layers.add(a, 'k', first)
      expect(layers.remove(a, 'k', first)).to.equal(true)
      layers.add(a, 'k', second)
      // A stale disposer of the first registration must not remove the second.
      expect(layers.remove(a, 'k', first)).to.equal(false)
      expect(layers.get(a, 'k')).to.equal(second)
      expect(layers.remove({}, 'k', second)).to.equal(false)
      expect(layers.remove(undefined, 'k', second)).to.equal(false)
    })

    it('lists the entries of exactly one layer in insertion order', () => {
      const layers = new StampedLayers<number>()
      const a = {}
      layers.add(a, 'z', 1)
      layers.add(a, 'a', 2)
      layers.add(undefined, 'g', 3)
      expect([...layers.entries(a)]).to.deep.equal([['z', 1], ['a', 2]])
      expect([...layers.entries(undefined)]).to.deep.equal([['g', 3]])
      expect([...layers.entries({})]).to.deep.equal([])
    })
  })

  describe('reclamation (stats)', () => {
    it('starts empty', () => {
      expect(new StampedLayers().stats()).to.deep.equal({ layers: 0, scopeLayers: 0, entries: 0 })
    })

    it('reclaims a scope layer when its last entry is removed', () => {
      const layers = new StampedLayers<string>()
      const a = {}
      const b = {}
      layers.add(a, 'x', 'ax')
      layers.add(a, 'y', 'ay')
      layers.add(b, 'x', 'bx')
      expect(layers.stats()).to.deep.equal({ layers: 2, scopeLayers: 2, entries: 3 })
      layers.remove(a, 'x', 'ax')
      expect(layers.stats()).to.deep.equal({ layers: 2, scopeLayers: 2, entries: 2 })
      layers.remove(a, 'y', 'ay')
      expect(layers.stats()).to.deep.equal({ layers: 1, scopeLayers: 1, entries: 1 })
      layers.remove(b, 'x', 'bx')
      expect(layers.stats()).to.deep.equal({ layers: 0, scopeLayers: 0, entries: 0 })
    })

    it('keeps the global layer once it exists, even when empty', () => {
      const layers = new StampedLayers<string>()
      layers.add(undefined, 'g', 'g')
      layers.remove(undefined, 'g', 'g')
      expect(layers.stats()).to.deep.equal({ layers: 1, scopeLayers: 0, entries: 0 })
    })

    it('returns to zero scope layers after any sequence of adds and matching removes (property)', () => {
      const scopes = [{}, {}, {}]
      const op = fc.record({ scope: fc.integer({ min: -1, max: 2 }), key: fc.constantFrom('a', 'b', 'c') })
      fc.assert(fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const layers = new StampedLayers<object>()
        const filed: [object | undefined, string, object][] = []
        for (const { scope, key } of ops) {
          const at = scope < 0 ? undefined : scopes[scope]
          const value = {}
          if (layers.add(at, key, value)) filed.push([at, key, value])
        }
        expect(layers.stats().entries).to.equal(filed.length)
        for (const [at, key, value] of filed.reverse()) expect(layers.remove(at, key, value)).to.equal(true)
        expect(layers.stats().scopeLayers).to.equal(0)
        expect(layers.stats().entries).to.equal(0)
      }))
    })
  })

  describe('resolve()', () => {
    it('lets the nearest layer win a key and reports the layer it came from', () => {
      const layers = new StampedLayers<string>()
      const preset = {}
      const agent = {}
      layers.add(undefined, 'persona', 'global persona')
      layers.add(undefined, 'policy', 'global policy')
      layers.add(undefined, 'tools', 'global tools')
      layers.add(preset, 'persona', 'preset persona')
      layers.add(preset, 'policy', 'preset policy')
      layers.add(agent, 'persona', 'agent persona')
      const resolved = layers.resolve([agent, preset])
      expect(Object.fromEntries([...resolved].map(([k, v]) => [k, v.value]))).to.deep.equal({
        persona: 'agent persona', policy: 'preset policy', tools: 'global tools',
      })
      expect(resolved.get('persona')!.scope).to.equal(agent)
      expect(resolved.get('policy')!.scope).to.equal(preset)
      expect(resolved.get('tools')!.scope).to.equal(undefined)
    })

    it('reads the global layer alone for an empty chain and never a scope off the chain', () => {
      const layers = new StampedLayers<string>()
      const sibling = {}
      layers.add(undefined, 'k', 'global')
      layers.add(sibling, 'k', 'sibling')
      layers.add(sibling, 'only', 'sibling')
      expect([...layers.resolve([]).entries()].map(([k, v]) => [k, v.value])).to.deep.equal([['k', 'global']])
      expect(layers.resolve([{}]).has('only')).to.equal(false)
    })

    it('falls back to the wider value once the nearer one is removed', () => {
      const layers = new StampedLayers<string>()
      const agent = {}
      layers.add(undefined, 'persona', 'global')
      layers.add(agent, 'persona', 'agent')
      layers.remove(agent, 'persona', 'agent')
      expect(layers.resolve([agent]).get('persona')).to.deep.equal({ value: 'global', scope: undefined })
    })
  })

  describe('memo()', () => {
    it('computes once and reuses the value while nothing on the chain changes', () => {
      const layers = new StampedLayers<string>()
      const agent = {}
      layers.add(agent, 'k', 'v')
      const probe = counter()
      const first = layers.memo([agent], probe.compute({ n: 1 }))
      const second = layers.memo([agent], probe.compute({ n: 2 }))
      expect(second).to.equal(first)
      expect(probe.calls).to.equal(1)
    })

    it('recomputes after an add or a remove in a layer of the chain', () => {
      const layers = new StampedLayers<string>()
      const preset = {}
      const agent = {}
      const chain = [agent, preset]
      const probe = counter()
      layers.memo(chain, probe.compute('v0'))
      layers.add(preset, 'k', 'v')
      expect(layers.memo(chain, probe.compute('v1'))).to.equal('v1')
      layers.add(agent, 'k', 'v')
      expect(layers.memo(chain, probe.compute('v2'))).to.equal('v2')
      layers.remove(preset, 'k', 'v')
      expect(layers.memo(chain, probe.compute('v3'))).to.equal('v3')
      expect(layers.memo(chain, probe.compute('unused'))).to.equal('v3')
      expect(probe.calls).to.equal(4)
    })

    it('recomputes after a change in the global layer, for every chain', () => {
      const layers = new StampedLayers<string>()
      const a = {}
      const probe = counter()
      layers.memo([a], probe.compute('a0'))
      layers.memo([], probe.compute('g0'))
      layers.add(undefined, 'k', 'v')
      expect(layers.memo([a], probe.compute('a1'))).to.equal('a1')
      expect(layers.memo([], probe.compute('g1'))).to.equal('g1')
      expect(probe.calls).to.equal(4)
    })

    it('does not recompute for a change in a scope off the chain', () => {
      const layers = new StampedLayers<string>()
      const agent = {}
      const sibling = {}
      const probe = counter()
      layers.memo([agent], probe.compute('a0'))
      layers.add(sibling, 'k', 'v')
      layers.remove(sibling, 'k', 'v')
      layers.add(sibling, 'k2', 'v')
      expect(layers.memo([agent], probe.compute('a1'))).to.equal('a0')
      expect(probe.calls).to.equal(1)
    })

    it('does not recompute after a refused add or a refused remove', () => {
      const layers = new StampedLayers<string>()
      const agent = {}
      layers.add(agent, 'k', 'v')
      const probe = counter()
      layers.memo([agent], probe.compute('a0'))
      expect(layers.add(agent, 'k', 'other')).to.equal(false)
      expect(layers.remove(agent, 'k', 'other')).to.equal(false)
      expect(layers.memo([agent], probe.compute('a1'))).to.equal('a0')
      expect(probe.calls).to.equal(1)
    })

    it('recomputes when a reclaimed layer comes back with new content', () => {
      const layers = new StampedLayers<string>()
      const agent = {}
      layers.add(agent, 'k', 'old')
      const probe = counter()
      layers.memo([agent], probe.compute('old view'))
      layers.remove(agent, 'k', 'old')
      layers.add(agent, 'k', 'new')
      expect(layers.memo([agent], probe.compute('new view'))).to.equal('new view')
      expect(probe.calls).to.equal(2)
    })

    it('keeps one memo per chain head: two heads alternate without recomputing', () => {
      const layers = new StampedLayers<string>()
      const preset = {}
      const a = {}
      const b = {}
      const probe = counter()
      layers.memo([a, preset], probe.compute('a'))
      layers.memo([b, preset], probe.compute('b'))
      expect(layers.memo([a, preset], probe.compute('x'))).to.equal('a')
      expect(layers.memo([b, preset], probe.compute('x'))).to.equal('b')
      expect(probe.calls).to.equal(2)
      // A change in the shared parent invalidates both.
      layers.add(preset, 'k', 'v')
      layers.memo([a, preset], probe.compute('a2'))
      layers.memo([b, preset], probe.compute('b2'))
      expect(probe.calls).to.equal(4)
    })

    it('keys the memo by chain head: a different chain under the same head replaces it', () => {
      const layers = new StampedLayers<string>()
      const agent = {}
      const preset = {}
      const probe = counter()
      expect(layers.memo([agent], probe.compute('alone'))).to.equal('alone')
      expect(layers.memo([agent, preset], probe.compute('linked'))).to.equal('linked')
      expect(layers.memo([agent, preset], probe.compute('x'))).to.equal('linked')
      expect(layers.memo([agent], probe.compute('alone again'))).to.equal('alone again')
      expect(probe.calls).to.equal(3)
    })

    it('keeps the global-only memo apart from scoped ones', () => {
      const layers = new StampedLayers<string>()
      const a = {}
      const probe = counter()
      layers.memo([], probe.compute('global'))
      layers.memo([a], probe.compute('a'))
      expect(layers.memo([], probe.compute('x'))).to.equal('global')
      expect(layers.memo([a], probe.compute('x'))).to.equal('a')
      expect(probe.calls).to.equal(2)
    })

    it('always returns what a fresh resolve would give (property)', () => {
      const scopes = [{}, {}, {}]
      const op = fc.oneof(
        fc.record({ kind: fc.constant('add' as const), scope: fc.integer({ min: -1, max: 2 }), key: fc.constantFrom('a', 'b') }),
        fc.record({ kind: fc.constant('remove' as const), index: fc.nat() }),
        fc.record({ kind: fc.constant('read' as const), chain: fc.constantFrom([], [0], [1, 0], [2], [2, 1, 0]) }),
      )
      fc.assert(fc.property(fc.array(op, { maxLength: 50 }), (ops) => {
        const layers = new StampedLayers<string>()
        const filed: [object | undefined, string, string][] = []
        let serial = 0
        const snapshot = (chain: readonly object[]) =>
          JSON.stringify([...layers.resolve(chain)].map(([k, v]) => [k, v.value, chain.indexOf(v.scope as object)]))
        for (const o of ops) {
          if (o.kind === 'add') {
            const at = o.scope < 0 ? undefined : scopes[o.scope]
            const value = `v${serial++}`
            if (layers.add(at, o.key, value)) filed.push([at, o.key, value])
          } else if (o.kind === 'remove') {
            if (!filed.length) continue
            const [at, key, value] = filed.splice(o.index % filed.length, 1)[0]
            layers.remove(at, key, value)
          } else {
            const chain = o.chain.map((i) => scopes[i])
            expect(layers.memo(chain, () => snapshot(chain))).to.equal(snapshot(chain))
          }
        }
      }), { numRuns: 300 })
    })
  })
})
