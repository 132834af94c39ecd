import { expect } from 'chai'
import { Context } from 'cordis'
import { PromptError, type AssembleListener, type PromptAssembly, type PromptContext, type PromptSection } from 'dsh-system-prompt'
import { bootApp, pluginContext, promptText, recordChanges, rejection, scope, thrown, tick } from 'dsh-testing'
import { BARE, counted, sectionTexts } from './helpers.js'

describe('dsh-system-prompt: misbehaving input', () => {
  let app: Context
  let plugin: Context
  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'bad-plugin' } }))
    plugin.systemPrompt.section({ name: 'kept', order: 1, text: 'Kept.' })
    plugin.systemPrompt.context({ name: 'kept', order: 1, text: 'Kept fact.' })
  })

  /** Asserts that `register` throws `type` with `message`, and that it left nothing behind and emitted nothing. */
  async function expectRefused(register: () => unknown, type: typeof Error | typeof TypeError, message: string) {
    const events = recordChanges(app)
    const stats = app.systemPrompt.stats()
    const before = JSON.stringify(await app.systemPrompt.assemble())
    const error = thrown(register)
    expect(error).to.be.instanceOf(type)
    expect(error.message).to.equal(message)
    expect(app.systemPrompt.stats()).to.deep.equal(stats)
    expect(JSON.stringify(await app.systemPrompt.assemble())).to.equal(before)
    expect(events).to.deep.equal([])
  }

  describe('invalid registrations', () => {
    for (const kind of ['section', 'context'] as const) {
      const register = (ctx: Context, input: unknown) =>
        kind === 'section' ? ctx.systemPrompt.section(input as PromptSection) : ctx.systemPrompt.context(input as PromptContext)

      for (const order of [NaN, Infinity, -Infinity, '1', undefined, null]) {
        it(`refuses a ${kind} whose order is ${String(typeof order === 'string' ? JSON.stringify(order) : order)}`, async () => {
          await expectRefused(() => register(plugin, { name: 'x', order, text: 'X' }), TypeError,
            `prompt ${kind} "x" order must be a finite number`)
        })
      }

      for (const [label, name] of [['an empty name', ''], ['a number name', 42], ['no name', undefined], ['a name with a newline', 'a\nb'], ['a name with a NUL', 'a\u0000']] as const) {
        it(`refuses a ${kind} with ${label}`, async () => {
          const received = typeof name === 'string' ? `a string ${JSON.stringify(name)}` : name === undefined ? 'undefined' : `a number (${name})`
          await expectRefused(() => register(plugin, { name, order: 1, text: 'X' }), TypeError,
            `prompt ${kind} name must be a non-empty string without control characters, received ${received}`)
        })
      }

      for (const [text, received] of [[42, 'a number (42)'], [null, 'null'], [undefined, 'undefined'], [{}, 'an object'], [['x'], 'an array']] as const) {
        it(`refuses a ${kind} whose text is ${received}`, async () => {
          await expectRefused(() => register(plugin, { name: 'x', order: 1, text }), TypeError,
            `prompt ${kind} "x" text must be a string or a function, received ${received}`)
        })
      }

      it(`refuses a ${kind} that is not an object`, async () => {
        await expectRefused(() => register(plugin, null), TypeError,
          `prompt ${kind} name must be a non-empty string without control characters, received null`)
      })

      it(`refuses a duplicate ${kind} name in the global layer, even from another plugin`, async () => {
        const other = await pluginContext(app, 'other-plugin', ['systemPrompt'])
        await expectRefused(() => register(other, { name: 'kept', order: 2, text: 'Again.' }), Error,
          `prompt ${kind} "kept" is already registered (register the second one through a narrower scope to shadow it there)`)
      })

      it(`refuses a duplicate ${kind} name in one scope`, async () => {
        const agent = scope(plugin, 'agent')
        register(agent.ctx, { name: 'mine', order: 1, text: 'Mine.' })
        await expectRefused(() => register(agent.ctx, { name: 'mine', order: 2, text: 'Again.' }), Error,
          `prompt ${kind} "mine" is already registered in this scope`)
        const assembly = await app.systemPrompt.assemble({ scope: agent.key })
        const texts = (kind === 'section' ? assembly.sections : assembly.contexts).map((e) => e.text)
        expect(texts).to.include('Mine.').and.not.include('Again.')
      })
    }

    it('refuses a duplicate variable name in the global layer and in one scope', async () => {
      plugin.systemPrompt.variable('model', () => 'first')
      await expectRefused(() => plugin.systemPrompt.variable('model', () => 'second'), Error,
        'prompt variable "model" is already registered (register the second one through a narrower scope to shadow it there)')
      const agent = scope(plugin, 'agent')
      agent.ctx.systemPrompt.variable('cwd', () => '/a')
      await expectRefused(() => agent.ctx.systemPrompt.variable('cwd', () => '/b'), Error,
        'prompt variable "cwd" is already registered in this scope')
      expect((await app.systemPrompt.assemble({ scope: agent.key })).variables).to.deep.equal({ cwd: '/a', model: 'first' })
    })

    it('refuses a non-function tool provider and variable provider', async () => {
      await expectRefused(() => plugin.systemPrompt.tools([{ name: 'x' }] as never), TypeError, 'tool provider must be a function, received an array')
      await expectRefused(() => plugin.systemPrompt.variable('x', 'value' as never), TypeError,
        'prompt variable "x" provider must be a function, received a string "value"')
    })

    it('a failed duplicate does not take the first registration down when its plugin is disposed', async () => {
      const other = await pluginContext(app, 'other-plugin', ['systemPrompt'])
      expect(() => other.systemPrompt.section({ name: 'kept', order: 1, text: 'Usurper.' })).to.throw()
      await other.fiber.dispose()
      expect(sectionTexts(await app.systemPrompt.assemble())).to.include('kept=Kept.')
    })

    it('a plugin whose apply registers a duplicate fails to load and leaves none of its registrations', async () => {
      const stats = app.systemPrompt.stats()
      const error = await rejection(app.plugin({
        name: 'clumsy', inject: ['systemPrompt'], apply(ctx: Context) {
          ctx.systemPrompt.section({ name: 'clumsy:own', order: 5, text: 'Own.' })
          ctx.systemPrompt.section({ name: 'kept', order: 1, text: 'Duplicate.' })
        },
      }))
      expect(error.message).to.equal('prompt section "kept" is already registered (register the second one through a narrower scope to shadow it there)')
      expect(app.systemPrompt.stats()).to.deep.equal(stats)
      expect(await promptText(app)).to.equal('Kept.')
    })
  })

  describe('throwing and misbehaving providers', () => {
    it('a throwing section text provider rejects assemble(), naming the section and the plugin', async () => {
      plugin.systemPrompt.section({ name: 'flaky', order: 2, text: () => { throw new Error('disk on fire') } })
      const error = await rejection(app.systemPrompt.assemble())
      expect(error.message).to.equal('prompt section "flaky" text provider of plugin "bad-plugin" failed: disk on fire')
      expect(error).to.be.instanceOf(PromptError)
      expect(error.cause).to.be.instanceOf(Error).and.have.property('message', 'disk on fire')
    })

    it('a throwing context text provider rejects assemble(), naming the context and the plugin', async () => {
      plugin.systemPrompt.context({ name: 'flaky', order: 2, text: () => { throw new Error('no network') } })
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('prompt context "flaky" text provider of plugin "bad-plugin" failed: no network')
    })

    it('a throwing variable provider rejects assemble(), naming the variable and the plugin', async () => {
      plugin.systemPrompt.variable('cwd', () => { throw new Error('gone') })
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('prompt variable "cwd" provider of plugin "bad-plugin" failed: gone')
    })

    it('a throwing tool provider rejects assemble(), naming the plugin', async () => {
      plugin.systemPrompt.tools(() => { throw new Error('registry broken') })
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('tool provider of plugin "bad-plugin" failed: registry broken')
    })

    it('names the Cordis plugin name of a provider registered through a scope: the scope\'s label', async () => {
      const agent = scope(plugin, 'agent:reviewer')
      agent.ctx.systemPrompt.tools(() => { throw 'a string' })
      expect((await rejection(app.systemPrompt.assemble({ scope: agent.key }))).message)
        .to.equal('tool provider of plugin "agent:reviewer" failed: a string')
    })

    it('rejects a text provider that returns a non-string', async () => {
      plugin.systemPrompt.section({ name: 'num', order: 2, text: (() => 42) as never })
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('prompt section "num" text provider of plugin "bad-plugin" returned a number (42); expected a string')
    })

    it('rejects a text provider that returns a Promise', async () => {
      plugin.systemPrompt.section({ name: 'async', order: 2, text: (async () => 'late') as never })
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('prompt section "async" text provider of plugin "bad-plugin" returned a Promise; expected a string')
    })

    it('rejects a variable provider that returns a non-string', async () => {
      plugin.systemPrompt.variable('n', (() => 1) as never)
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('prompt variable "n" provider of plugin "bad-plugin" returned a number (1); expected a string or undefined')
    })

    it('rejects a tool provider that returns no schemas array', async () => {
      plugin.systemPrompt.tools((() => undefined) as never)
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('tool provider of plugin "bad-plugin" returned undefined; expected an object { schemas: ToolSchema[], knownNames? }')
    })

    it('rejects a tool provider that returns a schema without a name', async () => {
      plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'ok' }, { description: 'nameless' } as never] }))
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('tool provider of plugin "bad-plugin" returned an object; expected a schema with a non-empty string name at index 1')
    })

    it('rejects a tool provider whose knownNames is not a string array', async () => {
      plugin.systemPrompt.tools(() => ({ schemas: [], knownNames: 'read' as never }))
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('tool provider of plugin "bad-plugin" returned a string "read"; expected knownNames as an array of strings')
    })

    it('recovers: once the bad provider is gone the next assembly succeeds', async () => {
      const dispose = plugin.systemPrompt.section({ name: 'flaky', order: 2, text: () => { throw new Error('x') } })
      await rejection(app.systemPrompt.assemble())
      dispose()
      expect(await promptText(app)).to.equal('Kept.')
    })

    it('a failure in one scope does not affect a sibling\'s assembly', async () => {
      const agent = scope(plugin, 'agent')
      const sibling = scope(plugin, 'sibling')
      agent.ctx.systemPrompt.section({ name: 'flaky', order: 2, text: () => { throw new Error('x') } })
      await rejection(app.systemPrompt.assemble({ scope: agent.key }))
      expect(await promptText(app, { scope: sibling.key })).to.equal('Kept.')
    })
  })

  describe('misbehaving listeners', () => {
    const listenerError = (message: string) => `system-prompt/assemble listener of plugin "bad-plugin" ${message}`

    it('a throwing listener rejects assemble(), naming its plugin', async () => {
      plugin.on('system-prompt/assemble', () => { throw new Error('listener bug') })
      expect((await rejection(app.systemPrompt.assemble())).message).to.equal(listenerError('failed: listener bug'))
    })

    it('an async listener that rejects rejects assemble(), naming its plugin', async () => {
      plugin.on('system-prompt/assemble', async () => { throw new Error('async bug') })
      expect((await rejection(app.systemPrompt.assemble())).message).to.equal(listenerError('failed: async bug'))
    })

    it('names the plugin of the failing listener, not of the one that called next()', async () => {
      const outer = await pluginContext(app, 'outer-plugin', ['systemPrompt'])
      outer.on('system-prompt/assemble', (_a, _c, next) => next())
      plugin.on('system-prompt/assemble', () => { throw new Error('inner bug') })
      expect((await rejection(app.systemPrompt.assemble())).message).to.equal(listenerError('failed: inner bug'))
    })

    it('a listener that returns nothing rejects assemble()', async () => {
      plugin.on('system-prompt/assemble', ((_a: PromptAssembly, _c: unknown, next: () => Promise<PromptAssembly>) => { next() }) as never)
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal(listenerError('returned a malformed assembly: it returned nothing (return next() or an assembly)'))
    })

    it('a listener that calls next() twice rejects assemble()', async () => {
      plugin.on('system-prompt/assemble', async (_a, _c, next) => { await next(); return next() })
      expect((await rejection(app.systemPrompt.assemble())).message).to.equal(listenerError('called next() more than once'))
    })

    it('a listener calling next() twice does not run the later listeners twice', async () => {
      const later = counted('')
      plugin.on('system-prompt/assemble', async (_a, _c, next) => { await next(); return next() })
      plugin.on('system-prompt/assemble', (assembly) => { later(); return assembly })
      await rejection(app.systemPrompt.assemble())
      expect(later.calls).to.equal(1)
    })

    const malformed: Array<[string, (a: PromptAssembly) => unknown, string]> = [
      ['null', () => null, 'expected an assembly object, got null'],
      ['a string', () => 'prompt', 'expected an assembly object, got string'],
      ['sections that are not an array', (a) => ({ ...a, sections: 'x' }), 'sections is not an array'],
      ['a section without a name', (a) => ({ ...a, sections: [{ order: 1, text: 'x' }] }), 'sections[0] has no name'],
      ['a section whose text is not a string', (a) => ({ ...a, sections: [{ name: 's', order: 1, text: 3 }] }), 'sections[0] ("s") text is not a string'],
      ['a section whose order is NaN', (a) => ({ ...a, sections: [{ name: 's', order: NaN, text: '' }] }), 'sections[0] ("s") order is not a finite number'],
      ['a section name twice', (a) => ({ ...a, sections: [{ name: 's', order: 1, text: '' }, { name: 's', order: 2, text: '' }] }), 'sections contain "s" twice'],
      // Absent (or undefined) contexts are the published three-field shape and are kept (published-plugins.spec.ts).
      ['contexts that are null', (a) => ({ ...a, contexts: null }), 'contexts is not an array'],
      ['contexts that are an object', (a) => ({ ...a, contexts: {} }), 'contexts is not an array'],
      ['a frozen assembly without contexts', (a) => Object.freeze({ sections: a.sections, tools: a.tools, variables: a.variables }),
        'contexts is absent and the assembly cannot take the kept ones (it is not writable)'],
      ['a context that is not an object', (a) => ({ ...a, contexts: [null] }), 'contexts[0] is not an object'],
      ['tools that are not an array', (a) => ({ ...a, tools: {} }), 'tools is not an array'],
      ['a tool without a name', (a) => ({ ...a, tools: [{ description: 'x' }] }), 'tools[0] has no name'],
      ['a tool name twice', (a) => ({ ...a, tools: [{ name: 't' }, { name: 't' }] }), 'tools contain "t" twice'],
      ['variables that are null', (a) => ({ ...a, variables: null }), 'variables is not an object'],
    ]
    for (const [what, make, problem] of malformed) {
      it(`a listener returning ${what} rejects assemble() as malformed`, async () => {
        plugin.on('system-prompt/assemble', ((assembly: PromptAssembly) => make(assembly)) as never)
        expect((await rejection(app.systemPrompt.assemble())).message).to.equal(listenerError(`returned a malformed assembly: ${problem}`))
      })
    }

    for (const [what, change] of [
      ['appended to a copy of a long list', (a: PromptAssembly) => ({ ...a, sections: [...a.sections, { name: 's3', order: 99, text: 'again' }] })],
      ['pushed into a long list in place', (a: PromptAssembly) => { a.sections.push({ name: 's3', order: 99, text: 'again' }); return a }],
      ['written in place before next() is called', (a: PromptAssembly) => { a.sections[6].name = 's3'; return a }],
    ] as const) {
      it(`refuses a repeated name ${what}, however the list was checked before`, async () => {
        for (let i = 0; i < 12; i++) plugin.systemPrompt.section({ name: `s${i}`, order: 10 + i, text: 'x' })
        plugin.on('system-prompt/assemble', (assembly, _c, next) => next(change(assembly) as PromptAssembly))
        expect((await rejection(app.systemPrompt.assemble())).message)
          .to.equal('system-prompt/assemble listener of plugin "bad-plugin" returned a malformed assembly: sections contain "s3" twice')
      })
    }

    it('still refuses a repeated name written in place into a long list the waterfall has already checked', async () => {
      for (let i = 0; i < 12; i++) plugin.systemPrompt.section({ name: `s${i}`, order: 10 + i, text: 'x' })
      const later = await pluginContext(app, 'later-plugin', ['systemPrompt'])
      // The first listener's next() checks the list; the later one then renames an entry in place.
      plugin.on('system-prompt/assemble', (assembly, _c, next) => next())
      later.on('system-prompt/assemble', (assembly) => {
        assembly.sections[5].name = assembly.sections[4].name
        return assembly
      })
      expect((await rejection(app.systemPrompt.assemble())).message)
        .to.equal('system-prompt/assemble listener of plugin "later-plugin" returned a malformed assembly: sections contain "s2" twice')
    })

    it('next() with a malformed replacement rejects, naming the listener that called it', async () => {
      const later = await pluginContext(app, 'later-plugin', ['systemPrompt'])
      let laterRan = false
      plugin.on('system-prompt/assemble', (assembly, _c, next) => next({ ...assembly, tools: null } as never))
      later.on('system-prompt/assemble', (assembly) => { laterRan = true; return assembly })
      expect((await rejection(app.systemPrompt.assemble())).message).to.equal(listenerError('returned a malformed assembly: tools is not an array'))
      expect(laterRan).to.equal(false)
    })
  })

  describe('aborting', () => {
    it('an already aborted signal rejects with an AbortError before any provider runs', async () => {
      const provider = counted('x')
      plugin.systemPrompt.section({ name: 'p', order: 3, text: provider })
      const controller = new AbortController()
      controller.abort()
      const promise = app.systemPrompt.assemble({ signal: controller.signal })
      const error = await rejection(promise)
      expect(error.name).to.equal('AbortError')
      expect(provider.calls).to.equal(0)
    })

    it('a signal aborted during the waterfall rejects with an AbortError', async () => {
      const controller = new AbortController()
      plugin.on('system-prompt/assemble', (_a, _c, next) => { controller.abort(); return next() })
      const error = await rejection(app.systemPrompt.assemble({ signal: controller.signal }))
      expect(error.name).to.equal('AbortError')
    })

    it('an AbortError thrown by a listener cooperating with the signal is not rewrapped', async () => {
      const controller = new AbortController()
      plugin.on('system-prompt/assemble', (_a, context, next) => { controller.abort(); context.signal!.throwIfAborted(); return next() })
      const error = await rejection(app.systemPrompt.assemble({ signal: controller.signal }))
      expect(error.name).to.equal('AbortError')
    })

    it('a signal that is never aborted changes nothing', async () => {
      expect(await promptText(app, { signal: new AbortController().signal })).to.equal('Kept.')
    })
  })

  describe('assemble(): every failure is a rejection (R-SP-2)', () => {
    it('a context that is not an object rejects instead of throwing', async () => {
      const { app } = await bootApp({ systemPrompt: BARE })
      let result: unknown
      expect(() => { result = app.systemPrompt.assemble(null as never) }).to.not.throw()
      expect(result).to.be.instanceOf(Promise)
      expect(await rejection(result as Promise<unknown>, TypeError)).to.be.instanceOf(TypeError)
    })
  })
})

// What the tests above do not pin: Promises from every kind of provider, nameless schemas, listeners that
// misuse next() without awaiting it, break the assembly in place, change it after returning, or never
// finish while the signal aborts. Each case ends with a clean assembly.

describe('dsh-system-prompt: misbehaving plugins leave the registry and later assemblies as they were', () => {
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
