import { expect } from 'chai'
import { Context } from 'cordis'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import { bootApp, describeChanges, recordChanges, rejection, scope, thrown, tool } from 'dsh-testing'
import { stats, toolNames } from './helpers.js'

describe('dsh-tools: restrictions', () => {
  let app: Context
  let host: Context
  beforeEach(async () => {
    ({ app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true }))
    for (const name of ['bash', 'grep', 'read', 'write']) host.tools.register(tool(name))
  })

  it('deny hides the listed tools from the scope and its descendants, not from the global layer or a sibling', async () => {
    const agent = scope(host, 'agent')
    const child = scope(host, 'child', agent.key)
    const sibling = scope(host, 'sibling')
    agent.ctx.tools.restrict({ deny: ['bash', 'write'] })
    expect(await toolNames(app, agent.key)).to.deep.equal(['grep', 'read'])
    expect(await toolNames(app, child.key)).to.deep.equal(['grep', 'read'])
    expect(await toolNames(app, sibling.key)).to.deep.equal(['bash', 'grep', 'read', 'write'])
    expect(await toolNames(app)).to.deep.equal(['bash', 'grep', 'read', 'write'])
  })

  it('allow keeps only the listed tools', async () => {
    const agent = scope(host, 'agent')
    agent.ctx.tools.restrict({ allow: ['read', 'grep'] })
    expect(await toolNames(app, agent.key)).to.deep.equal(['grep', 'read'])
  })

  it('an empty allow list hides every inherited tool', async () => {
    const agent = scope(host, 'agent')
    agent.ctx.tools.restrict({ allow: [] })
    expect(await toolNames(app, agent.key)).to.deep.equal([])
    const request = await app.systemPrompt.assemble({ scope: agent.key })
    expect(request.tools).to.deep.equal([])
  })

  it('two restrictions in one scope intersect', async () => {
    const agent = scope(host, 'agent')
    agent.ctx.tools.restrict({ allow: ['bash', 'read', 'write'] })
    agent.ctx.tools.restrict({ allow: ['read', 'write', 'grep'] })
    agent.ctx.tools.restrict({ deny: ['write'] })
    expect(await toolNames(app, agent.key)).to.deep.equal(['read'])
  })

  it('a parent scope\'s restriction and the child\'s own intersect', async () => {
    const preset = scope(host, 'preset')
    const agent = scope(host, 'agent', preset.key)
    preset.ctx.tools.restrict({ allow: ['bash', 'read', 'grep'] })
    agent.ctx.tools.restrict({ deny: ['bash'] })
    expect(await toolNames(app, preset.key)).to.deep.equal(['bash', 'grep', 'read'])
    expect(await toolNames(app, agent.key)).to.deep.equal(['grep', 'read'])
  })

  it('filters what the scope inherits: tools the scope or its descendants register themselves stay visible', async () => {
    const preset = scope(host, 'preset')
    const agent = scope(host, 'agent', preset.key)
    preset.ctx.tools.restrict({ allow: ['read'] })
    preset.ctx.tools.register(tool('review'))
    agent.ctx.tools.register(tool('notes'))
    expect(await toolNames(app, preset.key)).to.deep.equal(['read', 'review'])
    expect(await toolNames(app, agent.key)).to.deep.equal(['notes', 'read', 'review'])
  })

  it('a scope that shadows an inherited tool keeps its own version visible under its parent\'s deny', async () => {
    const preset = scope(host, 'preset')
    const agent = scope(host, 'agent', preset.key)
    preset.ctx.tools.restrict({ deny: ['bash'] })
    agent.ctx.tools.register(tool('bash', { description: 'A sandboxed shell.' }))
    expect((await app.systemPrompt.assemble({ scope: agent.key })).tools.map((t) => `${t.name}: ${t.description}`))
      .to.deep.equal(['bash: A sandboxed shell.', 'grep: The grep tool.', 'read: The read tool.', 'write: The write tool.'])
    expect(await toolNames(app, preset.key)).to.deep.equal(['grep', 'read', 'write'])
  })

  it('get() finds a visible tool for a scope and nothing for a hidden one', () => {
    const agent = scope(host, 'agent')
    agent.ctx.tools.restrict({ deny: ['bash'] })
    expect(app.tools.get('bash', agent.key)).to.equal(undefined)
    expect(app.tools.get('read', agent.key)?.name).to.equal('read')
    expect(app.tools.get('bash')?.name).to.equal('bash')
  })

  it('reports the pre-restriction universe as knownNames, so a toolOrder naming a denied tool still validates', async () => {
    ({ app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, toolOrder: ['write', 'bash', TOOL_ORDER_REST] }, tools: true }))
    for (const name of ['bash', 'grep', 'read', 'write']) host.tools.register(tool(name))
    const agent = scope(host, 'agent')
    agent.ctx.tools.restrict({ deny: ['bash'] })
    expect(app.tools.view(agent.key).known).to.deep.equal(['bash', 'grep', 'read', 'write'])
    expect(await toolNames(app, agent.key)).to.deep.equal(['write', 'grep', 'read'])
    expect(await toolNames(app)).to.deep.equal(['write', 'bash', 'grep', 'read'])
  })

  it('a toolOrder naming a tool no provider knows still rejects, listing the known tools including the denied one', async () => {
    ({ app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, toolOrder: ['browser', TOOL_ORDER_REST] }, tools: true }))
    host.tools.register(tool('bash'))
    host.tools.register(tool('read'))
    const agent = scope(host, 'agent')
    agent.ctx.tools.restrict({ deny: ['bash'] })
    const error = await rejection(app.systemPrompt.assemble({ scope: agent.key }))
    expect(error.message).to.equal('toolOrder lists unregistered tool "browser"; known tools: bash, read')
  })

  it('the returned disposer lifts the restriction and emits tools/change', async () => {
    const agent = scope(host, 'agent')
    const events = recordChanges(app, 'tools/change')
    const lift = agent.ctx.tools.restrict({ deny: ['bash'] })
    lift()
    lift()
    expect(await toolNames(app, agent.key)).to.deep.equal(['bash', 'grep', 'read', 'write'])
    expect(describeChanges(events)).to.deep.equal(['restriction register', 'restriction dispose'])
  })

  it('disposing the scope removes its restrictions and reclaims the layer', async () => {
    const baseline = stats(app)
    const agent = scope(host, 'agent')
    agent.ctx.tools.restrict({ deny: ['bash'] })
    agent.ctx.tools.restrict({ allow: ['read'] })
    expect(app.tools.stats().scopeLayers).to.equal(1)
    await agent.dispose()
    expect(stats(app)).to.deep.equal(baseline)
  })

  describe('bad restrictions change nothing', () => {
    /** Runs `restrict`, expects `message`, and proves nothing changed. */
    async function refused(restrict: () => unknown, message: string, key?: object): Promise<void> {
      const before = stats(app)
      const events = recordChanges(app, 'tools/change')
      expect(thrown(restrict).message).to.equal(message)
      expect(stats(app)).to.deep.equal(before)
      expect(describeChanges(events)).to.deep.equal([])
      expect(await toolNames(app, key)).to.deep.equal(['bash', 'grep', 'read', 'write'])
    }

    it('refuses a restriction through a plugin (global) context', () => refused(
      () => host.tools.restrict({ deny: ['bash'] }),
      'tools.restrict() needs a scoped context (an agent\'s or a preset\'s ctx): a restriction through a global context would hide tools from every agent',
    ))

    it('refuses a restriction through the root context', () => refused(
      () => app.tools.restrict({ allow: ['read'] }),
      'tools.restrict() needs a scoped context (an agent\'s or a preset\'s ctx): a restriction through a global context would hide tools from every agent',
    ))

    it('refuses one unknown name, listing the known ones', () => {
      const agent = scope(host, 'agent')
      return refused(() => agent.ctx.tools.restrict({ deny: ['browser'] }),
        'tools.restrict() names unknown tool "browser"; known tools: bash, grep, read, write', agent.key)
    })

    it('refuses several unknown names across allow and deny, each once', () => {
      const agent = scope(host, 'agent')
      return refused(() => agent.ctx.tools.restrict({ allow: ['read', 'browser', 'Read'], deny: ['browser'] }),
        'tools.restrict() names unknown tools "browser", "Read"; known tools: bash, grep, read, write', agent.key)
    })

    it('refuses a name that only a sibling scope knows', () => {
      const agent = scope(host, 'agent')
      const sibling = scope(host, 'sibling')
      sibling.ctx.tools.register(tool('notes'))
      return refused(() => agent.ctx.tools.restrict({ deny: ['notes'] }),
        'tools.restrict() names unknown tool "notes"; known tools: bash, grep, read, write', agent.key)
    })

    it('refuses a name the scope registers itself (a restriction filters only what the scope inherits)', async () => {
      const agent = scope(host, 'agent')
      agent.ctx.tools.register(tool('notes'))
      const before = stats(app)
      expect(thrown(() => agent.ctx.tools.restrict({ deny: ['notes'] })).message)
        .to.equal('tools.restrict() names unknown tool "notes"; known tools: bash, grep, read, write')
      expect(stats(app)).to.deep.equal(before)
      expect(await toolNames(app, agent.key)).to.deep.equal(['bash', 'grep', 'notes', 'read', 'write'])
    })

    it('lists "(none)" when the scope inherits no tool', async () => {
      ({ app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true }))
      const agent = scope(host, 'agent')
      const before = stats(app)
      expect(thrown(() => agent.ctx.tools.restrict({ allow: ['read'] })).message)
        .to.equal('tools.restrict() names unknown tool "read"; known tools: (none)')
      expect(stats(app)).to.deep.equal(before)
    })

    it('refuses a restriction with neither list', () => {
      const agent = scope(host, 'agent')
      return refused(() => agent.ctx.tools.restrict({}), 'tools.restrict() needs an allow list or a non-empty deny list', agent.key)
    })

    it('refuses a list that is not an array of names', () => {
      const agent = scope(host, 'agent')
      return refused(() => agent.ctx.tools.restrict({ allow: 'read' as never }), 'tools.restrict() allow must be an array of tool names', agent.key)
    })
  })
})
