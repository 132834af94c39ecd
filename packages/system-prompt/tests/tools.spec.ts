import { expect } from 'chai'
import { Context } from 'cordis'
import fc from 'fast-check'
import { DEPLOYMENT_LOADED, SystemPrompt, TOOL_ORDER_REST, type AssembleContext, type ToolSchema } from 'dsh-system-prompt'
import { bootApp, captureLogs, pluginContext, rejection, scope, type CapturedLog } from 'dsh-testing'
import { BARE, toolNames } from './helpers.js'

const REST = '<unlisted-tools>'
const schemas = (...names: string[]): ToolSchema[] => names.map((name) => ({ name, description: `${name} tool`, parameters: { type: 'object' } }))

describe('dsh-system-prompt: tools', () => {
  let app: Context
  let plugin: Context
  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'tools-plugin' } }))
  })

  it('exports the rest entry name', () => {
    expect(TOOL_ORDER_REST).to.equal(REST)
  })

  describe('default order', () => {
    it('is code-unit name order', async () => {
      plugin.systemPrompt.tools(() => ({ schemas: schemas('read', 'Bash', '_internal', 'apply', 'Édit', 'zeta') }))
      expect(toolNames(await app.systemPrompt.assemble())).to.deep.equal(['Bash', '_internal', 'apply', 'read', 'zeta', 'Édit'])
    })

    it('does not depend on registration order across providers', async () => {
      const { app: other, host: otherPlugin } = await bootApp({ systemPrompt: BARE, host: { name: 'tools-plugin' } })
      plugin.systemPrompt.tools(() => ({ schemas: schemas('b', 'd') }))
      plugin.systemPrompt.tools(() => ({ schemas: schemas('c', 'a') }))
      otherPlugin.systemPrompt.tools(() => ({ schemas: schemas('c', 'a') }))
      otherPlugin.systemPrompt.tools(() => ({ schemas: schemas('d', 'b') }))
      const [one, two] = [await app.systemPrompt.assemble(), await other.systemPrompt.assemble()]
      expect(toolNames(one)).to.deep.equal(['a', 'b', 'c', 'd'])
      expect(JSON.stringify(one.tools)).to.equal(JSON.stringify(two.tools))
    })

    it('property: any set of tool names from shuffled providers comes out sorted by code units', async () => {
      const names = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3, unit: fc.constantFrom('a', 'B', '_', '1', 'é', '😀', 'ｅ') }), { maxLength: 8 })
      await fc.assert(fc.asyncProperty(names, fc.nat({ max: 8 }), async (list, split) => {
        const { app: deployment, host: p } = await bootApp({ systemPrompt: BARE, host: { name: 'p' } })
        p.systemPrompt.tools(() => ({ schemas: schemas(...list.slice(split)) }))
        p.systemPrompt.tools(() => ({ schemas: schemas(...list.slice(0, split)) }))
        expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(list.slice().sort())
      }), { numRuns: 30 })
    })

    it('passes schemas through with their description and parameters', async () => {
      const schema = { name: 'read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }
      plugin.systemPrompt.tools(() => ({ schemas: [schema] }))
      expect((await app.systemPrompt.assemble()).tools).to.deep.equal([schema])
    })
  })

  it('consults every provider at every assembly, with that assembly\'s context', async () => {
    const seen: AssembleContext[] = []
    let visible = ['a']
    plugin.systemPrompt.tools((context) => { seen.push(context); return { schemas: schemas(...visible) } })
    const first = { signal: new AbortController().signal }
    expect(toolNames(await app.systemPrompt.assemble(first))).to.deep.equal(['a'])
    visible = ['a', 'b']
    expect(toolNames(await app.systemPrompt.assemble())).to.deep.equal(['a', 'b'])
    expect(seen).to.have.length(2)
    expect(seen[0]).to.equal(first)
  })

  it('rejects a tool name provided twice, naming both plugins', async () => {
    const second = await pluginContext(app, 'second-plugin', ['systemPrompt'])
    plugin.systemPrompt.tools(() => ({ schemas: schemas('read') }))
    second.systemPrompt.tools(() => ({ schemas: schemas('read') }))
    expect((await rejection(app.systemPrompt.assemble())).message)
      .to.equal('tool "read" is provided more than once (plugins "second-plugin", "tools-plugin")')
  })

  it('rejects a provider returning the reserved rest-entry name, even without toolOrder', async () => {
    plugin.systemPrompt.tools(() => ({ schemas: schemas('read', REST) }))
    expect((await rejection(app.systemPrompt.assemble())).message)
      .to.equal('tool provider returned reserved tool name "<unlisted-tools>" (reserved for toolOrder\'s rest entry)')
  })

  describe('toolOrder', () => {
    async function withOrder(toolOrder: string[], ...providers: Array<{ schemas: ToolSchema[]; knownNames?: string[] }>) {
      const { app: deployment, host: p } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, toolOrder }, host: { name: 'tools-plugin' } })
      for (const result of providers) p.systemPrompt.tools(() => result)
      return deployment
    }

    it('puts listed tools at their positions and the others at the rest entry, in name order', async () => {
      const deployment = await withOrder(['write', REST, 'bash'], { schemas: schemas('read', 'bash', 'edit', 'write', 'Glob') })
      expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(['write', 'Glob', 'edit', 'read', 'bash'])
    })

    it('puts unlisted tools first when the rest entry comes first', async () => {
      const deployment = await withOrder([REST, 'a'], { schemas: schemas('c', 'a', 'b') })
      expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(['b', 'c', 'a'])
    })

    it('with the rest entry alone, is name order', async () => {
      const deployment = await withOrder([REST], { schemas: schemas('c', 'a', 'B') })
      expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(['B', 'a', 'c'])
    })

    it('applies across providers, independent of their registration order', async () => {
      const deployment = await withOrder(['z', REST, 'a'], { schemas: schemas('a', 'm') }, { schemas: schemas('z', 'b') })
      expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(['z', 'b', 'm', 'a'])
    })

    it('skips a listed tool that is known but not visible in this assembly', async () => {
      const deployment = await withOrder(['hidden', REST, 'a'], { schemas: schemas('b', 'a'), knownNames: ['a', 'b', 'hidden'] })
      expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(['b', 'a'])
    })

    it('rejects a listed tool that no provider knows', async () => {
      const deployment = await withOrder(['x', REST], { schemas: schemas('b', 'a') })
      expect((await rejection(deployment.systemPrompt.assemble())).message)
        .to.equal('toolOrder lists unregistered tool "x"; known tools: a, b')
    })

    it('rejects several unknown listed tools with the plural wording, in listed order', async () => {
      const deployment = await withOrder(['y', 'a', REST, 'x'], { schemas: schemas('b', 'a') })
      expect((await rejection(deployment.systemPrompt.assemble())).message)
        .to.equal('toolOrder lists unregistered tools "y", "x"; known tools: a, b')
    })

    it('says (none) when no tool is known', async () => {
      const deployment = await withOrder(['x', REST])
      expect((await rejection(deployment.systemPrompt.assemble())).message)
        .to.equal('toolOrder lists unregistered tool "x"; known tools: (none)')
    })

    it('lists the known tools in code-unit order, knownNames included', async () => {
      const deployment = await withOrder(['x', REST], { schemas: schemas('b'), knownNames: ['b', 'a', 'B', 'é'] })
      expect((await rejection(deployment.systemPrompt.assemble())).message)
        .to.equal('toolOrder lists unregistered tool "x"; known tools: B, a, b, é')
    })

    it('accepts a listed name found only in a provider\'s knownNames', async () => {
      const deployment = await withOrder(['restricted', REST], { schemas: schemas('a'), knownNames: ['a', 'restricted'] })
      expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(['a'])
    })

    it('still counts a provider\'s schemas as known when its knownNames omits them', async () => {
      const deployment = await withOrder(['a', REST], { schemas: schemas('a'), knownNames: [] })
      expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(['a'])
    })

    it('is checked at every assembly: a tool that goes away makes the next assembly reject', async () => {
      const { app: deployment, host: p } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, toolOrder: ['bash', REST] }, host: { name: 'shell' } })
      const dispose = p.systemPrompt.tools(() => ({ schemas: schemas('bash') }))
      expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(['bash'])
      dispose()
      expect((await rejection(deployment.systemPrompt.assemble())).message)
        .to.equal('toolOrder lists unregistered tool "bash"; known tools: (none)')
    })

    it('rejects a provider returning the reserved rest-entry name', async () => {
      const deployment = await withOrder([REST], { schemas: schemas(REST) })
      expect((await rejection(deployment.systemPrompt.assemble())).message)
        .to.equal('tool provider returned reserved tool name "<unlisted-tools>" (reserved for toolOrder\'s rest entry)')
    })

    it('orders a scope\'s tools together with the global ones', async () => {
      const { app: deployment, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, toolOrder: ['agent_tool', REST] } })
      const agent = scope(host, 'agent')
      host.systemPrompt.tools(() => ({ schemas: schemas('b', 'a'), knownNames: ['a', 'b', 'agent_tool'] }))
      agent.ctx.systemPrompt.tools(() => ({ schemas: schemas('agent_tool') }))
      expect(toolNames(await deployment.systemPrompt.assemble({ scope: agent.key }))).to.deep.equal(['agent_tool', 'a', 'b'])
      expect(toolNames(await deployment.systemPrompt.assemble())).to.deep.equal(['a', 'b'])
    })
  })
})

describe('dsh-system-prompt: the tool check once the deployment has loaded (R-TOOL-4)', () => {
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
