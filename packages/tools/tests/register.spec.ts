import { expect } from 'chai'
import { Context } from 'cordis'
import { ToolErrors } from 'dsh-tools'
import { bootApp, describeChanges, objectSchema, pluginContext, promptText, recordChanges, scope, thrown, tool } from 'dsh-testing'
import { stats, toolNames } from './helpers.js'

describe('dsh-tools: registration', () => {
  let app: Context
  let host: Context
  beforeEach(async () => { ({ app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true })) })

  it('a tool registered through a plugin context is offered to the global assembly and to every scope', async () => {
    const plugin = await pluginContext(app, 'fs', ['systemPrompt', 'tools'])
    plugin.tools.register(tool('read'))
    const agent = scope(plugin, 'agent')
    const assembly = await app.systemPrompt.assemble()
    expect(assembly.tools).to.deep.equal([{ name: 'read', description: 'The read tool.', parameters: objectSchema() }])
    expect(await toolNames(app, agent.key)).to.deep.equal(['read'])
  })

  it('a tool registered through a scoped context is offered to that scope and its descendants only', async () => {
    const agent = scope(host, 'agent')
    const child = scope(host, 'child', agent.key)
    const sibling = scope(host, 'sibling')
    agent.ctx.tools.register(tool('notes'))
    expect(await toolNames(app, agent.key)).to.deep.equal(['notes'])
    expect(await toolNames(app, child.key)).to.deep.equal(['notes'])
    expect(await toolNames(app, sibling.key)).to.deep.equal([])
    expect(await toolNames(app)).to.deep.equal([])
  })

  it('offers tools in code-unit name order, whatever the registration order', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt', 'tools'])
    for (const name of ['web_fetch', 'Zeta', 'bash', 'a-b', 'a_b']) plugin.tools.register(tool(name))
    expect(await toolNames(app)).to.deep.equal(['Zeta', 'a-b', 'a_b', 'bash', 'web_fetch'])
  })

  it('refuses a second tool of the same name in the global layer, with the exact message', async () => {
    const first = await pluginContext(app, 'first', ['systemPrompt', 'tools'])
    const second = await pluginContext(app, 'second', ['systemPrompt', 'tools'])
    first.tools.register(tool('read'))
    const before = stats(app)
    const error = thrown(() => second.tools.register(tool('read', { description: 'Another read.' })))
    expect(error.message).to.equal('tool "read" is already registered (register the second one through a narrower scope to shadow it there)')
    expect(error.message).to.equal(ToolErrors.duplicateGlobalTool('read').message)
    expect(stats(app)).to.deep.equal(before)
    expect((await app.systemPrompt.assemble()).tools[0].description).to.equal('The read tool.')
  })

  it('refuses a second tool of the same name in one scope, with the scoped message', async () => {
    const agent = scope(host, 'agent')
    agent.ctx.tools.register(tool('notes'))
    const before = stats(app)
    const error = thrown(() => agent.ctx.tools.register(tool('notes')))
    expect(error.message).to.equal('tool "notes" is already registered in this scope')
    expect(stats(app)).to.deep.equal(before)
  })

  it('lets a scope shadow a global tool: the scope gets its own schema, every other assembly the global one', async () => {
    host.tools.register(tool('read'))
    const agent = scope(host, 'agent')
    const sibling = scope(host, 'sibling')
    agent.ctx.tools.register(tool('read', { description: 'Read a file of the review.' }))
    expect((await app.systemPrompt.assemble({ scope: agent.key })).tools.map((t) => t.description)).to.deep.equal(['Read a file of the review.'])
    expect((await app.systemPrompt.assemble({ scope: sibling.key })).tools.map((t) => t.description)).to.deep.equal(['The read tool.'])
    // The owner is the fiber that made the registration: the scope's own fiber, named by its label.
    expect(app.tools.view(agent.key).origin.get('read')).to.deep.equal({ owner: 'agent', scope: agent.key })
  })

  it('the returned disposer removes that tool only, and is idempotent', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt', 'tools'])
    const disposeRead = plugin.tools.register(tool('read'))
    plugin.tools.register(tool('write'))
    disposeRead()
    disposeRead()
    expect(await toolNames(app)).to.deep.equal(['write'])
    expect(app.tools.stats().entries).to.equal(1)
  })

  it('disposing the plugin removes its tools and their guidance', async () => {
    const other = await pluginContext(app, 'other', ['systemPrompt', 'tools'])
    other.tools.register(tool('bash'))
    const baseline = stats(app)
    const fiber = app.plugin({ name: 'fs', inject: ['tools'], apply(ctx: Context) {
      ctx.tools.register(tool('read', { guidance: 'Read before you edit.' }))
      ctx.tools.register(tool('write'))
    } }) as unknown as { dispose(): unknown }
    await fiber
    expect(await toolNames(app)).to.deep.equal(['bash', 'read', 'write'])
    expect(await promptText(app)).to.equal('Read before you edit.')
    await fiber.dispose()
    expect(await toolNames(app)).to.deep.equal(['bash'])
    expect(await promptText(app)).to.equal('')
    expect(stats(app)).to.deep.equal(baseline)
  })

  it('disposing a scope removes the tools registered through it and reclaims its layer', async () => {
    const baseline = stats(app)
    const agent = scope(host, 'agent')
    agent.ctx.tools.register(tool('notes', { guidance: { text: 'Keep notes short.', order: 3000 } }))
    expect(app.tools.stats()).to.deep.equal({ layers: 1, scopeLayers: 1, entries: 1 })
    await agent.dispose()
    expect(await toolNames(app, agent.key)).to.deep.equal([])
    expect(stats(app)).to.deep.equal(baseline)
  })

  it('emits tools/change on registration and disposal', async () => {
    const events = recordChanges(app, 'tools/change')
    const plugin = await pluginContext(app, 'p', ['systemPrompt', 'tools'])
    const dispose = plugin.tools.register(tool('read'))
    dispose()
    expect(describeChanges(events)).to.deep.equal(['tool register read', 'tool dispose read'])
  })

  it('keeps the registered schema detached: changing the caller\'s object later changes nothing', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt', 'tools'])
    const parameters = objectSchema()
    plugin.tools.register({ name: 'read', description: 'Read.', parameters })
    ;(parameters.properties as Record<string, unknown>).extra = { type: 'number' }
    const [schema] = (await app.systemPrompt.assemble()).tools
    expect(schema.parameters).to.deep.equal(objectSchema())
    expect(Object.isFrozen(schema.parameters)).to.equal(true)
  })
})

describe('dsh-tools: bad tool definitions', () => {
  let app: Context
  let plugin: Context
  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, host: { name: 'p' } }))
    plugin.tools.register(tool('existing'))
  })

  /** Registers `definition`, expects `message`, and proves nothing changed. */
  async function refused(definition: unknown, message: string): Promise<void> {
    const before = stats(app)
    const events = recordChanges(app, 'tools/change')
    const error = thrown(() => plugin.tools.register(definition as never))
    expect(error.message).to.equal(message)
    expect(stats(app)).to.deep.equal(before)
    expect(describeChanges(events)).to.deep.equal([])
    expect(await toolNames(app)).to.deep.equal(['existing'])
  }

  it('refuses a name with a space', () =>
    refused(tool('read file'), 'invalid tool name "read file" (must match /^[a-zA-Z0-9_-]{1,64}$/)'))

  it('refuses a name longer than 64 characters', () =>
    refused(tool('x'.repeat(65)), `invalid tool name "${'x'.repeat(65)}" (must match /^[a-zA-Z0-9_-]{1,64}$/)`))

  it('refuses a missing name', () =>
    refused({ description: 'd', parameters: objectSchema() }, 'invalid tool name "undefined" (must match /^[a-zA-Z0-9_-]{1,64}$/)'))

  it('refuses a description that is not a string', () =>
    refused(tool('read', { description: 42 as never }), 'tool "read" description must be a string'))

  it('refuses parameters that are not an object', () =>
    refused(tool('read', { parameters: [] as never }), 'tool "read" parameters are not a valid JSON Schema object: expected an object, received an array'))

  it('refuses parameters that are not a valid JSON Schema, quoting the validator', () =>
    refused(
      tool('read', { parameters: { type: 'object', properties: { path: { type: 'strnig' } } } }),
      'tool "read" parameters are not a valid JSON Schema object: parameters/properties/path/type must be equal to one of the allowed values, parameters/properties/path/type must be array, parameters/properties/path/type must match a schema in anyOf',
    ))

  it('refuses a "required" keyword that is not an array', () =>
    refused(
      tool('read', { parameters: { type: 'object', required: 'path' } }),
      'tool "read" parameters are not a valid JSON Schema object: parameters/required must be array',
    ))

  it('refuses a valid schema whose top level is not an object type', () =>
    refused(
      tool('read', { parameters: { type: 'array', items: { type: 'string' } } }),
      'tool "read" parameters are not a valid JSON Schema object: the top level must have "type": "object", found "array"',
    ))

  it('refuses a schema without a top-level type', () =>
    refused(
      tool('read', { parameters: { properties: { path: { type: 'string' } } } }),
      'tool "read" parameters are not a valid JSON Schema object: the top level must have "type": "object", found null',
    ))

  it('accepts keywords the validator does not know (providers accept them)', async () => {
    plugin.tools.register(tool('read', { parameters: { type: 'object', properties: {}, additionalProperties: false, 'x-hint': 'ok' } }))
    expect(await toolNames(app)).to.deep.equal(['existing', 'read'])
  })
})
