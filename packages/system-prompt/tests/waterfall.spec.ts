import { expect } from 'chai'
import { Context } from 'cordis'
import type { ScopeHandle, ScopeKey } from 'dsh-scope'
import { renderPrompt, type AssembleListener, type PromptAssembly } from 'dsh-system-prompt'
import { bootApp, ownSections, pluginContext, promptText, scope } from 'dsh-testing'
import { BARE, sectionNames, toolNames } from './helpers.js'

describe('dsh-system-prompt: the system-prompt/assemble waterfall', () => {
  let app: Context
  let host: Context
  let preset: ScopeHandle
  let agent: ScopeHandle
  let sibling: ScopeHandle
  let sub: ScopeHandle

  beforeEach(async () => {
    ({ app, host } = await bootApp({ systemPrompt: BARE }))
    preset = scope(host, 'preset')
    agent = scope(host, 'agent', preset.key)
    sibling = scope(host, 'sibling', preset.key)
    sub = scope(host, 'sub-agent', agent.key)
  })

  /** Registers a listener through `ctx` that records the scope of each assembly it sees. */
  function spy(ctx: Context, options?: { global?: boolean; prepend?: boolean }): Array<ScopeKey | undefined> {
    const seen: Array<ScopeKey | undefined> = []
    ctx.on('system-prompt/assemble', (assembly, context, next) => { seen.push(context.scope); return next() }, options)
    return seen
  }

  async function assembleAll() {
    for (const key of [undefined, preset.key, agent.key, sibling.key, sub.key]) await app.systemPrompt.assemble({ scope: key })
  }

  describe('admission by scope', () => {
    it('a listener registered through an untagged plugin context sees every assembly', async () => {
      const plugin = await pluginContext(app, 'watcher', ['systemPrompt'])
      const seen = spy(plugin)
      await assembleAll()
      expect(seen).to.deep.equal([undefined, preset.key, agent.key, sibling.key, sub.key])
    })

    it('a listener registered through a scope sees that scope\'s and its descendants\' assemblies only', async () => {
      const seen = spy(agent.ctx)
      await assembleAll()
      expect(seen).to.deep.equal([agent.key, sub.key])
    })

    it('a listener registered through a preset scope sees the preset and every agent under it, not the global assembly', async () => {
      const seen = spy(preset.ctx)
      await assembleAll()
      expect(seen).to.deep.equal([preset.key, agent.key, sibling.key, sub.key])
    })

    it('a listener registered through a scope with { global: true } sees every assembly', async () => {
      const seen = spy(sibling.ctx, { global: true })
      await assembleAll()
      expect(seen).to.deep.equal([undefined, preset.key, agent.key, sibling.key, sub.key])
    })

    it('a listener of a plugin loaded through a scope context is admitted like the scope', async () => {
      const inner = await pluginContext(sibling.ctx, 'sibling-plugin', ['systemPrompt'])
      const seen = spy(inner)
      await assembleAll()
      expect(seen).to.deep.equal([sibling.key])
    })
  })

  it('receives the assembly and the assemble context', async () => {
    host.systemPrompt.section({ name: 's', order: 1, text: 'S' })
    let received: [PromptAssembly, unknown] | undefined
    host.on('system-prompt/assemble', (assembly, context, next) => { received = [assembly, context]; return next() })
    const context = { scope: agent.key, signal: new AbortController().signal }
    await app.systemPrompt.assemble(context)
    expect(received![1]).to.equal(context)
    expect(ownSections(received![0])).to.deep.equal(['s'])
  })

  it('returns the listener\'s result: a listener may replace the whole assembly', async () => {
    host.systemPrompt.section({ name: 's', order: 1, text: 'S' })
    const replacement: PromptAssembly = {
      sections: [{ name: 'only', order: 0, text: 'Only {{x}}.' }], contexts: [], tools: [{ name: 'tool' }], variables: { x: 'this' },
    }
    host.on('system-prompt/assemble', () => replacement)
    const assembly = await app.systemPrompt.assemble()
    expect(renderPrompt(assembly)).to.equal('Only this.')
    expect(toolNames(assembly)).to.deep.equal(['tool'])
  })

  it('a listener that returns next() lets the assembly through unchanged', async () => {
    host.systemPrompt.section({ name: 's', order: 1, text: 'S' })
    host.on('system-prompt/assemble', (_assembly, _context, next) => next())
    expect(await promptText(app)).to.equal('S')
  })

  it('a listener may change the assembly it was given and return it', async () => {
    host.systemPrompt.section({ name: 's', order: 1, text: 'S' })
    host.on('system-prompt/assemble', (assembly) => {
      assembly.sections = assembly.sections.filter((s) => s.name !== 's')
      assembly.sections.push({ name: 'added', order: 2, text: 'Added {{v}}.' })
      assembly.variables.v = 'value'
      return assembly
    })
    expect(await promptText(app)).to.equal('Added value.')
  })

  it('next(replacement) hands the replacement to the later listeners and returns their result', async () => {
    host.systemPrompt.section({ name: 's', order: 1, text: 'S' })
    const laterSaw: string[][] = []
    host.on('system-prompt/assemble', (assembly, _context, next) =>
      next({ ...assembly, sections: [{ name: 'swapped', order: 0, text: 'Swapped.' }] }))
    host.on('system-prompt/assemble', (assembly, _context, next) => { laterSaw.push(sectionNames(assembly)); return next() })
    expect(await promptText(app)).to.equal('Swapped.')
    expect(laterSaw).to.deep.equal([['swapped']])
  })

  it('a listener may post-process what next() returns', async () => {
    host.on('system-prompt/assemble', async (_assembly, _context, next) => {
      const result = await next()
      return { ...result, sections: [...result.sections, { name: 'outer', order: 0, text: 'outer' }] }
    })
    host.on('system-prompt/assemble', (assembly) => ({ ...assembly, sections: [{ name: 'inner', order: 0, text: 'inner' }] }))
    expect(await promptText(app)).to.equal('inner\n\nouter')
  })

  it('a listener that returns without calling next() ends the waterfall', async () => {
    const calls: string[] = []
    host.on('system-prompt/assemble', (assembly) => { calls.push('first'); return assembly })
    host.on('system-prompt/assemble', (_assembly, _context, next) => { calls.push('second'); return next() })
    await app.systemPrompt.assemble()
    expect(calls).to.deep.equal(['first'])
  })

  it('runs listeners in registration order across plugins and scopes, prepended ones first', async () => {
    const calls: string[] = []
    const listener = (label: string): AssembleListener => (_assembly, _context, next) => { calls.push(label); return next() }
    const plugin = await pluginContext(app, 'plugin', ['systemPrompt'])
    agent.ctx.on('system-prompt/assemble', listener('agent-1'))
    host.on('system-prompt/assemble', listener('host-2'))
    preset.ctx.on('system-prompt/assemble', listener('preset-3'))
    plugin.on('system-prompt/assemble', listener('plugin-4'))
    sub.ctx.on('system-prompt/assemble', listener('sub-5'))
    plugin.on('system-prompt/assemble', listener('plugin-prepended'), { prepend: true })
    agent.ctx.on('system-prompt/assemble', listener('agent-prepended'), { prepend: true })
    await app.systemPrompt.assemble({ scope: sub.key })
    expect(calls).to.deep.equal(['agent-prepended', 'plugin-prepended', 'agent-1', 'host-2', 'preset-3', 'plugin-4', 'sub-5'])
    calls.length = 0
    await app.systemPrompt.assemble({ scope: sibling.key })
    expect(calls).to.deep.equal(['plugin-prepended', 'host-2', 'preset-3', 'plugin-4'])
  })

  it('tool order is canonical before the waterfall and listener additions are not re-sorted', async () => {
    host.systemPrompt.tools(() => ({ schemas: [{ name: 'b' }, { name: 'a' }] }))
    let seen: string[] = []
    host.on('system-prompt/assemble', (assembly) => {
      seen = toolNames(assembly)
      return { ...assembly, tools: [...assembly.tools, { name: 'A_first_by_name' }] }
    })
    expect(toolNames(await app.systemPrompt.assemble())).to.deep.equal(['a', 'b', 'A_first_by_name'])
    expect(seen).to.deep.equal(['a', 'b'])
  })

  it('section additions of a listener are not re-sorted either', async () => {
    host.systemPrompt.section({ name: 'b', order: 2, text: 'B' })
    host.on('system-prompt/assemble', (assembly) => ({ ...assembly, sections: [...assembly.sections, { name: 'a', order: -100, text: 'A' }] }))
    expect(await promptText(app)).to.equal('B\n\nA')
  })

  it('a listener is removed with its plugin', async () => {
    const plugin = await pluginContext(app, 'temporary', ['systemPrompt'])
    const seen = spy(plugin)
    await app.systemPrompt.assemble()
    expect(app.systemPrompt.stats().listeners).to.equal(1)
    await plugin.fiber.dispose()
    await app.systemPrompt.assemble()
    expect(seen).to.have.length(1)
    expect(app.systemPrompt.stats()).to.include({ listeners: 0, listenerBuckets: 0 })
  })

  it('a listener is removed with its scope', async () => {
    const seen = spy(agent.ctx)
    await app.systemPrompt.assemble({ scope: agent.key })
    await agent.dispose()
    await app.systemPrompt.assemble({ scope: agent.key })
    await app.systemPrompt.assemble({ scope: sub.key })
    expect(seen).to.deep.equal([agent.key])
    expect(app.systemPrompt.stats().listeners).to.equal(0)
  })

  it('a listener is removed by the disposer ctx.on returned', async () => {
    const calls: number[] = []
    const dispose = host.on('system-prompt/assemble', (_a, _c, next) => { calls.push(1); return next() })
    await app.systemPrompt.assemble()
    dispose()
    dispose()
    await app.systemPrompt.assemble()
    expect(calls).to.deep.equal([1])
  })

  it('a later assembly does not see what a listener did to an earlier one', async () => {
    host.systemPrompt.section({ name: 's', order: 1, text: 'S' })
    let first = true
    host.on('system-prompt/assemble', (assembly) => {
      if (first) {
        first = false
        assembly.sections.find((section) => section.name === 's')!.text = 'changed by the listener'
        assembly.sections.push({ name: 'extra', order: 9, text: 'extra' })
      }
      return assembly
    })
    await app.systemPrompt.assemble()
    expect(await promptText(app)).to.equal('S')
  })
})
