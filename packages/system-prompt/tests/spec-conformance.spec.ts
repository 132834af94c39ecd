import { expect } from 'chai'
import { Context } from 'cordis'
import {
  DEPLOYMENT_LOADED, joinContextSections, SystemPrompt, renderContextSections, renderContextSnapshot, renderPrompt, TOOL_ORDER_REST,
  type AssembleContext, type AssembledContext, type AssembledSection, type Config, type PromptAssembly, type PromptContext,
  type PromptSection, type ToolProviderResult, type ToolSchema,
} from 'dsh-system-prompt'
import { bootApp, captureLogs, rejection, type CapturedLog } from 'dsh-testing'
import { BARE } from './helpers.js'

// Declaration merging (SPEC §3): a package adds fields to the assembly and to the assemble context.
declare module 'dsh-system-prompt' {
  interface PromptAssembly {
    /** Added by this spec to prove `PromptAssembly` is extensible. */
    conformanceNote?: string
  }
  interface AssembleContext {
    /** Added by this spec to prove `AssembleContext` is extensible. */
    conformanceTag?: string
  }
}

describe('dsh-system-prompt: SPEC conformance', () => {
  describe('§3 exports', () => {
    it('exports the render functions by name from the package root', () => {
      const assembly: PromptAssembly = {
        sections: [{ name: 'a', order: 0, text: 'A {{x}}' }],
        contexts: [{ name: 'c', order: 0, text: 'C {{x}}' }],
        tools: [],
        variables: { x: '1' },
      }
      expect(renderPrompt(assembly)).to.equal('A 1')
      expect(renderContextSections(assembly)).to.deep.equal([{ name: 'c', text: 'C 1', entry: assembly.contexts[0] }])
      expect(renderContextSnapshot(assembly)).to.equal(joinContextSections(['C 1']))
    })

    it('exports every listed type by name (checked by the type-checker: this file stops compiling without one)', () => {
      const section: PromptSection = { name: 's', order: 1, text: 'S', complete: false, interpolate: true }
      const context: PromptContext = { name: 'c', order: 1, text: () => 'C', interpolate: false }
      const assembled: AssembledSection = { name: 's', order: 1, text: 'S' }
      const assembledContext: AssembledContext = { name: 'c', order: 1, text: 'C' }
      const schema: ToolSchema = { name: 't', description: 'T', parameters: { type: 'object' } }
      const provided: ToolProviderResult = { schemas: [schema], knownNames: ['t'] }
      const options: AssembleContext = { scope: {}, signal: new AbortController().signal }
      const config: Partial<Config> = { toolOrder: [TOOL_ORDER_REST] }
      expect([section, context, assembled, assembledContext, provided, options, config].every((v) => typeof v === 'object')).to.equal(true)
    })
  })

  describe('§3 PromptAssembly', () => {
    it('is exactly { sections, contexts, tools, variables } when no listener adds to it', async () => {
      const { app, host } = await bootApp({ systemPrompt: BARE })
      host.systemPrompt.tools(() => ({ schemas: [{ name: 'read' }] }))
      expect(Object.keys(await app.systemPrompt.assemble())).to.deep.equal(['sections', 'contexts', 'tools', 'variables'])
    })
  })

  describe('§3 declaration merging', () => {
    let app: Context
    let host: Context
    beforeEach(async () => {
      ({ app, host } = await bootApp({ systemPrompt: BARE }))
    })

    it('a field merged into AssembleContext reaches the providers of that assembly', async () => {
      let seen: string | undefined
      host.systemPrompt.section({ name: 's', order: 1, text: (context) => { seen = context.conformanceTag; return 'S' } })
      await app.systemPrompt.assemble({ conformanceTag: 'tagged' })
      expect(seen).to.equal('tagged')
    })

    it('a field merged into PromptAssembly that a listener sets comes back in the result', async () => {
      host.on('system-prompt/assemble', async (_assembly, _context, next) => ({ ...await next(), conformanceNote: 'noted' }))
      expect((await app.systemPrompt.assemble()).conformanceNote).to.equal('noted')
    })
  })

  describe('§3 assemble(): every failure is a rejection', () => {
    it('a context that is not an object rejects instead of throwing', async () => {
      const { app } = await bootApp({ systemPrompt: BARE })
      let result: unknown
      expect(() => { result = app.systemPrompt.assemble(null as never) }).to.not.throw()
      expect(result).to.be.instanceOf(Promise)
      expect(await rejection(result as Promise<unknown>, TypeError)).to.be.instanceOf(TypeError)
    })
  })

  describe('§7 the tool check once the deployment has loaded', () => {
    let app: Context
    let host: Context
    let logs: CapturedLog[]
    const warnings = () => logs.filter((log) => log.name === 'dsh-system-prompt' && log.type === 'warn').map((log) => log.text)

    async function boot(toolOrder?: string[]) {
      ({ app, host } = await bootApp({ systemPrompt: { ...BARE, ...toolOrder && { toolOrder } } }))
      logs = captureLogs(app)
    }

    it('warns about a toolOrder naming an unregistered tool, with the assembly message', async () => {
      await boot(['search', TOOL_ORDER_REST])
      host.systemPrompt.tools(() => ({ schemas: [{ name: 'read' }, { name: 'bash' }] }))
      app.emit(DEPLOYMENT_LOADED, {})
      expect(warnings()).to.deep.equal(['toolOrder lists unregistered tool "search"; known tools: bash, read'])
    })

    it('uses the plural wording and "(none)" like the assembly does', async () => {
      await boot(['web_fetch', TOOL_ORDER_REST, 'web_search'])
      app.emit(DEPLOYMENT_LOADED, {})
      expect(warnings()).to.deep.equal(['toolOrder lists unregistered tools "web_fetch", "web_search"; known tools: (none)'])
    })

    it('warns about a provider returning the reserved rest-entry name', async () => {
      await boot()
      host.systemPrompt.tools(() => ({ schemas: [{ name: TOOL_ORDER_REST }] }))
      app.emit(DEPLOYMENT_LOADED, {})
      expect(warnings()).to.deep.equal(['tool provider returned reserved tool name "<unlisted-tools>" (reserved for toolOrder\'s rest entry)'])
    })

    it('says nothing when the tools are fine, and counts a provider\'s knownNames as known', async () => {
      await boot(['search', TOOL_ORDER_REST])
      host.systemPrompt.tools(() => ({ schemas: [], knownNames: ['search'] }))
      app.emit(DEPLOYMENT_LOADED, {})
      expect(warnings()).to.deep.equal([])
    })

    it('leaves other tool failures to the assembly: a throwing provider or a name provided twice is not warned about', async () => {
      await boot(['search', TOOL_ORDER_REST])
      host.systemPrompt.tools(() => ({ schemas: [{ name: 'read' }] }))
      host.systemPrompt.tools(() => ({ schemas: [{ name: 'read' }] }))
      app.emit(DEPLOYMENT_LOADED, {})
      const { app: other, host: otherHost } = await bootApp({ systemPrompt: BARE })
      const otherLogs = captureLogs(other)
      otherHost.systemPrompt.tools(() => { throw new Error('offline') })
      other.emit(DEPLOYMENT_LOADED, {})
      expect([...warnings(), ...otherLogs.filter((log) => log.type === 'warn')]).to.deep.equal([])
    })

    it('runs only the tool providers: no text provider, variable provider or listener is called', async () => {
      await boot(['search', TOOL_ORDER_REST])
      const calls: string[] = []
      host.systemPrompt.section({ name: 's', order: 1, text: () => { calls.push('section'); return 'S' } })
      host.systemPrompt.variable('v', () => { calls.push('variable'); return 'v' })
      host.on('system-prompt/assemble', (_assembly, _context, next) => { calls.push('listener'); return next() })
      app.emit(DEPLOYMENT_LOADED, {})
      expect(calls).to.deep.equal([])
      expect(warnings()).to.have.length(1)
    })

    it('runs again for each deployment/loaded, and not at all without one', async () => {
      await boot(['search', TOOL_ORDER_REST])
      expect(warnings()).to.deep.equal([])
      app.emit(DEPLOYMENT_LOADED, {})
      app.emit(DEPLOYMENT_LOADED, {})
      expect(warnings()).to.have.length(2)
    })

    it('stops listening when the service is disposed', async () => {
      const root = new Context()
      logs = captureLogs(root)
      const fiber = await root.plugin(SystemPrompt, { toolOrder: ['search', TOOL_ORDER_REST] })
      root.emit(DEPLOYMENT_LOADED, {})
      expect(warnings()).to.have.length(1)
      await fiber.dispose()
      root.emit(DEPLOYMENT_LOADED, {})
      expect(warnings()).to.have.length(1)
    })
  })
})
