import { expect } from 'chai'
import { WireSession, type WireTool } from 'dsh-wire'
import { input, reply, system, user } from './helpers.js'

/** A tool whose parameters are deeply frozen, as dsh-system-prompt hands them to a step. */
function frozenTool(name: string): WireTool {
  const properties = Object.freeze({ path: Object.freeze({ type: 'string' }) })
  return { name, description: `Use ${name}.`, parameters: Object.freeze({ type: 'object', properties, required: Object.freeze(['path']) }) }
}

type Declaration = Record<string, unknown>
type Listed = { tools: Declaration[] }

/** The first tool declaration of a request body, in each format's place for it. */
const firstTool: Record<'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini', (request: unknown) => Declaration> = {
  'openai-chat': (request) => (request as Listed).tools[0],
  'openai-responses': (request) => (request as Listed).tools[0],
  anthropic: (request) => (request as Listed).tools[0],
  gemini: (request) => (request as { config: { tools: Array<{ functionDeclarations: Declaration[] }> } }).config.tools[0].functionDeclarations[0],
}

describe('dsh-wire: a session shares its head\'s lowered tools between steps, never the caller\'s', () => {
  for (const format of Object.keys(firstTool) as Array<keyof typeof firstTool>) {
    it(`${format}: each request hands the caller tool declarations of its own, writable, and a change to one is not in the next body`, () => {
      const session = new WireSession(format)
      const tools = [frozenTool('read'), frozenTool('grep')]
      const record = [system('Be brief.'), user('Hi.')]
      const first = session.build(input(record, { tools: tools.map((tool) => ({ ...tool })) }))
      const declared = firstTool[format](first.request)
      const pristine = JSON.stringify(declared)
      expect(Object.isFrozen(declared)).to.equal(false)
      declared.description = 'changed by the caller'
      declared.name = 'renamed'
      const second = session.build(input([...record, reply('Hello.'), user('More.')], { tools: tools.map((tool) => ({ ...tool })) }))
      expect(JSON.stringify(firstTool[format](second.request))).to.equal(pristine)
      expect(JSON.stringify(firstTool[format](JSON.parse(second.body)))).to.equal(pristine)
      expect(firstTool[format](second.request)).to.not.equal(declared)
    })
  }
})
