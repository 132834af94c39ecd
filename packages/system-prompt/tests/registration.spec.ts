import { expect } from 'chai'
import { Context } from 'cordis'
import { bootApp, describeChanges, ownSections, pluginContext, promptText, recordChanges, scope, snapshotText } from 'dsh-testing'
import { BARE, sectionTexts, toolNames } from './helpers.js'

describe('dsh-system-prompt: registration and disposal', () => {
  let app: Context
  let host: Context
  beforeEach(async () => { ({ app, host } = await bootApp({ systemPrompt: BARE })) })

  it('a section registered through a plugin context appears in the global assembly', async () => {
    const plugin = await pluginContext(app, 'docs', ['systemPrompt'])
    plugin.systemPrompt.section({ name: 'docs:intro', order: 10, text: 'Read the docs.' })
    const assembly = await app.systemPrompt.assemble()
    expect(ownSections(assembly)).to.deep.equal(['docs:intro'])
    expect(assembly.sections.find((s) => s.name === 'docs:intro')).to.include({ order: 10, text: 'Read the docs.', owner: 'docs' })
  })

  it('a text provider is evaluated at every assembly with that assembly\'s context', async () => {
    const plugin = await pluginContext(app, 'clock', ['systemPrompt'])
    let tick = 0
    const seen: unknown[] = []
    plugin.systemPrompt.section({ name: 'tick', order: 1, text: (context) => { seen.push(context); return `tick ${++tick}` } })
    const context = { signal: new AbortController().signal }
    expect(await promptText(app, context)).to.equal('tick 1')
    expect(await promptText(app)).to.equal('tick 2')
    expect(seen[0]).to.equal(context)
  })

  it('disposing the plugin removes every registration it made', async () => {
    const plugin = await pluginContext(app, 'bundle', ['systemPrompt'])
    plugin.systemPrompt.section({ name: 's', order: 1, text: 'S' })
    plugin.systemPrompt.context({ name: 'c', order: 1, text: 'C' })
    plugin.systemPrompt.variable('v', () => 'V')
    plugin.systemPrompt.tools(() => ({ schemas: [{ name: 't' }] }))
    const before = app.systemPrompt.stats().entries
    await plugin.fiber.dispose()
    const assembly = await app.systemPrompt.assemble()
    expect(ownSections(assembly)).to.deep.equal([])
    expect(assembly.contexts).to.deep.equal([])
    expect(assembly.variables).to.deep.equal({})
    expect(assembly.tools).to.deep.equal([])
    expect(app.systemPrompt.stats().entries).to.equal(before - 4)
  })

  it('a section registered through a scope context is owned by the scope and removed when the scope is disposed', async () => {
    const agent = scope(host, 'agent')
    agent.ctx.systemPrompt.section({ name: 'agent:role', order: 5, text: 'You review code.' })
    expect(await promptText(app, { scope: agent.key })).to.equal('You review code.')
    const [section] = (await app.systemPrompt.assemble({ scope: agent.key })).sections.filter((s) => s.name === 'agent:role')
    expect(section.scope).to.equal(agent.key)
    await agent.dispose()
    expect(await promptText(app, { scope: agent.key })).to.equal('')
    expect(app.systemPrompt.stats().scopeLayers).to.equal(0)
  })

  it('disposing the host plugin disposes its scopes and their registrations', async () => {
    const agent = scope(host, 'agent')
    agent.ctx.systemPrompt.section({ name: 'agent:role', order: 5, text: 'R' })
    await host.fiber.dispose()
    expect(await promptText(app, { scope: agent.key })).to.equal('')
    expect(app.systemPrompt.stats().scopeLayers).to.equal(0)
  })

  it('the disposer returned by section() removes that section only', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    const dispose = plugin.systemPrompt.section({ name: 'a', order: 1, text: 'A' })
    plugin.systemPrompt.section({ name: 'b', order: 2, text: 'B' })
    dispose()
    expect(ownSections(await app.systemPrompt.assemble())).to.deep.equal(['b'])
  })

  it('a disposer called twice does not remove a later registration of the same name', async () => {
    const first = await pluginContext(app, 'first', ['systemPrompt'])
    const second = await pluginContext(app, 'second', ['systemPrompt'])
    const dispose = first.systemPrompt.section({ name: 'a', order: 1, text: 'first' })
    dispose()
    second.systemPrompt.section({ name: 'a', order: 1, text: 'second' })
    dispose()
    expect(await promptText(app)).to.equal('second')
  })

  it('every registration method returns an idempotent disposer', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    const base = app.systemPrompt.stats().entries
    const disposers = [
      plugin.systemPrompt.section({ name: 's', order: 1, text: 'S' }),
      plugin.systemPrompt.context({ name: 'c', order: 1, text: 'C' }),
      plugin.systemPrompt.variable('v', () => 'V'),
      plugin.systemPrompt.tools(() => ({ schemas: [{ name: 't' }] })),
      plugin.systemPrompt.suppressRuntimeContext(),
    ]
    expect(app.systemPrompt.stats().entries).to.equal(base + 5)
    for (const dispose of disposers) {
      expect(dispose).to.be.a('function')
      dispose()
      dispose()
    }
    expect(app.systemPrompt.stats().entries).to.equal(base)
    const assembly = await app.systemPrompt.assemble()
    expect([ownSections(assembly), assembly.contexts, assembly.variables, assembly.tools]).to.deep.equal([[], [], {}, []])
  })

  it('a name is free again once its registration is disposed', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    plugin.systemPrompt.section({ name: 'a', order: 1, text: 'old' })()
    plugin.systemPrompt.section({ name: 'a', order: 1, text: 'new' })
    expect(await promptText(app)).to.equal('new')
  })

  it('a section and a context may share a name: the kinds have separate name spaces', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    plugin.systemPrompt.section({ name: 'x', order: 1, text: 'section' })
    plugin.systemPrompt.context({ name: 'x', order: 1, text: 'context' })
    plugin.systemPrompt.variable('x', () => 'variable')
    expect(await promptText(app)).to.equal('section')
    expect(await snapshotText(app)).to.match(/\n\ncontext$/)
  })

  it('registering through a disposed plugin context throws and registers nothing', async () => {
    const plugin = await pluginContext(app, 'gone', ['systemPrompt'])
    await plugin.fiber.dispose()
    const stats = app.systemPrompt.stats()
    const events = recordChanges(app)
    expect(() => plugin.systemPrompt.section({ name: 'late', order: 1, text: 'late' })).to.throw()
    expect(app.systemPrompt.stats()).to.deep.equal(stats)
    expect(events).to.deep.equal([])
  })

  it('registering through a disposed scope context throws and registers nothing', async () => {
    const agent = scope(host, 'agent')
    await agent.dispose()
    const stats = app.systemPrompt.stats()
    expect(() => agent.ctx.systemPrompt.section({ name: 'late', order: 1, text: 'late' })).to.throw()
    expect(() => agent.ctx.systemPrompt.tools(() => ({ schemas: [] }))).to.throw()
    expect(app.systemPrompt.stats()).to.deep.equal(stats)
    expect(await promptText(app, { scope: agent.key })).to.equal('')
  })

  it('registrations made through the root context land in the global layer', async () => {
    app.systemPrompt.section({ name: 'root', order: 1, text: 'R' })
    const agent = scope(host, 'agent')
    expect(sectionTexts(await app.systemPrompt.assemble({ scope: agent.key }))).to.include('root=R')
  })

  describe('system-prompt/change', () => {
    it('is emitted with kind, action, name and owner on registration and on disposal', async () => {
      const events = recordChanges(app)
      const plugin = await pluginContext(app, 'docs', ['systemPrompt'])
      const dispose = plugin.systemPrompt.section({ name: 'docs:intro', order: 1, text: 'T' })
      expect(events).to.deep.equal([{ kind: 'section', action: 'register', name: 'docs:intro', owner: 'docs' }])
      dispose()
      expect(events[1]).to.deep.equal({ kind: 'section', action: 'dispose', name: 'docs:intro', owner: 'docs' })
      expect(events).to.have.length(2)
    })

    it('carries the scope key for a scoped registration', async () => {
      const events = recordChanges(app)
      const agent = scope(host, 'agent')
      agent.ctx.systemPrompt.variable('role', () => 'r')
      expect(events).to.have.length(1)
      expect(events[0].scope).to.equal(agent.key)
      expect(events[0]).to.include({ kind: 'variable', action: 'register', name: 'role', owner: 'agent' })
    })

    it('names the kind of every registration method', async () => {
      const events = recordChanges(app)
      const plugin = await pluginContext(app, 'p', ['systemPrompt'])
      plugin.systemPrompt.section({ name: 's', order: 1, text: '' })
      plugin.systemPrompt.context({ name: 'c', order: 1, text: '' })
      plugin.systemPrompt.variable('v', () => undefined)
      plugin.systemPrompt.tools(() => ({ schemas: [] }))
      plugin.systemPrompt.suppressRuntimeContext()
      expect(describeChanges(events)).to.deep.equal([
        'section register s', 'context register c', 'variable register v', 'tools register', 'suppress-runtime-context register',
      ])
    })

    it('is emitted once per registration when a plugin is disposed, and not again by its disposers', async () => {
      const plugin = await pluginContext(app, 'p', ['systemPrompt'])
      const disposeA = plugin.systemPrompt.section({ name: 'a', order: 1, text: 'A' })
      plugin.systemPrompt.context({ name: 'b', order: 1, text: 'B' })
      const events = recordChanges(app)
      await plugin.fiber.dispose()
      disposeA()
      expect(describeChanges(events).sort()).to.deep.equal(['context dispose b', 'section dispose a'])
    })

    it('is emitted for each registration when a scope is disposed', async () => {
      const agent = scope(host, 'agent')
      agent.ctx.systemPrompt.section({ name: 'a', order: 1, text: 'A' })
      agent.ctx.systemPrompt.tools(() => ({ schemas: [] }))
      const events = recordChanges(app)
      await agent.dispose()
      await agent.dispose()
      expect(describeChanges(events).sort()).to.deep.equal(['section dispose a', 'tools dispose'])
      expect(events.every((e) => e.scope === agent.key)).to.equal(true)
    })

    it('is not emitted for a failed registration', async () => {
      const plugin = await pluginContext(app, 'p', ['systemPrompt'])
      plugin.systemPrompt.section({ name: 'a', order: 1, text: 'A' })
      const events = recordChanges(app)
      expect(() => plugin.systemPrompt.section({ name: 'a', order: 2, text: 'again' })).to.throw()
      expect(() => plugin.systemPrompt.section({ name: 'b', order: NaN, text: 'B' })).to.throw()
      expect(() => plugin.systemPrompt.variable('Bad', () => 'x')).to.throw()
      expect(events).to.deep.equal([])
    })
  })

  it('tools registered through a plugin are consulted while it lives', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'read' }] }))
    expect(toolNames(await app.systemPrompt.assemble())).to.deep.equal(['read'])
    await plugin.fiber.dispose()
    expect(toolNames(await app.systemPrompt.assemble())).to.deep.equal([])
  })
})
