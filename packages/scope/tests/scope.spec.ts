import { expect } from 'chai'
import { Context } from 'cordis'
import { createScope, scopeOf, scopeChain, setScopeParent, parentOf, isScopeActive } from 'dsh-scope'
import { pluginContext } from './helpers.js'

describe('dsh-scope: scopes', () => {
  it('tags the scope context and every context derived from it with the key', async () => {
    const app = new Context()
    const host = await pluginContext(app, 'host')
    const key = { id: 'a' }
    const scope = createScope(host, key)
    expect(scopeOf(scope.ctx)).to.equal(key)
    expect(scopeOf(scope.ctx.extend({}))).to.equal(key)
    expect(scopeOf(host)).to.equal(undefined)
  })
})
