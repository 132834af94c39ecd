import { expect } from 'chai'
import { Context } from 'cordis'
import { assemblyNotes, renderAssembly, renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { bootApp, pluginContext, promptText, scope, thrown } from 'dsh-testing'
import { BARE, sectionNames } from './helpers.js'

describe('dsh-system-prompt: ordering bands', () => {
  let app: Context
  let host: Context
  beforeEach(async () => { ({ app, host } = await bootApp({ systemPrompt: BARE })) })

  it('sorts a first-band section before and a last-band section after every unbanded one, whatever the orders', async () => {
    host.systemPrompt.section({ name: 'low', order: -1e9, text: 'low' })
    host.systemPrompt.section({ name: 'head', order: 1e9, band: 'first', text: 'head' })
    host.systemPrompt.section({ name: 'tail', order: -1e12, band: 'last', text: 'tail' })
    host.systemPrompt.section({ name: 'high', order: 1e9, text: 'high' })
    expect(sectionNames(await app.systemPrompt.assemble())).to.deep.equal(['head', 'low', 'deployment:persona', 'high', 'tail', 'deployment:persona-suffix'])
  })

  it('orders within a band by order, then by name', async () => {
    host.systemPrompt.section({ name: 'b', order: 1, band: 'last', text: 'b' })
    host.systemPrompt.section({ name: 'a', order: 1, band: 'last', text: 'a' })
    host.systemPrompt.section({ name: 'c', order: 0, band: 'last', text: 'c' })
    expect(sectionNames(await app.systemPrompt.assemble()).slice(-4)).to.deep.equal(['c', 'a', 'b', 'deployment:persona-suffix'])
  })

  it('puts the persona suffix in band last by its named placement, also when a scope shadows it without a band', async () => {
    const agent = scope(host, 'agent')
    agent.ctx.systemPrompt.section({ name: 'deployment:persona-suffix', order: -5, text: 'Suffix.' })
    host.systemPrompt.section({ name: 'late', order: 1e15, text: 'Late.' })
    const assembly = await app.systemPrompt.assemble({ scope: agent.key })
    expect(assembly.sections.map((s) => [s.name, s.band])).to.deep.equal([
      ['deployment:persona', undefined], ['late', undefined], ['deployment:persona-suffix', 'last'],
    ])
  })

  it('renders a last-band section last even after a listener appends a section behind it', async () => {
    host.systemPrompt.section({ name: 'body', order: 1, text: 'Body.' })
    host.systemPrompt.section({ name: 'sign-off', order: 2, band: 'last', text: 'Sign-off.' })
    host.on('system-prompt/assemble', async (assembly, _context, next) => next({
      ...assembly, sections: [...assembly.sections, { name: 'audit', order: 3, text: 'Audit.' }],
    }))
    expect(await promptText(app)).to.equal('Body.\n\nAudit.\n\nSign-off.')
  })

  it('refuses a band other than first or last, naming the section, and registers nothing', async () => {
    const error = thrown(() => host.systemPrompt.section({ name: 'x', order: 1, band: 'middle' as never, text: 'x' }), TypeError) as TypeError & { code: string }
    expect([error.message, error.code]).to.deep.equal(['prompt section "x" band must be "first" or "last", received a string "middle"', 'PROMPT_INVALID_BAND'])
    expect(sectionNames(await app.systemPrompt.assemble())).to.not.include('x')
  })

  it('renders hand-built assemblies by the band field alone (no name is special)', () => {
    const sections = [{ name: 'deployment:persona-suffix', order: 0, text: 'S' }, { name: 'z', order: 1, text: 'Z' }, { name: 'y', order: 2, text: 'Y', band: 'first' as const }]
    expect(renderPrompt({ sections, variables: {} })).to.equal('Y\n\nS\n\nZ')
  })
})

describe('dsh-system-prompt: sections shown with a tool', () => {
  let app: Context
  let host: Context
  beforeEach(async () => { ({ app, host } = await bootApp({ systemPrompt: BARE })) })

  const offer = (ctx: Context, names: string[], layers?: Map<string, object | undefined>) =>
    ctx.systemPrompt.tools(() => ({ schemas: names.map((name) => ({ name, parameters: { type: 'object' } })), ...(layers ? { layers } : {}) }))

  it('keeps a section with tool: when the tool is in the assembly and leaves it out, listed in the notes, when it is not', async () => {
    host.systemPrompt.section({ name: 'tool:read', order: 1100, tool: 'read', text: 'Read first.' })
    host.systemPrompt.section({ name: 'tool:write', order: 1200, tool: 'write', text: 'Write carefully.' })
    offer(host, ['read'])
    const assembly = await app.systemPrompt.assemble()
    expect(sectionNames(assembly)).to.include('tool:read').and.not.include('tool:write')
    expect(assemblyNotes(assembly)!.hiddenWithTool.map((s) => [s.name, s.tool])).to.deep.equal([['tool:write', 'write']])
  })

  it('leaves a section out when the provider reports its tool from another layer (a scope shadowed the tool)', async () => {
    const agent = scope(host, 'agent')
    host.systemPrompt.section({ name: 'tool:read', order: 1100, tool: 'read', text: 'Global guidance.' })
    offer(host, ['read'], new Map([['read', agent.key]]))
    const assembly = await app.systemPrompt.assemble({ scope: agent.key })
    expect(sectionNames(assembly)).to.not.include('tool:read')
    expect(assemblyNotes(assembly)!.hiddenWithTool.map((s) => s.name)).to.deep.equal(['tool:read'])
  })

  it('does not let a listener see a hidden section, and records the notes on the assembly a listener returned', async () => {
    host.systemPrompt.section({ name: 'tool:write', order: 1200, tool: 'write', text: 'Write carefully.' })
    let seen: string[] = []
    host.on('system-prompt/assemble', async (assembly, _context, next) => {
      seen = sectionNames(assembly)
      return { ...(await next()) }
    })
    const assembly = await app.systemPrompt.assemble()
    expect(seen).to.not.include('tool:write')
    expect(assemblyNotes(assembly)!.hiddenWithTool.map((s) => s.name)).to.deep.equal(['tool:write'])
  })

  it('refuses a tool: that is not a non-empty string', () => {
    const error = thrown(() => host.systemPrompt.section({ name: 's', order: 1, tool: '', text: 'x' }), TypeError) as TypeError & { code: string }
    expect([error.message, error.code]).to.deep.equal(['prompt section "s" tool must be a tool name (a non-empty string), received a string ""', 'PROMPT_INVALID_SECTION_TOOL'])
  })

  it('refuses a provider whose layers is not a Map, naming its plugin', async () => {
    const plugin = await pluginContext(app, 'odd', ['systemPrompt'])
    plugin.systemPrompt.tools(() => ({ schemas: [], layers: {} as never }))
    const error = await app.systemPrompt.assemble().then(() => undefined, (e: Error) => e)
    expect(error?.message).to.equal('tool provider of plugin "odd" returned an object; expected layers as a Map from tool name to layer')
  })
})

describe('dsh-system-prompt: the tool check as data', () => {
  let app: Context
  beforeEach(async () => { ({ app } = await bootApp({ systemPrompt: { ...BARE, toolOrder: ['b', 'ghost', '<unlisted-tools>', 'phantom'] } })) })

  it('reports the unregistered toolOrder names, the known names and the error the assembly rejects with', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'b' }, { name: 'a' }], knownNames: ['a', 'b', 'c'] }))
    const check = app.systemPrompt.checkTools()
    expect([check.unregistered, check.known, check.reserved]).to.deep.equal([['ghost', 'phantom'], ['a', 'b', 'c'], []])
    expect(check.problem?.code).to.equal('PROMPT_TOOL_ORDER_UNREGISTERED')
    const rejected = await app.systemPrompt.assemble().then(() => undefined, (e: Error) => e)
    expect(rejected?.message).to.equal(check.problem?.message)
  })

  it('reports the plugins whose provider returned the reserved name', async () => {
    const plugin = await pluginContext(app, 'rogue', ['systemPrompt'])
    plugin.systemPrompt.tools(() => ({ schemas: [{ name: '<unlisted-tools>' }] }))
    const check = app.systemPrompt.checkTools()
    expect([check.reserved, check.problem?.code, check.problem?.details]).to.deep.equal([['rogue'], 'PROMPT_RESERVED_TOOL_NAME', { owner: 'rogue' }])
  })

  it('keeps the notes of the assembly that was returned, and only of it', async () => {
    const { app: plain } = await bootApp({ systemPrompt: BARE })
    const assembly = await plain.systemPrompt.assemble()
    const copy: PromptAssembly = { ...assembly }
    expect(assemblyNotes(assembly)?.tools.tools).to.deep.equal([])
    expect(assemblyNotes(copy)).to.equal(undefined)
    expect(renderAssembly(assembly).system).to.equal('')
  })
})
