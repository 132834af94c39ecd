import { expect } from 'chai'
import { Context } from 'cordis'
import { effectMark, liveEffects, madeSince } from '../src/cordis-effects.js'
import { loadPlugin } from 'dsh-testing'

// These pin what dsh-scope reads of Cordis's private effect list (a fiber's `_disposables`). If a Cordis
// release changes it, these fail first, and the teardown-order specs say what it breaks.
describe('dsh-scope: what it reads of a Cordis fiber\'s effects', () => {
  it('the mark changes with every effect made (ctx.effect, a listener, a child plugin), not when one is disposed', async () => {
    const app = new Context()
    const plugin = await loadPlugin(app, 'reader')
    const marks = [effectMark(plugin.ctx.fiber)]
    const dispose = plugin.ctx.effect(() => () => {})
    marks.push(effectMark(plugin.ctx.fiber))
    plugin.ctx.on('test/plain', () => {})
    marks.push(effectMark(plugin.ctx.fiber))
    await loadPlugin(plugin.ctx, 'child')
    marks.push(effectMark(plugin.ctx.fiber))
    dispose()
    marks.push(effectMark(plugin.ctx.fiber))
    expect(marks.every((mark) => Number.isInteger(mark))).to.equal(true)
    expect(new Set(marks.slice(0, 4)).size).to.equal(4)
    expect(marks[4]).to.equal(marks[3])
  })

  it('madeSince() sees a live effect made after the mark, and forgets it once it is disposed', async () => {
    const app = new Context()
    const plugin = await loadPlugin(app, 'reader')
    const fiber = plugin.ctx.fiber
    plugin.ctx.effect(() => () => {})
    const mark = effectMark(fiber)
    expect(madeSince(fiber, mark)).to.equal(false)
    const dispose = plugin.ctx.effect(() => () => {})
    expect(madeSince(fiber, mark)).to.equal(true)
    dispose()
    expect(madeSince(fiber, mark)).to.equal(false)
  })

  it('madeSince() answers yes without looking once a fiber holds more than a few dozen live effects', async () => {
    const app = new Context()
    const plugin = await loadPlugin(app, 'reader')
    for (let i = 0; i < 40; i++) plugin.ctx.effect(() => () => {})
    const mark = effectMark(plugin.ctx.fiber)
    plugin.ctx.effect(() => () => {})()
    expect(madeSince(plugin.ctx.fiber, mark)).to.equal(true)
  })

  it('liveEffects() lists the live effects oldest first, each with its mark and the disposer Cordis would call', async () => {
    const app = new Context()
    const plugin = await loadPlugin(app, 'reader')
    const log: string[] = []
    plugin.ctx.effect(() => () => { log.push('first') })
    const first = effectMark(plugin.ctx.fiber)
    plugin.ctx.effect(() => () => { log.push('second') })
    const second = effectMark(plugin.ctx.fiber)
    const effects = liveEffects(plugin.ctx.fiber).slice(-2)
    expect(effects.map(([mark]) => mark)).to.deep.equal([first, second])
    effects[1][1]()
    expect(log).to.deep.equal(['second'])
    expect(liveEffects(plugin.ctx.fiber).map(([mark]) => mark)).to.not.include(second)
  })
})
