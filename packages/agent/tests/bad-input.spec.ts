import { expect } from 'chai'
import { Context } from 'cordis'
import { Agents } from 'dsh-agent'
import { SystemPrompt } from 'dsh-system-prompt'
import { bootApp, rejection, thrown, tool } from 'dsh-testing'
import { stats } from './helpers.js'

describe('dsh-agent: bad input changes nothing', () => {
  let app: Context
  let harness: Context
  beforeEach(async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, tools: true, agents: true }))
    harness.tools.register(tool('read'))
    harness.agents.definePreset('writer')
    harness.agents.definePreset('reviewer')
    await harness.agents.create({ id: 'lead', model: 'deepseek-chat' })
  })

  /** Expects `create()` with `options` to reject with `message` and nothing to change. */
  async function refusedCreate(options: unknown, message: string): Promise<void> {
    const before = stats(app)
    const error = await rejection(harness.agents.create(options as never))
    expect(error.message).to.equal(message)
    expect(stats(app)).to.deep.equal(before)
  }

  it('an id that is a BigInt, described rather than crashing the message', () => refusedCreate(
    { id: 1n, model: 'deepseek-chat' }, 'agent id must be a non-empty string, received a bigint (1)',
  ))

  for (const [label, parent, received] of [['an empty object', {}, 'an object'], ['a number', 7, 'a number (7)'], ['null', null, 'null']] as const) {
    it(`a parent that is ${label}, neither an agent nor an id`, () => refusedCreate(
      { id: 'a', model: 'deepseek-chat', parent }, `agent "a" parent must be an agent or an agent's id, received ${received}`,
    ))
  }

  it('an unknown preset, listing the known ones', () => refusedCreate(
    { id: 'a', model: 'deepseek-chat', preset: 'auditor' },
    'unknown preset "auditor"; known presets: reviewer, writer',
  ))

  it('an unknown preset when none is defined says "(none)"', async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: true, tools: true, agents: true }))
    await refusedCreate({ id: 'a', model: 'deepseek-chat', preset: 'auditor' }, 'unknown preset "auditor"; known presets: (none)')
  })

  it('a duplicate agent id, leaving the live agent as it was', async () => {
    const lead = app.agents.get('lead')!
    await refusedCreate({ id: 'lead', model: 'deepseek-reasoner' }, 'agent "lead" already exists; dispose it first or choose another id')
    expect(app.agents.get('lead')).to.equal(lead)
    expect(lead.model).to.equal('deepseek-chat')
  })

  it('an invalid promptChange', () => refusedCreate(
    { id: 'a', model: 'deepseek-chat', promptChange: 'prepend' },
    'promptChange must be "append" or "replace", received "prepend"',
  ))

  it('an empty agent id', () => refusedCreate({ id: '', model: 'deepseek-chat' }, 'agent id must be a non-empty string, received ""'))

  it('a missing model', () => refusedCreate({ id: 'a' }, 'agent "a" needs a model (a non-empty string)'))

  it('an unknown parent agent', () => refusedCreate(
    { id: 'helper', model: 'deepseek-chat', parent: 'ghost' },
    'agent "helper" names parent agent "ghost", which does not exist',
  ))

  it('a disposed parent agent', async () => {
    const lead = app.agents.get('lead')!
    await lead.dispose()
    await refusedCreate({ id: 'helper', model: 'deepseek-chat', parent: lead }, 'agent "helper" names parent agent "lead", which does not exist')
  })

  it('a duplicate preset id', () => {
    const before = stats(app)
    expect(thrown(() => harness.agents.definePreset('writer')).message).to.equal('preset "writer" is already defined')
    expect(stats(app)).to.deep.equal(before)
  })

  it('an empty preset id', () => {
    const before = stats(app)
    expect(thrown(() => harness.agents.definePreset('')).message).to.equal('preset id must be a non-empty string, received ""')
    expect(stats(app)).to.deep.equal(before)
  })

  it('an invalid promptChange in the service config fails the plugin load, naming the key', async () => {
    const other = new Context()
    await other.plugin(SystemPrompt, {})
    const error = await rejection(other.plugin(Agents, { promptChange: 'prepend' as never }) as unknown as Promise<void>)
    expect(error.message).to.include('$.promptChange').and.to.include('"prepend"')
  })

  it('a restriction through the harness (global) context', async () => {
    const before = stats(app)
    expect(thrown(() => harness.tools.restrict({ deny: ['read'] })).message).to.equal(
      'tools.restrict() needs a scoped context (an agent\'s or a preset\'s ctx): a restriction through a global context would hide tools from every agent',
    )
    expect(stats(app)).to.deep.equal(before)
  })

  it('a restriction of an unknown tool through an agent', async () => {
    const lead = app.agents.get('lead')!
    const before = stats(app)
    expect(thrown(() => lead.ctx.tools.restrict({ allow: ['reed'] })).message)
      .to.equal('tools.restrict() names unknown tool "reed"; known tools: read')
    expect(stats(app)).to.deep.equal(before)
    expect((await lead.step()).tools!.map((t) => t.function.name)).to.deep.equal(['read'])
  })

  it('a tool with an invalid JSON Schema through an agent', async () => {
    const lead = app.agents.get('lead')!
    const before = stats(app)
    expect(thrown(() => lead.ctx.tools.register(tool('grep', { parameters: { type: 'object', properties: { pattern: { type: 'text' } } } }))).message)
      .to.equal('tool "grep" parameters are not a valid JSON Schema object: parameters/properties/pattern/type must be equal to one of the allowed values, parameters/properties/pattern/type must be array, parameters/properties/pattern/type must match a schema in anyOf')
    expect(stats(app)).to.deep.equal(before)
  })
})
