import { expect } from 'chai'
import type { Context } from 'cordis'
import { PromptError, type AssembleListener, type PromptAssembly } from 'dsh-system-prompt'
import { bootApp, pluginContext, rejection, tick } from 'dsh-testing'

// What misbehaving.spec.ts does not already pin (issue 6, item 4): Promises from every kind of provider,
// nameless schemas, listeners that misuse next() without awaiting it, break the assembly in place, change
// it after returning, or never finish while the signal aborts. Each case ends with a clean assembly.

describe('reliability: misbehaving plugins', () => {
  let app: Context
  let bad: Context
  let baseline: string
  let stats: ReturnType<Context['systemPrompt']['stats']>
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => { unhandled.push(reason) }

  beforeEach(async () => {
    app = (await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Persona.' } })).app
    const good = await pluginContext(app, 'good-plugin', ['systemPrompt'])
    good.systemPrompt.section({ name: 'kept', order: 1, text: 'Kept.' })
    good.systemPrompt.context({ name: 'fact', order: 1, text: 'Fact.' })
    good.systemPrompt.tools(() => ({ schemas: [{ name: 'read', description: 'Read.' }] }))
    baseline = JSON.stringify(await app.systemPrompt.assemble())
    stats = app.systemPrompt.stats()
    bad = await pluginContext(app, 'bad-plugin', ['systemPrompt'])
    unhandled.length = 0
    process.on('unhandledRejection', onUnhandled)
  })

  afterEach(async () => {
    // Let late rejections surface, then prove the registry and later assemblies are untouched.
    await tick(20)
    process.off('unhandledRejection', onUnhandled)
    expect(unhandled, 'unhandled rejections').to.deep.equal([])
    await bad.fiber.dispose()
    expect(app.systemPrompt.stats()).to.deep.equal(stats)
    expect(JSON.stringify(await app.systemPrompt.assemble())).to.equal(baseline)
  })

  const fails = async (message: string) => {
    const error = await rejection(app.systemPrompt.assemble())
    expect(error).to.be.instanceOf(PromptError)
    expect(error.message).to.equal(message)
    // The same failure again: nothing was cached half-way.
    expect((await rejection(app.systemPrompt.assemble())).message).to.equal(message)
  }

  describe('providers returning Promises (and rejecting later)', () => {
    const late = () => new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error('late failure')), 1))

    it('a context text provider', async () => {
      bad.systemPrompt.context({ name: 'async', order: 2, text: late as never })
      await fails('prompt context "async" text provider of plugin "bad-plugin" returned a Promise; expected a string')
    })

    it('a section text provider', async () => {
      bad.systemPrompt.section({ name: 'async', order: 2, text: late as never })
      await fails('prompt section "async" text provider of plugin "bad-plugin" returned a Promise; expected a string')
    })

    it('a variable provider', async () => {
      bad.systemPrompt.variable('late', late as never)
      await fails('prompt variable "late" provider of plugin "bad-plugin" returned a Promise; expected a string or undefined')
    })

    it('a tool provider', async () => {
      bad.systemPrompt.tools(late as never)
      await fails('tool provider of plugin "bad-plugin" returned a Promise; expected an object { schemas: ToolSchema[], knownNames? }')
    })
  })

  describe('tool schemas without a usable name', () => {
    for (const [label, schema, received] of [
      ['an empty name', { name: '' }, 'an object'],
      ['a number name', { name: 7 }, 'an object'],
      ['null', null, 'null'],
      ['a string', 'read', 'a string "read"'],
    ] as const) {
      it(`rejects ${label}, naming the plugin and the index`, async () => {
        bad.systemPrompt.tools(() => ({ schemas: [{ name: 'fine' }, schema as never] }))
        await fails(`tool provider of plugin "bad-plugin" returned ${received}; expected a schema with a non-empty string name at index 1`)
      })
    }
  })

  describe('listeners', () => {
    const on = (listener: AssembleListener) => bad.on('system-prompt/assemble', listener)

    it('one that never calls next() and returns nothing', async () => {
      on((() => {}) as never)
      await fails('system-prompt/assemble listener of plugin "bad-plugin" returned a malformed assembly: it returned nothing (return next() or an assembly)')
    })

    it('one that calls next() twice without awaiting either, and returns an assembly', async () => {
      on(((assembly: PromptAssembly, _c: unknown, next: () => Promise<PromptAssembly>) => { void next(); void next(); return assembly }) as never)
      await fails('system-prompt/assemble listener of plugin "bad-plugin" called next() more than once')
    })

    it('one that calls next() without awaiting it cannot hide the failure of a later listener', async () => {
      on(((assembly: PromptAssembly, _c: unknown, next: () => Promise<PromptAssembly>) => { void next(); return assembly }) as never)
      const later = await pluginContext(app, 'later-plugin', ['systemPrompt'])
      later.on('system-prompt/assemble', () => { throw new Error('later bug') })
      await fails('system-prompt/assemble listener of plugin "later-plugin" failed: later bug')
      await later.fiber.dispose()
    })

    it('one that catches the rejection of next() cannot turn a later listener\'s failure into a success', async () => {
      on(async (assembly, _context, next) => {
        try {
          return await next()
        } catch {
          return assembly
        }
      })
      const later = await pluginContext(app, 'later-plugin', ['systemPrompt'])
      later.on('system-prompt/assemble', () => { throw new Error('later bug') })
      await fails('system-prompt/assemble listener of plugin "later-plugin" failed: later bug')
      await later.fiber.dispose()
    })

    it('one that breaks the assembly in place and hands it on is named, not the listener after it', async () => {
      on((assembly, _context, next) => { (assembly as { tools: unknown }).tools = null; return next() })
      const later = await pluginContext(app, 'later-plugin', ['systemPrompt'])
      later.on('system-prompt/assemble', (assembly, _context, next) => next(assembly))
      await fails('system-prompt/assemble listener of plugin "bad-plugin" returned a malformed assembly: tools is not an array')
      await later.fiber.dispose()
    })

    it('one that changes the assembly after returning (later, asynchronously) changes neither the result nor later assemblies', async () => {
      const kept: PromptAssembly[] = []
      on(async (assembly, _context, next) => {
        const result = await next(assembly)
        kept.push(assembly, result)
        setTimeout(() => {
          for (const held of kept) {
            held.sections.push({ name: 'injected', order: 0, text: 'Injected.' })
            held.sections[0].text = 'Rewritten.'
            held.contexts.length = 0
            held.variables.injected = 'yes'
            try { (held.tools as unknown[]).push({ name: 'evil' }) } catch { /* frozen */ }
          }
        }, 1)
        return result
      })
      const first = await app.systemPrompt.assemble()
      const asReturned = JSON.stringify(first)
      await tick(10)
      expect(JSON.stringify(first)).to.equal(asReturned)
      expect(asReturned).to.equal(baseline)
      await tick(10)
      expect(JSON.stringify(await app.systemPrompt.assemble())).to.equal(baseline)
    })

    it('one that never settles: aborting the signal rejects at once with an AbortError', async () => {
      on(() => new Promise<PromptAssembly>(() => {}))
      const controller = new AbortController()
      const pending = app.systemPrompt.assemble({ signal: controller.signal })
      setTimeout(() => controller.abort(), 5)
      const error = await rejection(pending)
      expect(error.name).to.equal('AbortError')
    })
  })
})
