import { expect } from 'chai'
import { bindScopeParent, createScope, ownEffect, ScopeErrors, setScopeParent } from 'dsh-scope'
import { bootApp, rejection, thrown } from 'dsh-testing'
import { scopeEndingWithCreator } from './helpers.js'

/** The code, details and message of an error, to compare in one assertion. */
function described(error: Error & { code?: unknown; details?: unknown }) {
  return { name: error.name, code: error.code, details: error.details, message: error.message }
}

describe('dsh-scope: errors carry a stable code and the fields they are about', () => {
  it('SCOPE_ALREADY_ACTIVE names the live scope\'s label', async () => {
    const { host } = await bootApp()
    const key = {}
    createScope(host, key, { label: 'agent:first' })
    expect(described(thrown(() => createScope(host, key, { label: 'agent:second' })))).to.deep.equal({
      name: 'Error', code: 'SCOPE_ALREADY_ACTIVE', details: { label: 'agent:first' },
      message: 'scope "agent:first" is already active for this key',
    })
  })

  it('SCOPE_PARENT_ALREADY_SET names the scope whose link is set', async () => {
    const { host } = await bootApp()
    const child = createScope(host, {}, { label: 'agent:child', parent: {} })
    expect(described(thrown(() => setScopeParent(host, child.key, {})))).to.deep.equal({
      name: 'Error', code: 'SCOPE_PARENT_ALREADY_SET', details: { label: 'agent:child' },
      message: 'scope "agent:child" already has a parent; a parent link is set once',
    })
  })

  it('SCOPE_PARENT_ALREADY_BOUND names the scope a second bind tried to link', async () => {
    const { host } = await bootApp()
    const child = createScope(host, {}, { label: 'agent:bound' })
    bindScopeParent(child.key, {})
    expect(described(thrown(() => bindScopeParent(child.key, {})))).to.deep.equal({
      name: 'Error', code: 'SCOPE_PARENT_ALREADY_BOUND', details: { label: 'agent:bound' },
      message: 'scope "agent:bound" is already bound to a parent; only the binding returned by its first bindScopeParent can rebind it',
    })
  })

  it('SCOPE_PARENT_CYCLE names the scope that would become its own ancestor', async () => {
    const { host } = await bootApp()
    const top = createScope(host, {}, { label: 'preset:top' })
    const below = createScope(host, {}, { label: 'agent:below', parent: top.key })
    expect(described(thrown(() => setScopeParent(host, top.key, below.key)))).to.deep.equal({
      name: 'Error', code: 'SCOPE_PARENT_CYCLE', details: { label: 'preset:top' },
      message: 'scope "preset:top" cannot take this parent: the parent chain would form a cycle',
    })
  })

  it('SCOPE_INVALID_KEY is a TypeError with the type it received', async () => {
    const { host } = await bootApp()
    const error = thrown(() => createScope(host, 'agent' as unknown as object), TypeError)
    expect(described(error)).to.deep.equal({
      name: 'TypeError', code: 'SCOPE_INVALID_KEY', details: { received: 'string' },
      message: 'scope key must be an object or a function (compared by identity), received string',
    })
    expect(ScopeErrors.invalidScopeKey(null).details).to.deep.equal({ received: 'null' })
  })

  it('SCOPE_DISPOSED names the disposed scope', async () => {
    const { host } = await bootApp()
    const scope = createScope(host, {}, { label: 'agent:gone' })
    await scope.dispose()
    expect(described(thrown(() => ownEffect(scope.ctx, () => {})))).to.deep.equal({
      name: 'Error', code: 'SCOPE_DISPOSED', details: { label: 'agent:gone' },
      message: 'scope "agent:gone" has been disposed; nothing more can be registered through its context',
    })
  })

  it('SCOPE_TEARDOWNS_FAILED is the AggregateError of several failing teardowns, with their count', async () => {
    const { host } = await bootApp()
    const scope = createScope(host, {})
    ownEffect(scope.ctx, () => { throw new Error('one') })
    scope.ctx.effect(() => () => {})
    ownEffect(scope.ctx, () => { throw new Error('two') })
    const error = await rejection(scope.dispose(), AggregateError)
    expect(described(error)).to.deep.equal({
      name: 'AggregateError', code: 'SCOPE_TEARDOWNS_FAILED', details: { count: 2 }, message: '2 teardowns failed',
    })
    expect(error.errors.map((e: Error) => e.message)).to.deep.equal(['two', 'one'])
  })

  it('SCOPE_TEARDOWN_FAILED is a warning object whose message is the logged line', async () => {
    const failure = new Error('teardown broke')
    const { lines } = await scopeEndingWithCreator('agent:b', failure)
    const warning = ScopeErrors.teardownFailed('agent:b', failure)
    expect(warning).to.deep.equal({
      code: 'SCOPE_TEARDOWN_FAILED', details: { label: 'agent:b', error: failure },
      message: 'scope "agent:b": a teardown failed while its creator was disposed: teardown broke',
    })
    expect(lines).to.include(`warn dsh-scope: ${warning.message}`)
    expect(ScopeErrors.teardownFailed('x', 'text').message).to.equal('scope "x": a teardown failed while its creator was disposed: text')
  })

  it('logs SCOPE_TEARDOWN_FAILED verbatim, even when the label or the error holds a %', async () => {
    const { lines } = await scopeEndingWithCreator('agent:100%s', new Error('at 50%d'))
    expect(lines).to.include('warn dsh-scope: scope "agent:100%s": a teardown failed while its creator was disposed: at 50%d')
  })
})
