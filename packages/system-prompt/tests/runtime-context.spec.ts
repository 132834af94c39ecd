import { expect } from 'chai'
import { Context } from 'cordis'
import type { ScopeHandle } from 'dsh-scope'
import {
  joinContextSections, renderContextSections, renderContextSnapshot, RUNTIME_CONTEXT_HEADING, RUNTIME_CONTEXT_NONE,
  type PromptAssembly,
} from 'dsh-system-prompt'
import { bootApp, pluginContext, promptText, scope, snapshotText } from 'dsh-testing'
import { BARE, contextNames, counted } from './helpers.js'

const HEADING = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'

describe('dsh-system-prompt: runtime context', () => {
  it('exports the fixed model-facing texts exactly', () => {
    expect(RUNTIME_CONTEXT_HEADING).to.equal(HEADING)
    expect(RUNTIME_CONTEXT_NONE).to.equal('Current runtime context: none. Earlier runtime-context snapshots no longer apply.')
  })

  describe('snapshot text', () => {
    let app: Context
    let plugin: Context
    beforeEach(async () => {
      ({ app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'facts' } }))
    })

    it('is the heading, a blank line, then the contexts in order joined by blank lines', async () => {
      plugin.systemPrompt.context({ name: 'b', order: 2, text: 'Sandbox: read-only.' })
      plugin.systemPrompt.context({ name: 'a', order: 1, text: 'Approval: ask first.' })
      expect(await snapshotText(app)).to.equal(`${HEADING}\n\nApproval: ask first.\n\nSandbox: read-only.`)
    })

    it('drops empty contexts and does not trim the others', async () => {
      plugin.systemPrompt.context({ name: 'a', order: 1, text: ' padded \n' })
      plugin.systemPrompt.context({ name: 'b', order: 2, text: '' })
      plugin.systemPrompt.context({ name: 'c', order: 3, text: () => '' })
      plugin.systemPrompt.context({ name: 'd', order: 4, text: 'last' })
      expect(await snapshotText(app)).to.equal(`${HEADING}\n\n padded \n\n\nlast`)
    })

    it('is empty when no context has text', async () => {
      plugin.systemPrompt.context({ name: 'a', order: 1, text: '' })
      expect(await snapshotText(app)).to.equal('')
      expect(joinContextSections([])).to.equal('')
    })

    it('interpolates contexts strictly against the assembly\'s variables', async () => {
      plugin.systemPrompt.variable('cwd', () => '/work')
      plugin.systemPrompt.context({ name: 'cwd', order: 1, text: 'Working directory: {{cwd}}' })
      expect(await snapshotText(app)).to.equal(`${HEADING}\n\nWorking directory: /work`)
    })

    it('drops a context that is empty after interpolation', async () => {
      plugin.systemPrompt.variable('note', () => '')
      plugin.systemPrompt.context({ name: 'note', order: 1, text: '{{note}}' })
      plugin.systemPrompt.context({ name: 'other', order: 2, text: 'other' })
      const assembly = await app.systemPrompt.assemble()
      expect(renderContextSections(assembly).map(({ name, text, entry }) => [name, text, entry.order])).to.deep.equal([['other', 'other', 2]])
    })

    it('emits an interpolate: false context verbatim', async () => {
      plugin.systemPrompt.context({ name: 'raw', order: 1, text: 'Use {{ braces }} freely', interpolate: false })
      expect(await snapshotText(app)).to.equal(`${HEADING}\n\nUse {{ braces }} freely`)
    })

    it('is not part of the system prompt', async () => {
      plugin.systemPrompt.context({ name: 'a', order: 1, text: 'fact' })
      expect(await promptText(app)).to.equal('')
    })

    it('joinContextSections joins strings and { text } items the same way', () => {
      expect(joinContextSections(['one', { text: 'two' }, '', { text: 'three' }])).to.equal(`${HEADING}\n\none\n\ntwo\n\nthree`)
    })
  })

  describe('suppression for one scope', () => {
    let app: Context
    let host: Context
    let agent: ScopeHandle
    let sibling: ScopeHandle
    let provider: ReturnType<typeof counted>
    beforeEach(async () => {
      ({ app, host } = await bootApp({ systemPrompt: BARE }))
      agent = scope(host, 'agent')
      sibling = scope(host, 'sibling')
      provider = counted('Sandbox: on.')
      host.systemPrompt.context({ name: 'sandbox', order: 1, text: provider })
    })

    it('leaves the runtime context out of that scope\'s assemblies without evaluating its providers', async () => {
      agent.ctx.systemPrompt.suppressRuntimeContext()
      const assembly = await app.systemPrompt.assemble({ scope: agent.key })
      expect(assembly.contexts).to.deep.equal([])
      expect(renderContextSnapshot(assembly)).to.equal('')
      expect(provider.calls).to.equal(0)
    })

    it('keeps the context providers running for other scopes and the global assembly', async () => {
      agent.ctx.systemPrompt.suppressRuntimeContext()
      expect(await snapshotText(app, { scope: sibling.key })).to.equal(`${HEADING}\n\nSandbox: on.`)
      expect(await snapshotText(app)).to.equal(`${HEADING}\n\nSandbox: on.`)
      expect(provider.calls).to.equal(2)
    })

    it('applies to the scope\'s descendants too', async () => {
      const sub = scope(host, 'sub-agent', agent.key)
      agent.ctx.systemPrompt.suppressRuntimeContext()
      expect((await app.systemPrompt.assemble({ scope: sub.key })).contexts).to.deep.equal([])
      expect(provider.calls).to.equal(0)
    })

    it('drops contexts registered in the suppressed scope itself', async () => {
      agent.ctx.systemPrompt.context({ name: 'agent-fact', order: 2, text: 'agent fact' })
      agent.ctx.systemPrompt.suppressRuntimeContext()
      expect(await snapshotText(app, { scope: agent.key })).to.equal('')
    })

    it('drops contexts a listener adds to a suppressed scope\'s assembly', async () => {
      agent.ctx.systemPrompt.suppressRuntimeContext()
      host.on('system-prompt/assemble', (assembly: PromptAssembly) => ({
        ...assembly, contexts: [...assembly.contexts, { name: 'listener', order: 9, text: 'from a listener' }],
      }))
      expect((await app.systemPrompt.assemble({ scope: agent.key })).contexts).to.deep.equal([])
      expect(contextNames(await app.systemPrompt.assemble({ scope: sibling.key }))).to.deep.equal(['sandbox', 'listener'])
    })

    it('returns when the suppressor\'s disposer is called', async () => {
      const dispose = agent.ctx.systemPrompt.suppressRuntimeContext()
      expect(await snapshotText(app, { scope: agent.key })).to.equal('')
      dispose()
      expect(await snapshotText(app, { scope: agent.key })).to.equal(`${HEADING}\n\nSandbox: on.`)
    })

    it('returns when the plugin that suppressed it is disposed', async () => {
      const inner = await pluginContext(agent.ctx, 'quiet-mode', ['systemPrompt'])
      inner.systemPrompt.suppressRuntimeContext()
      expect(await snapshotText(app, { scope: agent.key })).to.equal('')
      await inner.fiber.dispose()
      expect(await snapshotText(app, { scope: agent.key })).to.equal(`${HEADING}\n\nSandbox: on.`)
    })

    it('stays off while one of two suppressors lives', async () => {
      const first = agent.ctx.systemPrompt.suppressRuntimeContext()
      agent.ctx.systemPrompt.suppressRuntimeContext()
      first()
      expect(await snapshotText(app, { scope: agent.key })).to.equal('')
    })

    it('suppressed through an untagged context, is off for every assembly', async () => {
      const dispose = host.systemPrompt.suppressRuntimeContext()
      expect(await snapshotText(app)).to.equal('')
      expect(await snapshotText(app, { scope: agent.key })).to.equal('')
      expect(provider.calls).to.equal(0)
      dispose()
      expect(await snapshotText(app, { scope: agent.key })).to.equal(`${HEADING}\n\nSandbox: on.`)
    })

    it('does not touch the system prompt sections', async () => {
      host.systemPrompt.section({ name: 's', order: 1, text: 'section' })
      agent.ctx.systemPrompt.suppressRuntimeContext()
      expect(await promptText(app, { scope: agent.key })).to.equal('section')
    })
  })

  describe('off for the deployment (includeRuntimeContext: false)', () => {
    let app: Context
    let plugin: Context
    beforeEach(async () => {
      ({ app, host: plugin } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, includeRuntimeContext: false }, host: { name: 'facts' } }))
    })

    it('evaluates no context provider, globally or for a scope', async () => {
      const global = counted('global fact')
      plugin.systemPrompt.context({ name: 'g', order: 1, text: global })
      const agent = scope(plugin, 'agent')
      const scoped = counted('agent fact')
      agent.ctx.systemPrompt.context({ name: 'a', order: 1, text: scoped })
      expect((await app.systemPrompt.assemble()).contexts).to.deep.equal([])
      expect((await app.systemPrompt.assemble({ scope: agent.key })).contexts).to.deep.equal([])
      expect([global.calls, scoped.calls]).to.deep.equal([0, 0])
    })

    it('drops whatever a listener adds', async () => {
      plugin.on('system-prompt/assemble', async (assembly, _context, next) => {
        assembly.contexts.push({ name: 'added', order: 1, text: 'added by a listener' })
        return next()
      })
      plugin.on('system-prompt/assemble', (assembly) => ({ ...assembly, contexts: [{ name: 'replaced', order: 1, text: 'replaced' }] }))
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.contexts).to.deep.equal([])
      expect(renderContextSnapshot(assembly)).to.equal('')
    })

    it('still accepts context registrations and keeps sections', async () => {
      plugin.systemPrompt.context({ name: 'g', order: 1, text: 'fact' })
      plugin.systemPrompt.section({ name: 's', order: 1, text: 'section' })
      expect(await promptText(app)).to.equal('section')
    })
  })

  it('is on by default: contexts are evaluated without any configuration', async () => {
    const { app, host: plugin } = await bootApp({ systemPrompt: {}, host: { name: 'facts' } })
    plugin.systemPrompt.context({ name: 'a', order: 1, text: 'fact' })
    expect(await snapshotText(app)).to.equal(`${HEADING}\n\nfact`)
  })
})
