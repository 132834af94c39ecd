import { expect } from 'chai'
import { Context } from 'cordis'
import { createScope, ownEffect, StampedLayers, scopeStats } from 'dsh-scope'
import { bootApp, loadPlugin, rejection } from 'dsh-testing'
import { scopeEndingWithCreator } from './helpers.js'

describe('dsh-scope: teardowns that throw', () => {
  it('a throwing teardown does not stop the others; dispose() rejects with its error after all ran', async () => {
    const { host } = await bootApp()
    const scope = createScope(host, {}, { label: 'agent:a' })
    const ran: string[] = []
    ownEffect(scope.ctx, () => { ran.push('first') })
    ownEffect(scope.ctx, () => { ran.push('second'); throw new Error('teardown broke') })
    ownEffect(scope.ctx, () => { ran.push('third') })
    const error = await rejection(scope.dispose())
    expect(error.message).to.equal('teardown broke')
    expect(ran).to.deep.equal(['third', 'second', 'first'])
    expect(scopeStats(host).liveScopes).to.equal(0)
  })

  it('several throwing teardowns reject with an AggregateError that holds each error', async () => {
    const { host } = await bootApp()
    const scope = createScope(host, {})
    ownEffect(scope.ctx, () => { throw new Error('one') })
    ownEffect(scope.ctx, () => { throw new Error('two') })
    const error = await rejection(scope.dispose(), AggregateError)
    expect(error.errors.map((e: Error) => e.message)).to.deep.equal(['two', 'one'])
  })

  it('a throwing teardown of a plugin does not stop the plugin\'s other teardowns', async () => {
    const app = new Context()
    const plugin = await loadPlugin(app, 'owner')
    const ran: number[] = []
    ownEffect(plugin.ctx, () => { ran.push(1) })
    ownEffect(plugin.ctx, () => { throw new Error('teardown broke') })
    ownEffect(plugin.ctx, () => { ran.push(3) })
    await plugin.dispose()
    expect(ran).to.deep.equal([3, 1])
  })

  it('when the creator is disposed, a scope teardown failure is logged, not left as an unhandled rejection', async () => {
    const { lines, unhandled } = await scopeEndingWithCreator('agent:b', new Error('teardown broke'))
    expect(unhandled).to.deep.equal([])
    expect(lines).to.include('warn dsh-scope: scope "agent:b": a teardown failed while its creator was disposed: teardown broke')
  })
})

describe('dsh-scope: memos are released with their scope', () => {
  it('drops the memo of a disposed scope, so memo tables do not grow with scopes that come and go', async () => {
    const { host } = await bootApp()
    const layers = new StampedLayers<string>()
    const scopes = Array.from({ length: 50 }, () => createScope(host, {}))
    for (const scope of scopes) layers.memo([scope.key], () => 'view')
    expect(layers.memoStats()).to.deep.equal({ scopeMemos: 50 })
    await Promise.all(scopes.slice(0, 20).map((scope) => scope.dispose()))
    expect(layers.memoStats()).to.deep.equal({ scopeMemos: 30 })
    await Promise.all(scopes.map((scope) => scope.dispose()))
    expect(layers.memoStats()).to.deep.equal({ scopeMemos: 0 })
  })

  it('keeps counting a memo once when it is recomputed for the same scope', async () => {
    const { host } = await bootApp()
    const layers = new StampedLayers<string>()
    const scope = createScope(host, {})
    layers.memo([scope.key], () => 'first')
    layers.add(scope.key, 'a', 'x')
    expect(layers.memo([scope.key], () => 'second')).to.equal('second')
    expect(layers.memoStats()).to.deep.equal({ scopeMemos: 1 })
    await scope.dispose()
    expect(layers.memoStats()).to.deep.equal({ scopeMemos: 0 })
  })
})
