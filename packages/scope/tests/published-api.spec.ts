import { expect } from 'chai'
import { Context } from 'cordis'
import {
  bindScopeParent, carrierKeyOf, createScope, isScopeCarrier, parentOf, scopeChainOf, scopeParentOf, scopeTarget,
  type Scope,
} from 'dsh-scope'
import { bootApp, loadPlugin, promptText, thrown } from 'dsh-testing'

// The published dsh-scope calls a ported plugin or harness makes, each held to its published contract as
// docs/reference/scopes.md states it (R-SCOPE-14 to R-SCOPE-17). The stores have their own file.

const codeOf = (run: () => unknown) => (thrown(run) as Error & { code?: string }).code

describe('dsh-scope: the published parent binding (R-SCOPE-14)', () => {
  it('links a key to a parent before the key has a scope, and the scope made later inherits the link', async () => {
    const { host } = await bootApp()
    const preset = createScope(host, { preset: 'reviewer' })
    const agent = { agent: 'a1' }
    bindScopeParent(agent, preset.key)
    createScope(host, agent)
    expect(scopeChainOf(agent)).to.deep.equal([agent, preset.key])
    expect(scopeParentOf(agent)).to.equal(preset.key)
  })

  it('refuses a second bind of a bound key with SCOPE_PARENT_ALREADY_BOUND and keeps the first link', () => {
    const [key, first, second] = [{}, {}, {}]
    bindScopeParent(key, first)
    expect(codeOf(() => bindScopeParent(key, second))).to.equal('SCOPE_PARENT_ALREADY_BOUND')
    expect(codeOf(() => bindScopeParent(key, first))).to.equal('SCOPE_PARENT_ALREADY_BOUND')
    expect(scopeParentOf(key)).to.equal(first)
  })

  it('refuses to bind a key that got its parent from createScope, which hands out no binding', async () => {
    const { host } = await bootApp()
    const preset = createScope(host, {})
    const agent = createScope(host, {}, { parent: preset.key, label: 'agent:x' })
    const error = thrown(() => bindScopeParent(agent.key, {})) as Error & { code?: string; details?: unknown }
    expect(error.code).to.equal('SCOPE_PARENT_ALREADY_BOUND')
    expect(error.details).to.deep.equal({ label: 'agent:x' })
  })

  it('refuses a bind that would close a cycle, a key to itself included, and links nothing', () => {
    const [top, below] = [{}, {}]
    bindScopeParent(below, top)
    expect(codeOf(() => bindScopeParent(top, below))).to.equal('SCOPE_PARENT_CYCLE')
    expect(codeOf(() => bindScopeParent(top, top))).to.equal('SCOPE_PARENT_CYCLE')
    expect(scopeParentOf(top)).to.equal(undefined)
  })

  it('refuses a key or a parent that is not an object, as createScope does', () => {
    expect(codeOf(() => bindScopeParent({}, 'preset' as unknown as object))).to.equal('SCOPE_INVALID_KEY')
    expect(codeOf(() => bindScopeParent(7 as unknown as object, {}))).to.equal('SCOPE_INVALID_KEY')
  })

  it('moves the link through the binding: the next assembly sees the new parent\'s sections, not the old one\'s', async () => {
    const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false } })
    const [reviewer, writer] = [createScope(host, { preset: 'reviewer' }), createScope(host, { preset: 'writer' })]
    reviewer.ctx.systemPrompt.section({ name: 'role', order: 10, text: 'You review.' })
    writer.ctx.systemPrompt.section({ name: 'role', order: 10, text: 'You write.' })
    const agent = { agent: 'a1' }
    const binding = bindScopeParent(agent, reviewer.key)
    createScope(host, agent)
    expect(await promptText(host, { scope: agent })).to.equal('You review.')
    binding.rebind(writer.key)
    expect(await promptText(host, { scope: agent })).to.equal('You write.')
  })

  it('a rebind reaches the keys below the rebound one', async () => {
    const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false } })
    const [first, second] = [createScope(host, {}), createScope(host, {})]
    first.ctx.systemPrompt.section({ name: 'team', order: 10, text: 'first team' })
    second.ctx.systemPrompt.section({ name: 'team', order: 10, text: 'second team' })
    const lead = {}
    const binding = bindScopeParent(lead, first.key)
    const helper = createScope(host, {}, { parent: lead })
    expect(await promptText(host, { scope: helper.key })).to.equal('first team')
    binding.rebind(second.key)
    expect(await promptText(host, { scope: helper.key })).to.equal('second team')
    expect(scopeChainOf(helper.key)).to.deep.equal([helper.key, lead, second.key])
  })

  it('a rebind that would close a cycle is refused with SCOPE_PARENT_CYCLE and the old link stays', () => {
    const [preset, agent, child, other] = [{}, {}, {}, {}]
    const binding = bindScopeParent(agent, preset)
    bindScopeParent(child, agent)
    expect(codeOf(() => binding.rebind(child))).to.equal('SCOPE_PARENT_CYCLE')
    expect(codeOf(() => binding.rebind(agent))).to.equal('SCOPE_PARENT_CYCLE')
    expect(scopeParentOf(agent)).to.equal(preset)
    binding.rebind(other)
    expect(scopeParentOf(agent)).to.equal(other)
  })

  it('reads links without a context, and a link is the same in every app of the process', async () => {
    const one = await bootApp()
    const two = await bootApp()
    const [key, parent] = [{}, {}]
    bindScopeParent(key, parent)
    expect(scopeParentOf(key)).to.equal(parent)
    expect(parentOf(one.app, key)).to.equal(parent)
    expect(parentOf(two.app, key)).to.equal(parent)
    expect(scopeChainOf(undefined)).to.deep.equal([])
  })
})

describe('dsh-scope: scope carriers for Cordis dispatch (R-SCOPE-15)', () => {
  async function listeners() {
    const { app, host } = await bootApp()
    const preset = createScope(host, { id: 'preset' })
    const agent = createScope(host, { id: 'agent' }, { parent: preset.key })
    const child = createScope(host, { id: 'child' }, { parent: agent.key })
    const sibling = createScope(host, { id: 'sibling' }, { parent: preset.key })
    const heard: string[] = []
    app.on('test/plain', () => { heard.push('untagged') })
    for (const [name, scope] of [['preset', preset], ['agent', agent], ['child', child], ['sibling', sibling]] as const) {
      scope.ctx.on('test/plain', () => { heard.push(name) })
    }
    return { app, preset, agent, heard }
  }

  it('admits untagged listeners and those of the key and its ancestors, never a descendant\'s or a sibling\'s', async () => {
    const { app, agent, heard } = await listeners()
    app.emit(scopeTarget(app, agent.key), 'test/plain')
    expect(heard.sort()).to.deep.equal(['agent', 'preset', 'untagged'])
  })

  it('with no key admits untagged listeners only', async () => {
    const { app, heard } = await listeners()
    app.emit(scopeTarget(app, undefined), 'test/plain')
    expect(heard).to.deep.equal(['untagged'])
  })

  it('lets a { global: true } listener hear a dispatch for any key', async () => {
    const { app, host } = await bootApp()
    const scope = createScope(host, {})
    const heard: string[] = []
    scope.ctx.on('test/plain', () => { heard.push('global') }, { global: true })
    app.emit(scopeTarget(app, {}), 'test/plain')
    app.emit(scopeTarget(app, undefined), 'test/plain')
    expect(heard).to.deep.equal(['global', 'global'])
  })

  it('keeps the subject\'s own Cordis filter, called with the subject as `this`', async () => {
    const { app, agent, heard } = await listeners()
    const receivers: unknown[] = []
    const subject = {
      [Context.filter](this: unknown, ctx: Context) {
        receivers.push(this)
        return ctx === app
      },
    }
    app.emit(scopeTarget(subject, agent.key), 'test/plain')
    expect(heard).to.deep.equal(['untagged'])
    expect(receivers.length).to.be.greaterThan(0)
    expect(receivers.every((receiver) => receiver === subject)).to.equal(true)
  })

  it('is recognised as a carrier, with its key, and shows none of the subject\'s fields', () => {
    const key = {}
    const subject = { id: 'agent-1' }
    const carrier = scopeTarget(subject, key)
    expect(isScopeCarrier(carrier)).to.equal(true)
    expect(carrierKeyOf(carrier)).to.equal(key)
    expect(isScopeCarrier(subject)).to.equal(false)
    expect(carrierKeyOf(subject)).to.equal(undefined)
    expect(isScopeCarrier(scopeTarget(subject, undefined))).to.equal(true)
    expect(Object.keys(carrier)).to.deep.equal([])
  })
})

describe('dsh-scope: Scope.rawDispose (R-SCOPE-16)', () => {
  it('is the same function at every read, and calling it is calling dispose()', async () => {
    const { app, host } = await bootApp()
    const scope = createScope(host, {})
    expect(scope.rawDispose).to.equal(scope.rawDispose)
    const raw = scope.rawDispose()
    expect(scope.dispose()).to.equal(raw)
    await raw
    expect(createScope(app, scope.key)).to.be.an('object')
  })

  it('yielded from a composite effect, ends the scope at its place in the composite\'s teardown', async () => {
    const plugin = await loadPlugin(new Context(), 'composer')
    const order: string[] = []
    let scope!: Scope
    const dispose = plugin.ctx.effect(function* () {
      yield () => { order.push('before the scope') }
      scope = createScope(plugin.ctx, {})
      scope.ctx.effect(() => () => { order.push('scope') })
      yield scope.rawDispose
      yield () => { order.push('after the scope') }
    })
    await dispose()
    expect(order).to.deep.equal(['after the scope', 'scope', 'before the scope'])
  })

  it('waits, as dispose() does, for an asynchronous teardown in the scope', async () => {
    const { host } = await bootApp()
    const scope = createScope(host, {})
    let release!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    let done = false
    scope.ctx.effect(() => async () => {
      await gate
      done = true
    })
    const raw = scope.rawDispose()
    await Promise.resolve()
    expect(done).to.equal(false)
    release()
    await raw
    expect(done).to.equal(true)
  })
})
