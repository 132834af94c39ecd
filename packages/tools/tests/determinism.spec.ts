import { expect } from 'chai'
import fc from 'fast-check'
import { SOAK } from 'dsh-testing'
import { activate, expectModel } from './determinism-runner.js'
import { worlds, type World } from './determinism-world.js'
import { bootApp, pluginContext } from 'dsh-testing'

const RUNS = SOAK ? 3_000 : 150

/** A world with two activation orders of its plugins and one disposal order. */
const scenario = worlds.chain((world) => {
  const ids = world.plugins.map((p) => p.id)
  const permutation = fc.shuffledSubarray(ids, { minLength: ids.length, maxLength: ids.length })
  return fc.tuple(fc.constant(world), permutation, permutation, permutation)
})

describe('dsh-tools: determinism across activation and disposal orders (soak)', function () {
  this.timeout(SOAK ? 0 : 60_000)

  it(`two activation orders give byte-identical assemblies, prompts, snapshots and tools in every view, equal to the model (${RUNS} worlds)`, async () => {
    await fc.assert(fc.asyncProperty(scenario, async ([world, first, second]) => {
      const a = await activate(world, first)
      const b = await activate(world, second)
      const seenA = await a.observeAll()
      const seenB = await b.observeAll()
      expect(seenB.map((o) => o.json)).to.deep.equal(seenA.map((o) => o.json))
      expectModel(world, world.plugins, seenA)
    }), { numRuns: RUNS })
  })

  it('disposing plugins one by one in any order gives, after each step, what the model gives for the plugins left', async () => {
    await fc.assert(fc.asyncProperty(scenario, async ([world, activation, disposal, otherDisposal]) => {
      const run = await activate(world, activation)
      const other = await activate(world, activation)
      const left = new Set(world.plugins)
      for (const id of disposal) {
        await run.fibers.get(id)!.dispose()
        left.delete(world.plugins[id])
        expectModel(world, [...left], await run.observeAll())
      }
      for (const id of otherDisposal) await other.fibers.get(id)!.dispose()
      expect((await other.observeAll()).map((o) => o.json)).to.deep.equal((await run.observeAll()).map((o) => o.json))
      // Only the services' own entries (persona pieces, the tools provider) and the restrictions remain.
      expect(run.app.systemPrompt.stats()).to.deep.equal(other.app.systemPrompt.stats())
      expect(run.app.tools.stats().entries).to.equal(world.restrictions.length)
    }), { numRuns: Math.ceil(RUNS / 2) })
  })

  it('the model is not vacuous: a hand-made world renders what R-ORDER-1 says', async () => {
    const section = (name: string, order: number, text: string) => ({ name, order, text, dynamic: false, interpolate: true, complete: false })
    const world: World = {
      config: { persona: '', personaSuffix: 'Suffix.', includeRuntimeContext: true },
      plugins: [
        { id: 0, layer: 'global', sections: [section('b', 10, 'Global b.'), section('a', 10, 'Global a.')], contexts: [], variables: [], rawTools: ['raw_a'], tools: [{ name: 'read' }], suppress: false },
        { id: 1, layer: 'A', sections: [section('b', -5, 'Agent b.')], contexts: [], variables: [], rawTools: [], tools: [], suppress: false },
      ],
      restrictions: [{ layer: 'A', deny: ['read'] }],
    }
    const run = await activate(world, [1, 0])
    const [global, , agent] = await run.observeAll()
    expect(global.prompt).to.deep.equal({ ok: true, text: 'Global a.\n\nGlobal b.\n\nSuffix.' })
    expect(agent.prompt).to.deep.equal({ ok: true, text: 'Agent b.\n\nGlobal a.\n\nSuffix.' })
    expect(agent.assembly!.tools.map((t) => t.name)).to.deep.equal(['raw_a'])
    expectModel(world, world.plugins, await run.observeAll())
  })

  it('a tool name offered by two providers is reported with the same message whatever the activation order', async () => {
    const messages: string[] = []
    for (const order of [['one', 'two'], ['two', 'one']]) {
      const { app } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true })
      for (const name of order) {
        const ctx = await pluginContext(app, name, ['systemPrompt', 'tools'])
        ctx.systemPrompt.tools(() => ({ schemas: [{ name: 'shared', description: `From ${name}.` }] }))
      }
      messages.push(await app.systemPrompt.assemble().then(() => 'resolved', (error: Error) => error.message))
    }
    expect(messages[0]).to.equal('tool "shared" is provided more than once (plugins "one", "two")')
    expect(messages[1]).to.equal(messages[0])
  })
})
