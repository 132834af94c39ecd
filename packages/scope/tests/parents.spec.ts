import { expect } from 'chai'
import { createScope, isScopeActive, listenersFor, onScoped, parentOf, scopeChain, setScopeParent } from 'dsh-scope'
import { bootApp, thrown } from 'dsh-testing'

describe('dsh-scope: parent chains', () => {
  describe('scopeChain()', () => {
    it('lists the key, then its parent, then the grandparent (nearest first)', async () => {
      const { app, host } = await bootApp()
      const preset = createScope(host, { id: 'preset' })
      const agent = createScope(host, { id: 'agent' }, { parent: preset.key })
      const sub = createScope(host, { id: 'sub' }, { parent: agent.key })
      expect(scopeChain(app, sub.key)).to.deep.equal([sub.key, agent.key, preset.key])
      expect(scopeChain(app, sub.key)[0]).to.equal(sub.key)
      expect(scopeChain(app, agent.key)).to.deep.equal([agent.key, preset.key])
      expect(scopeChain(app, preset.key)).to.deep.equal([preset.key])
    })

    it('is empty for no scope (the global layer only)', async () => {
      const { app } = await bootApp()
      expect(scopeChain(app, undefined)).to.deep.equal([])
    })

    it('is the key alone for a key that has no parent link', async () => {
      const { app } = await bootApp()
      const key = {}
      expect(scopeChain(app, key)).to.deep.equal([key])
    })

    it('returns a fresh array each time', async () => {
      const { app, host } = await bootApp()
      const key = createScope(host, {}).key
      const chain = scopeChain(app, key)
      chain.push({})
      expect(scopeChain(app, key)).to.have.length(1)
    })

    it('keeps the links of a disposed middle scope, so its child still reaches the grandparent', async () => {
      const { app, host } = await bootApp()
      const grandparent = createScope(host, { id: 'g' })
      const middle = createScope(host, { id: 'm' }, { parent: grandparent.key })
      const child = createScope(host, { id: 'c' }, { parent: middle.key })
      const seen: string[] = []
      onScoped(grandparent.ctx, 'ev', () => seen.push('g'))
      await middle.dispose()
      expect(isScopeActive(app, middle.key)).to.equal(false)
      expect(scopeChain(app, child.key)).to.deep.equal([child.key, middle.key, grandparent.key])
      expect(parentOf(app, middle.key)).to.equal(grandparent.key)
      for (const listener of listenersFor(app, 'ev', child.key)) listener.callback()
      expect(seen).to.deep.equal(['g'])
    })

    it('keeps one relation per process: a link set through one app is the link in every app (issue 24)', async () => {
      const one = await bootApp()
      const two = await bootApp()
      const parent = {}
      const key = {}
      setScopeParent(one.app, key, parent)
      expect(scopeChain(one.app, key)).to.deep.equal([key, parent])
      expect(scopeChain(two.app, key)).to.deep.equal([key, parent])
      expect(() => setScopeParent(two.app, key, {})).to.throw('scope "scope" already has a parent; a parent link is set once')
    })
  })

  describe('parent links', () => {
    it('links through the createScope parent option', async () => {
      const { app, host } = await bootApp()
      const parent = createScope(host, {})
      const child = createScope(host, {}, { parent: parent.key })
      expect(parentOf(app, child.key)).to.equal(parent.key)
      expect(parentOf(app, parent.key)).to.equal(undefined)
    })

    it('links through setScopeParent, also to a key that has no live scope', async () => {
      const { app, host } = await bootApp()
      const child = createScope(host, {})
      const preset = { id: 'preset, never minted' }
      setScopeParent(app, child.key, preset)
      expect(parentOf(app, child.key)).to.equal(preset)
      expect(scopeChain(app, child.key)).to.deep.equal([child.key, preset])
    })

    it('does not link a scope created through another scope context by itself', async () => {
      const { app, host } = await bootApp()
      const outer = createScope(host, {})
      const nested = createScope(outer.ctx, {})
      expect(parentOf(app, nested.key)).to.equal(undefined)
      expect(scopeChain(app, nested.key)).to.deep.equal([nested.key])
    })

    it('treats setting the same parent again as a no-op', async () => {
      const { app, host } = await bootApp()
      const parent = createScope(host, {})
      const child = createScope(host, {}, { parent: parent.key })
      setScopeParent(app, child.key, parent.key)
      setScopeParent(app, child.key, parent.key)
      expect(scopeChain(app, child.key)).to.deep.equal([child.key, parent.key])
    })

    it('refuses a different parent once one is set, naming the scope by its label', async () => {
      const { app, host } = await bootApp()
      const parent = createScope(host, {})
      const other = createScope(host, {})
      const child = createScope(host, {}, { parent: parent.key, label: 'agent:child' })
      const error = thrown(() => setScopeParent(app, child.key, other.key))
      expect(error).to.be.instanceOf(Error)
      expect(error.message).to.equal('scope "agent:child" already has a parent; a parent link is set once')
      expect(parentOf(app, child.key)).to.equal(parent.key)
    })

    it('names a key that never had a scope "scope" in messages', async () => {
      const { app } = await bootApp()
      const key = {}
      setScopeParent(app, key, {})
      expect(() => setScopeParent(app, key, {})).to.throw('scope "scope" already has a parent; a parent link is set once')
    })

    it('keeps a link after the scope is disposed: minting the key again with another parent is refused', async () => {
      const { app, host } = await bootApp()
      const first = createScope(host, {})
      const second = createScope(host, {})
      const key = {}
      await createScope(host, key, { parent: first.key }).dispose()
      expect(() => createScope(host, key, { parent: second.key, label: 'again' }))
        .to.throw('scope "again" already has a parent; a parent link is set once')
      expect(isScopeActive(app, key)).to.equal(false)
      // The same parent is fine, and so is no parent option (the old link still applies).
      const again = createScope(host, key, { parent: first.key })
      expect(scopeChain(app, again.key)).to.deep.equal([key, first.key])
    })

    it('refuses a non-object parent in setScopeParent', async () => {
      const { app } = await bootApp()
      const error = thrown(() => setScopeParent(app, {}, 3 as unknown as object))
      expect(error).to.be.instanceOf(TypeError)
      expect(error.message).to.equal('scope key must be an object or a function (compared by identity), received number')
    })
  })

  describe('cycles', () => {
    const cycle = (label: string) => `scope "${label}" cannot take this parent: the parent chain would form a cycle`

    it('refuses a scope as its own parent through createScope, creating nothing', async () => {
      const { app, host } = await bootApp()
      const key = {}
      expect(() => createScope(host, key, { parent: key, label: 'self' })).to.throw(cycle('self'))
      expect(isScopeActive(app, key)).to.equal(false)
      expect(parentOf(app, key)).to.equal(undefined)
    })

    it('refuses a scope as its own parent through setScopeParent', async () => {
      const { app, host } = await bootApp()
      const scope = createScope(host, {}, { label: 'self' })
      expect(() => setScopeParent(app, scope.key, scope.key)).to.throw(cycle('self'))
      expect(scopeChain(app, scope.key)).to.deep.equal([scope.key])
    })

    it('refuses a two-scope cycle', async () => {
      const { app, host } = await bootApp()
      const a = createScope(host, {}, { label: 'a' })
      const b = createScope(host, {}, { label: 'b', parent: a.key })
      const error = thrown(() => setScopeParent(app, a.key, b.key))
      expect(error.message).to.equal(cycle('a'))
      expect(scopeChain(app, b.key)).to.deep.equal([b.key, a.key])
      expect(parentOf(app, a.key)).to.equal(undefined)
    })

    it('refuses a longer cycle through keys with and without live scopes', async () => {
      const { app, host } = await bootApp()
      const a = createScope(host, {}, { label: 'a' })
      const b = createScope(host, {}, { label: 'b', parent: a.key })
      const c = {} // never minted
      setScopeParent(app, c, b.key)
      const d = createScope(host, {}, { label: 'd', parent: c })
      expect(() => setScopeParent(app, a.key, d.key)).to.throw(cycle('a'))
      expect(scopeChain(app, d.key)).to.deep.equal([d.key, c, b.key, a.key])
    })

    it('lets two children share one parent', async () => {
      const { app, host } = await bootApp()
      const root = createScope(host, {})
      const left = createScope(host, {}, { parent: root.key })
      const right = createScope(host, {}, { parent: root.key })
      expect(scopeChain(app, left.key)).to.deep.equal([left.key, root.key])
      expect(scopeChain(app, right.key)).to.deep.equal([right.key, root.key])
    })
  })
})
