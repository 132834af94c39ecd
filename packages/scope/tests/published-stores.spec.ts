import { expect } from 'chai'
import { Context } from 'cordis'
import { AnonymousEntries, createScope, NamedEntries, ScopedLayers, type ScopeKey } from 'dsh-scope'
import { bootApp, thrown } from 'dsh-testing'

// The published entry tables and layer store, held to their contracts as docs/reference/scopes.md states
// them (R-SCOPE-17).

const taken = (name: string) => Object.assign(new Error(`"${name}" is taken`), { code: 'TEST_TAKEN' })

/** A registry's layer in these tests: a named table and an anonymous one. */
class Layer {
  readonly names = new NamedEntries<string>(taken)
  readonly extras = new AnonymousEntries<string>()
  constructor(readonly scope: ScopeKey | undefined) {}
  isEmpty(): boolean {
    return this.names.isEmpty() && this.extras.isEmpty()
  }
}

function store(onChange: () => void = () => {}) {
  const made: (ScopeKey | undefined)[] = []
  const layers = new ScopedLayers((scope) => {
    made.push(scope)
    return new Layer(scope)
  }, onChange)
  return { layers, made }
}

const name = (ctx: Context, layers: ScopedLayers<Layer>, key: string, value: string, notify?: boolean) =>
  layers.effect(ctx, (layer) => layer.names.insert(key, value), { label: `name ${key}`, ...(notify === undefined ? {} : { notify }) })

describe('dsh-scope: NamedEntries (R-SCOPE-17)', () => {
  it('keeps names in insertion order and answers get, has, keys, entries and values', () => {
    const table = new NamedEntries<number>(taken)
    table.insert('b', 2)
    table.insert('a', 1)
    expect([...table.keys()]).to.deep.equal(['b', 'a'])
    expect([...table.entries()]).to.deep.equal([['b', 2], ['a', 1]])
    expect([...table.values()]).to.deep.equal([2, 1])
    expect([table.get('a'), table.get('z'), table.has('b'), table.has('z'), table.isEmpty()]).to.deep.equal([1, undefined, true, false, false])
  })

  it('throws the caller\'s own error for a taken name and files nothing', () => {
    const table = new NamedEntries<number>(taken)
    table.insert('a', 1)
    const error = thrown(() => table.insert('a', 2)) as Error & { code?: string }
    expect([error.code, error.message]).to.deep.equal(['TEST_TAKEN', '"a" is taken'])
    expect(table.get('a')).to.equal(1)
  })

  it('an undo takes out its own entry once, and never a later entry filed under the same name', () => {
    const table = new NamedEntries<number>(taken)
    const first = table.insert('a', 1)
    first()
    table.insert('a', 2)
    first()
    expect(table.get('a')).to.equal(2)
  })

  it('an iterator sees entries filed while it runs, but none filed after the table drained', () => {
    const table = new NamedEntries<number>(taken)
    const undo = table.insert('a', 1)
    const live = table.values()
    expect(live.next().value).to.equal(1)
    table.insert('b', 2)
    expect(live.next().value).to.equal(2)
    undo()
    table.insert('a', 3)
    expect([...live]).to.deep.equal([3])
    const drained = new NamedEntries<number>(taken)
    const only = drained.insert('x', 1)
    const old = drained.values()
    only()
    drained.insert('y', 2)
    expect(old.next().done).to.equal(true)
    expect([...drained.values()]).to.deep.equal([2])
  })
})

describe('dsh-scope: AnonymousEntries (R-SCOPE-17)', () => {
  it('keeps each append as its own entry, equal values included, each with its own undo', () => {
    const table = new AnonymousEntries<string>()
    const first = table.append('same')
    table.append('same')
    first()
    first()
    expect([...table.values()]).to.deep.equal(['same'])
  })

  it('an iterator ends with the generation it started in once the table drains', () => {
    const table = new AnonymousEntries<number>()
    const undo = table.append(1)
    const old = table.values()
    undo()
    expect(table.isEmpty()).to.equal(true)
    table.append(2)
    expect(old.next().done).to.equal(true)
    expect([...table.values()]).to.deep.equal([2])
  })
})

describe('dsh-scope: the published ScopedLayers (R-SCOPE-17)', () => {
  it('makes the global layer at construction and no layer when read', () => {
    const { layers, made } = store()
    const key = {}
    expect(layers.peek(key)).to.equal(undefined)
    expect(layers.peek(undefined)).to.equal(undefined)
    expect(layers.chainLayers(key)).to.deep.equal([])
    expect([...layers.merge(key, (layer) => layer.names)]).to.deep.equal([])
    expect(made).to.deep.equal([undefined])
  })

  it('files a registration in the layer of the registering context and takes it out when that scope ends', async () => {
    const { host } = await bootApp()
    const { layers } = store()
    const scope = createScope(host, { id: 'agent' })
    name(scope.ctx, layers, 'role', 'agent role')
    name(host, layers, 'role', 'global role')
    expect(layers.peek(scope.key)?.names.get('role')).to.equal('agent role')
    expect(layers.global.names.get('role')).to.equal('global role')
    await scope.dispose()
    expect(layers.peek(scope.key)).to.equal(undefined)
    expect(layers.global.names.get('role')).to.equal('global role')
  })

  it('merges the global layer, then the chain from the farthest ancestor: the nearest wins, in the place the name first took', async () => {
    const { host } = await bootApp()
    const { layers } = store()
    const preset = createScope(host, {})
    const agent = createScope(host, {}, { parent: preset.key })
    name(host, layers, 'a', 'global a')
    name(host, layers, 'b', 'global b')
    name(agent.ctx, layers, 'a', 'agent a')
    name(preset.ctx, layers, 'a', 'preset a')
    name(preset.ctx, layers, 'c', 'preset c')
    expect([...layers.merge(agent.key, (layer) => layer.names)]).to.deep.equal([['a', 'agent a'], ['b', 'global b'], ['c', 'preset c']])
    expect(layers.chainLayers(agent.key).map((layer) => layer.scope)).to.deep.equal([preset.key, agent.key])
  })

  it('reads one scope\'s own layer with peek, without its ancestors\'', async () => {
    const { host } = await bootApp()
    const { layers } = store()
    const preset = createScope(host, {})
    const agent = createScope(host, {}, { parent: preset.key })
    name(preset.ctx, layers, 'deny', 'shell')
    expect(layers.peek(agent.key)).to.equal(undefined)
    expect(layers.peek(preset.key)?.names.get('deny')).to.equal('shell')
  })

  it('drops a scope layer only when the whole layer is empty', async () => {
    const { host } = await bootApp()
    const { layers } = store()
    const scope = createScope(host, {})
    const named = name(scope.ctx, layers, 'a', 'x')
    const extra = layers.effect(scope.ctx, (layer) => layer.extras.append('y'), { label: 'extra' })
    named()
    expect(layers.peek(scope.key)).to.not.equal(undefined)
    extra()
    expect(layers.peek(scope.key)).to.equal(undefined)
  })

  it('reports a change after the registration and after its undo, and none with notify: false', () => {
    const events: string[] = []
    const { layers } = store(() => { events.push('change') })
    const app = new Context()
    const dispose = layers.effect(app, (layer) => {
      events.push('filed')
      const undo = layer.names.insert('a', 'x')
      return () => {
        events.push('undone')
        undo()
      }
    }, { label: 'reported' })
    dispose()
    dispose()
    name(app, layers, 'b', 'quiet', false)()
    expect(events).to.deep.equal(['filed', 'change', 'undone', 'change'])
  })

  it('returns the Cordis effect itself, under the label it was given', () => {
    const { layers } = store()
    const app = new Context()
    const dispose = name(app, layers, 'a', 'x')
    expect(app.fiber.getEffects().map((effect) => effect.label)).to.include('name a')
    dispose()
    expect(app.fiber.getEffects().map((effect) => effect.label)).to.not.include('name a')
  })

  it('undoes a registration whose change report throws, and rethrows the report\'s error', async () => {
    const { host } = await bootApp()
    let reports = 0
    const { layers } = store(() => {
      if (++reports === 1) throw new Error('listener failed')
    })
    const scope = createScope(host, {})
    expect(thrown(() => name(scope.ctx, layers, 'a', 'x')).message).to.equal('listener failed')
    expect(layers.peek(scope.key)).to.equal(undefined)
    expect(reports).to.equal(2)
  })

  it('leaves no empty layer behind when the action or the layer factory throws, and keeps a layer that holds something', async () => {
    const { host } = await bootApp()
    let factoryFails = true
    const layers = new ScopedLayers((scope) => {
      if (scope !== undefined && factoryFails) throw new Error('no layer')
      return new Layer(scope)
    }, () => {})
    const scope = createScope(host, {})
    expect(thrown(() => name(scope.ctx, layers, 'a', 'x')).message).to.equal('no layer')
    factoryFails = false
    expect(thrown(() => layers.effect(scope.ctx, () => { throw new Error('bad action') }, { label: 'bad' })).message).to.equal('bad action')
    expect(layers.peek(scope.key)).to.equal(undefined)
    name(scope.ctx, layers, 'kept', 'y')
    expect(thrown(() => name(scope.ctx, layers, 'kept', 'z')).message).to.equal('"kept" is taken')
    expect(layers.peek(scope.key)?.names.get('kept')).to.equal('y')
  })
})
