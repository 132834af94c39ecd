import { expect } from 'chai'
import { Context } from 'cordis'
import { PromptError, type ToolSchema } from 'dsh-system-prompt'
import { bootApp, rejection } from 'dsh-testing'
import { BARE } from './helpers.js'

/** A schema nested `depth` levels below its `parameters`. */
function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  let at = root
  for (let i = 0; i < depth; i++) at = (at.child = {}) as Record<string, unknown>
  return root
}

/** A revoked Proxy: every operation on it throws. */
function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

describe('dsh-system-prompt: hostile values name their plugin', () => {
  let app: Context
  let plugin: Context
  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'bad-plugin' } }))
  })

  const fails = async (message: string) => {
    const error = await rejection(app.systemPrompt.assemble())
    expect(error).to.be.instanceOf(PromptError)
    expect(error.message).to.equal(message)
    return error
  }

  describe('tool schemas that cannot be frozen', () => {
    it('refuses a schema nested more than 256 levels at every assembly, leaving nothing frozen', async () => {
      const parameters = nested(300)
      plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'deep', description: 'D', parameters }] }))
      const message = 'tool schema "deep" of plugin "bad-plugin" cannot be frozen: tool schema is nested more than 256 levels deep'
      for (let i = 0; i < 3; i++) expect((await fails(message) as PromptError & { code: string }).code).to.equal('PROMPT_TOOL_SCHEMA_UNFREEZABLE')
      expect(Object.isFrozen(parameters)).to.equal(false)
    })

    it('refuses a schema with a getter that throws once at every assembly', async () => {
      let calls = 0
      const parameters = { type: 'object', get properties() { if (calls++ === 0) throw new Error('once'); return {} } }
      plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'getter', description: 'G', parameters }] }))
      const message = 'tool schema "getter" of plugin "bad-plugin" cannot be frozen: it has a getter at parameters.properties (tool schemas are plain data)'
      for (let i = 0; i < 3; i++) await fails(message)
      expect(Object.isFrozen(parameters)).to.equal(false)
    })

    it('refuses a cyclic schema and one holding a BigInt, naming the tool', async () => {
      const cyclic: Record<string, unknown> = { type: 'object' }
      cyclic.self = cyclic
      plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'cyclic', description: 'C', parameters: cyclic }] }))
      await fails('tool schema "cyclic" of plugin "bad-plugin" cannot be frozen: it refers back to itself at parameters.self (a request body must be JSON)')
    })

    it('refuses a schema holding a BigInt, naming the tool', async () => {
      plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'big', description: 'B', parameters: { maximum: 1n } as never }] }))
      await fails('tool schema "big" of plugin "bad-plugin" cannot be frozen: it holds a bigint at parameters.maximum (a request body must be JSON)')
    })

    it('refuses a tool a listener adds when it cannot be frozen, naming the listener\'s plugin', async () => {
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      plugin.on('system-prompt/assemble', async (assembly, _context, next) =>
        next({ ...assembly, tools: [...assembly.tools, { name: 'added', description: 'A', parameters: cyclic }] }))
      await fails('tool schema "added" of plugin "bad-plugin" cannot be frozen: it refers back to itself at parameters.self (a request body must be JSON)')
    })

    it('refuses parameters a listener swaps into a kept tool in place, naming the listener\'s plugin', async () => {
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'kept', description: 'K', parameters: { type: 'object' } }] }))
      plugin.on('system-prompt/assemble', async (assembly, _context, next) => {
        assembly.tools[0].parameters = cyclic
        return next()
      })
      await fails('tool schema "kept" of plugin "bad-plugin" cannot be frozen: it refers back to itself at parameters.self (a request body must be JSON)')
    })

    it('keeps a listener from writing into a deep part of a schema, in this assembly or a later one', async () => {
      const parameters = nested(200)
      plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'deep', description: 'D', parameters }] }))
      const writer = plugin.on('system-prompt/assemble', async (assembly, _context, next) => {
        const deepest = (tool: ToolSchema) => { let at = tool.parameters as Record<string, unknown>; while (at.child) at = at.child as Record<string, unknown>; return at }
        expect(() => { deepest(assembly.tools[0]).leak = true }).to.throw(TypeError)
        return next()
      })
      await app.systemPrompt.assemble()
      writer()
      expect(JSON.stringify(await app.systemPrompt.assemble())).not.to.include('leak')
    })
  })

  describe('thrown values that are not Errors', () => {
    const cases: Array<[string, () => unknown, string]> = [
      ['undefined', () => undefined, 'undefined was thrown, not an Error'],
      ['a Symbol', () => Symbol('odd'), 'a symbol (Symbol(odd)) was thrown, not an Error'],
      ['a null-prototype object', () => Object.create(null), 'an object was thrown, not an Error'],
      ['a revoked Proxy', revoked, 'an unreadable value (a revoked Proxy?) was thrown, not an Error'],
    ]
    for (const [label, make, described] of cases) {
      it(`names the plugin when a text provider throws ${label}`, async () => {
        plugin.systemPrompt.section({ name: 's', order: 1, text: () => { throw make() } })
        await fails(`prompt section "s" text provider of plugin "bad-plugin" failed: ${described}`)
      })

      it(`names the plugin when a listener throws ${label}`, async () => {
        plugin.on('system-prompt/assemble', () => { throw make() })
        await fails(`system-prompt/assemble listener of plugin "bad-plugin" failed: ${described}`)
      })
    }

    it('names the plugin when a text provider returns a Proxy whose get throws', async () => {
      const hostile = new Proxy({}, { get() { throw new Error('trap') } })
      plugin.systemPrompt.section({ name: 's', order: 1, text: () => hostile as never })
      await fails('prompt section "s" text provider of plugin "bad-plugin" returned an object; expected a string')
    })
  })

  describe('variables a listener sets', () => {
    for (const [label, value, described] of [['null', null, 'null'], ['a number', 42, 'a number (42)'], ['an array', ['x'], 'an array'], ['an object', { a: 1 }, 'an object']] as const) {
      it(`refuses a listener that sets a variable to ${label}`, async () => {
        plugin.systemPrompt.section({ name: 's', order: 1, text: 'W: {{w}}' })
        plugin.on('system-prompt/assemble', (assembly, _context, next) => next({ ...assembly, variables: { ...assembly.variables, w: value as never } }))
        await fails(`system-prompt/assemble listener of plugin "bad-plugin" returned a malformed assembly: variables.w is ${described}; expected a string or undefined`)
      })
    }
    for (const name of ['Bad', 'has-dash', '']) {
      it(`refuses a listener that adds a variable named ${JSON.stringify(name)}, which no template can reference`, async () => {
        plugin.on('system-prompt/assemble', (assembly, _context, next) => next({ ...assembly, variables: { ...assembly.variables, [name]: 'x' } }))
        const error = await fails(`system-prompt/assemble listener of plugin "bad-plugin" returned a malformed assembly: variables has ${JSON.stringify(name)}, a name no template can reference (variable names match /^[a-z][a-z0-9_]*$/)`)
        expect((error as PromptError & { code: string }).code).to.equal('PROMPT_MALFORMED_ASSEMBLY')
      })
    }
  })
})
