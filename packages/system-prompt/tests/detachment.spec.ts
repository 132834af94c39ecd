import { expect } from 'chai'
import { Context } from 'cordis'
import { assemblyNotes, renderContextSnapshot, renderPrompt, type PromptAssembly, type ToolSchema } from 'dsh-system-prompt'
import { bootApp, scope, thrown } from 'dsh-testing'

/** Everything an assembly shows, as one comparable string. */
const fingerprint = (assembly: PromptAssembly) => JSON.stringify({
  prompt: renderPrompt(assembly),
  snapshot: renderContextSnapshot(assembly),
  sections: assembly.sections.map((s) => [s.name, s.order, s.text]),
  contexts: assembly.contexts.map((c) => [c.name, c.order, c.text]),
  tools: assembly.tools,
  variables: assembly.variables,
})

describe('dsh-system-prompt: detached assemblies', () => {
  let app: Context
  let plugin: Context
  let schema: ToolSchema

  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: { persona: 'Persona {{model}}.' }, host: { name: 'p' } }))
    schema = { name: 'read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }
    plugin.systemPrompt.section({ name: 'fixed', order: 1, text: 'Fixed text.' })
    plugin.systemPrompt.section({ name: 'computed', order: 2, text: () => 'Computed text.' })
    plugin.systemPrompt.context({ name: 'fact', order: 1, text: 'A fact.' })
    plugin.systemPrompt.variable('model', () => 'deepseek-chat')
    plugin.systemPrompt.tools(() => ({ schemas: [schema, { name: 'write' }] }))
  })

  async function expectMutationHarmless(mutate: (assembly: PromptAssembly) => void, context?: { scope?: object }) {
    const reference = fingerprint(await app.systemPrompt.assemble(context))
    const victim = await app.systemPrompt.assemble(context)
    mutate(victim)
    expect(fingerprint(await app.systemPrompt.assemble(context))).to.equal(reference)
  }

  it('mutating the sections array and section objects never changes a later assembly', async () => {
    await expectMutationHarmless((a) => {
      a.sections[0].text = 'hacked'
      a.sections[1].order = -1e9
      a.sections[1].name = 'renamed'
      a.sections.push({ name: 'pushed', order: 0, text: 'pushed' })
      a.sections.reverse()
    })
  })

  it('mutating the contexts never changes a later assembly', async () => {
    await expectMutationHarmless((a) => {
      a.contexts[0].text = 'hacked'
      a.contexts.push({ name: 'pushed', order: 0, text: 'pushed' })
    })
  })

  it('mutating the variables never changes a later assembly', async () => {
    await expectMutationHarmless((a) => {
      a.variables.model = 'hacked'
      a.variables.extra = 'added'
      delete a.variables.model
    })
  })

  it('mutating the tools array never changes a later assembly', async () => {
    await expectMutationHarmless((a) => {
      a.tools.pop()
      a.tools.unshift({ name: 'injected' })
      a.tools.reverse()
    })
  })

  it('mutating a scope\'s assembly never changes that scope\'s later assembly', async () => {
    const agent = scope(plugin, 'agent')
    agent.ctx.systemPrompt.section({ name: 'fixed', order: 1, text: 'Agent text.' })
    await expectMutationHarmless((a) => {
      a.sections.find((s) => s.name === 'fixed')!.text = 'hacked'
      a.sections.splice(0)
    }, { scope: agent.key })
  })

  it('hands out tool schemas as per-assembly copies whose parameters are deeply frozen and shared (R-WF-5)', async () => {
    const [read] = (await app.systemPrompt.assemble()).tools
    const parameters = read.parameters as { properties: { path: { type: string } }; required: string[] }
    expect(thrown(() => { parameters.properties.path.type = 'number' })).to.be.instanceOf(TypeError)
    expect(thrown(() => { parameters.required.push('more') })).to.be.instanceOf(TypeError)
    read.description = 'rewritten'
    ;(read as Record<string, unknown>).added = true
    const [again] = (await app.systemPrompt.assemble()).tools
    expect([again.description, 'added' in again, again.parameters === read.parameters]).to.deep.equal(['Read a file.', false, true])
  })

  it('leaves the provider\'s result intact after attempted writes', async () => {
    const [read] = (await app.systemPrompt.assemble()).tools
    try { (read.parameters as { type: string }).type = 'string' } catch { /* frozen */ }
    const [again] = (await app.systemPrompt.assemble()).tools
    expect(again).to.deep.equal({
      name: 'read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    })
    expect(schema.parameters).to.deep.equal({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] })
  })

  it('keeps what a listener did to a tool copy in place (rewrite, add, delete a field), and hands every tool back as a writable copy of its own', async () => {
    let edit = 'none'
    plugin.on('system-prompt/assemble', async (assembly, _context, next) => {
      const read = assembly.tools.find((t) => t.name === 'read')!
      if (edit === 'rewrite') read.description = 'Read a file (beta).'
      if (edit === 'add') (read as Record<string, unknown>).strict = true
      if (edit === 'delete') delete read.description
      if (edit === 'swap') { delete read.description; (read as Record<string, unknown>).other = undefined }
      return next()
    })
    const readOf = async () => (await app.systemPrompt.assemble()).tools.find((t) => t.name === 'read')!
    const untouched = await readOf()
    expect([untouched === schema, Object.isFrozen(untouched), untouched.parameters === schema.parameters]).to.deep.equal([false, false, true])
    expect(untouched).to.deep.equal(schema)
    edit = 'rewrite'
    expect((await readOf()).description).to.equal('Read a file (beta).')
    edit = 'add'
    const added = await readOf()
    expect([added.strict, added === schema, Object.isFrozen(added), Object.isFrozen(added.parameters)]).to.deep.equal([true, false, false, true])
    edit = 'delete'
    expect('description' in await readOf()).to.equal(false)
    edit = 'swap'
    expect(Object.keys(await readOf())).to.deep.equal(['name', 'parameters', 'other'])
    edit = 'none'
    expect(await readOf()).to.deep.equal(schema)
    expect(schema.description).to.equal('Read a file.')
  })

  it('hands listeners copies with every field of the schema in its order, whatever its shape', async () => {
    const shapes: ToolSchema[] = [
      { parameters: { type: 'object' }, name: 'reordered', description: 'Keys in another order.' },
      { name: 'extra', description: 'With a field more.', parameters: { type: 'object' }, strict: true },
      { name: 'undefined-description', description: undefined, parameters: { type: 'object' } },
      { name: 'named-only' },
      Object.assign({ name: 'symbol', description: 'With a symbol key.', parameters: {} }, { [Symbol.for('test.mark')]: 1 }),
    ]
    plugin.systemPrompt.tools(() => ({ schemas: shapes }))
    const seen: ToolSchema[] = []
    plugin.on('system-prompt/assemble', (assembly, _context, next) => {
      seen.push(...assembly.tools)
      return next()
    })
    const result = await app.systemPrompt.assemble()
    for (const shape of shapes) {
      const copy = seen.find((t) => t.name === shape.name)!
      expect(copy, shape.name).to.not.equal(shape)
      expect(Reflect.ownKeys(copy), shape.name).to.deep.equal(Reflect.ownKeys(shape))
      expect(Object.isFrozen(copy), shape.name).to.equal(false)
      // Untouched: a copy of the original with its fields, as writable as one no listener saw.
      const returned = result.tools.find((t) => t.name === shape.name)!
      expect([returned === shape, Object.isFrozen(returned)], shape.name).to.deep.equal([false, false])
      expect(Reflect.ownKeys(returned), shape.name).to.deep.equal(Reflect.ownKeys(shape))
    }
  })

  it('keeps a field a listener adds to the assembly, string- or symbol-keyed, with the notes of the result', async () => {
    const mark = Symbol.for('test.mark')
    let add: 'none' | 'string' | 'symbol' = 'none'
    plugin.on('system-prompt/assemble', async (_assembly, _context, next) => {
      const result = await next()
      if (add === 'string') return { meta: { turn: 3 }, ...result }
      if (add === 'symbol') return { ...result, [mark]: 'marked' }
      return result
    })
    const plainKeys = Reflect.ownKeys(await app.systemPrompt.assemble())
    expect(plainKeys).to.deep.equal(['sections', 'contexts', 'tools', 'variables'])
    add = 'string'
    const withMeta = await app.systemPrompt.assemble()
    expect(Reflect.ownKeys(withMeta)).to.deep.equal(['meta', 'sections', 'contexts', 'tools', 'variables'])
    expect((withMeta as unknown as { meta: unknown }).meta).to.deep.equal({ turn: 3 })
    expect(assemblyNotes(withMeta)?.tools.tools.map((t) => t.name)).to.deep.equal(['read', 'write'])
    add = 'symbol'
    const marked = await app.systemPrompt.assemble()
    expect((marked as unknown as Record<symbol, unknown>)[mark]).to.equal('marked')
    expect(assemblyNotes(marked)).to.not.equal(undefined)
    expect(assemblyNotes({ ...marked })).to.equal(undefined)
  })

  it('freezes tool schemas a listener adds, too', async () => {
    plugin.on('system-prompt/assemble', (assembly) => ({ ...assembly, tools: [...assembly.tools, { name: 'added', parameters: { type: 'object' } }] }))
    const added = (await app.systemPrompt.assemble()).tools.find((t) => t.name === 'added')!
    expect(thrown(() => { (added.parameters as { type: string }).type = 'x' })).to.be.instanceOf(TypeError)
  })

  it('a listener keeping the object it returned cannot change the assembly after the fact', async () => {
    let kept: PromptAssembly | undefined
    plugin.on('system-prompt/assemble', async (_assembly, _context, next) => (kept = await next()))
    const result = await app.systemPrompt.assemble()
    const before = fingerprint(result)
    kept!.sections[0].text = 'late change'
    kept!.sections.push({ name: 'late', order: 0, text: 'late' })
    kept!.contexts.length = 0
    kept!.variables.model = 'late'
    kept!.tools.length = 0
    expect(fingerprint(result)).to.equal(before)
  })

  it('mutations a listener makes never reach the registry', async () => {
    const reference = fingerprint(await app.systemPrompt.assemble())
    const dispose = plugin.on('system-prompt/assemble', async (assembly, _context, next) => {
      assembly.sections.forEach((s) => { s.text = 'listener' })
      assembly.contexts.forEach((c) => { c.text = 'listener' })
      assembly.variables.model = 'listener'
      assembly.tools.length = 0
      return next()
    })
    await app.systemPrompt.assemble()
    dispose()
    expect(fingerprint(await app.systemPrompt.assemble())).to.equal(reference)
  })
})
