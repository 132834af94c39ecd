import { expect } from 'chai'
import {
  createScope, defineScopedEvent, GLOBAL, listenersFor, scopedListenerStats, type ScopeKey,
} from 'dsh-scope'
import { bootApp } from 'dsh-testing'

const EVENT = 'test/admission'

interface MapAccess<T> {
  result: T
  /** The keys passed to `Map.prototype.get`, in call order. */
  reads: unknown[]
  /** Calls that walk a whole map: `forEach`, `keys`, `values`, `entries`, iteration. */
  scans: number
}

/**
 * Runs `fn` synchronously while every `Map` records its reads and whole-map walks. `listenersFor` keeps
 * its index in Maps (event name → scope key → bucket), and its parent links in a WeakMap, so the record
 * shows exactly which buckets a dispatch looked at.
 */
function recordMapAccess<T>(fn: () => T): MapAccess<T> {
  const proto = Map.prototype as any
  const saved = {
    get: proto.get, forEach: proto.forEach, keys: proto.keys, values: proto.values, entries: proto.entries,
    iterator: proto[Symbol.iterator],
  }
  const reads: unknown[] = []
  let scans = 0
  const scanning = (original: Function) => function (this: unknown, ...args: unknown[]) {
    scans++
    return original.apply(this, args)
  }
  proto.get = function (this: Map<unknown, unknown>, key: unknown) {
    reads.push(key)
    return saved.get.call(this, key)
  }
  proto.forEach = scanning(saved.forEach)
  proto.keys = scanning(saved.keys)
  proto.values = scanning(saved.values)
  proto.entries = scanning(saved.entries)
  proto[Symbol.iterator] = scanning(saved.iterator)
  try {
    return { result: fn(), reads, scans }
  } finally {
    Object.assign(proto, { get: saved.get, forEach: saved.forEach, keys: saved.keys, values: saved.values, entries: saved.entries })
    proto[Symbol.iterator] = saved.iterator
  }
}

/**
 * An app with the event defined, one untagged listener, a preset scope and an agent scope under it (one
 * listener each), and `siblings` further scopes, siblings of the preset, with one listener each.
 */
async function world(siblings: number) {
  const { app, host } = await bootApp()
  defineScopedEvent(host, EVENT)
  const preset = createScope(host, { id: 'preset' })
  const agent = createScope(host, { id: 'agent' }, { parent: preset.key })
  host.on(EVENT, () => 'untagged')
  preset.ctx.on(EVENT, () => 'preset')
  agent.ctx.on(EVENT, () => 'agent')
  const siblingKeys: ScopeKey[] = []
  for (let i = 0; i < siblings; i++) {
    const sibling = createScope(host, { sibling: i })
    siblingKeys.push(sibling.key)
    sibling.ctx.on(EVENT, () => `sibling ${i}`)
  }
  return { app, preset, agent, siblingKeys }
}

describe('dsh-scope: listener admission cost', function () {
  this.timeout(30_000)
  let many: Awaited<ReturnType<typeof world>>

  before(async () => {
    many = await world(10_000)
  })

  it('admits exactly the chain\'s listeners among 10,000 sibling scopes', () => {
    const { app, agent, siblingKeys } = many
    expect(scopedListenerStats(app, EVENT)).to.deep.equal({ listeners: 10_003, buckets: 10_003 })
    expect(listenersFor(app, EVENT, agent.key).map((l) => l.callback())).to.deep.equal(['untagged', 'preset', 'agent'])
    expect(listenersFor(app, EVENT, siblingKeys[4321]).map((l) => l.callback())).to.deep.equal(['untagged', 'sibling 4321'])
    expect(listenersFor(app, EVENT, undefined).map((l) => l.callback())).to.deep.equal(['untagged'])
  })

  it('reads only the global bucket and the buckets of the chain, whatever the sibling count', async () => {
    const few = await world(10)
    const measure = ({ app, preset, agent }: typeof few) => {
      const access = recordMapAccess(() => listenersFor(app, EVENT, agent.key))
      expect(access.result).to.have.length(3)
      expect(access.reads).to.deep.equal([EVENT, GLOBAL, agent.key, preset.key])
      expect(access.scans).to.equal(0)
      return access
    }
    expect(measure(many).reads.length).to.equal(measure(few).reads.length)
  })

  it('records the reads it is meant to record (the probe itself can fail)', () => {
    const map = new Map([[1, 'one']])
    const access = recordMapAccess(() => {
      map.get(1)
      for (const _ of map) void _
      return [...map.values()].length
    })
    expect(access.reads).to.deep.equal([1])
    expect(access.scans).to.equal(2)
    // And Map is whole again afterwards.
    const after = recordMapAccess(() => 0)
    map.get(1)
    expect(after.reads).to.deep.equal([])
  })
})
