import { expect } from 'chai'
import { WireSession, type WireTool } from 'dsh-wire'
import { input, reply, system, user } from './helpers.js'

/** A tool whose parameters are deeply frozen, as dsh-system-prompt hands them to a step. */
function frozenTool(name: string): WireTool {
  const properties = Object.freeze({ path: Object.freeze({ type: 'string' }) })
  return { name, description: `Use ${name}.`, parameters: Object.freeze({ type: 'object', properties, required: Object.freeze(['path']) }) }
}

describe('dsh-wire: a session shares its head\'s lowered tools between steps, never the caller\'s', () => {
  it('anthropic: each request hands the caller tool declarations of its own, writable, and a change to one is not in the next body', () => {
    const session = new WireSession('anthropic')
    const tools = [frozenTool('read'), frozenTool('grep')]
    const record = [system('Be brief.'), user('Hi.')]
    const first = session.build(input(record, { tools: tools.map((tool) => ({ ...tool })) }))
    const declared = first.request.tools!
    expect(Object.isFrozen(declared[0])).to.equal(false)
    expect(Object.isFrozen(declared[0].input_schema)).to.equal(false)
    declared[0].description = 'changed by the caller'
    declared[0].input_schema.extra = true
    const second = session.build(input([...record, reply('Hello.'), user('More.')], { tools: tools.map((tool) => ({ ...tool })) }))
    expect(second.request.tools![0]).to.deep.equal({ name: 'read', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, description: 'Use read.' })
    expect(JSON.parse(second.body).tools[0].description).to.equal('Use read.')
    expect(second.request.tools![0]).to.not.equal(declared[0])
  })
})
