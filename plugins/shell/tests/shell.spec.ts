import { readFile } from 'node:fs/promises'
import { expect } from 'chai'
import type { Context } from 'cordis'
import Filesystem from 'dsh-plugin-filesystem'
import Shell, {
  ABSOLUTE_PATH, bashDescription, bashGuidance, bashParameters, BASH_TOOL, DEFAULT_LIMITS, ShellErrors,
} from 'dsh-plugin-shell'
import { renderPrompt } from 'dsh-system-prompt'
import { validateParameters } from 'dsh-tools'
import { bootApp, ownSections, pluginContext, rejection } from 'dsh-testing'

describe('dsh-plugin-shell', () => {
  let app: Context
  let host: Context
  beforeEach(async () => {
    ({ app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, agents: true }))
  })

  describe('registration', () => {
    it('registers the bash schema with the built-in description and parameters', async () => {
      await app.plugin(Shell)
      const { tools } = await app.systemPrompt.assemble()
      expect(tools).to.deep.equal([{ name: 'bash', description: bashDescription(DEFAULT_LIMITS), parameters: bashParameters(DEFAULT_LIMITS) }])
    })

    it('puts the guidance in section tool:bash at the named placement, emitted verbatim and owned by the plugin', async () => {
      await app.plugin(Shell)
      const assembly = await app.systemPrompt.assemble()
      const section = assembly.sections.find((s) => s.name === 'tool:bash')
      expect(section).to.include({
        order: app.systemPrompt.getSectionOrder('tool:bash'), text: bashGuidance(DEFAULT_LIMITS), interpolate: false, owner: 'dsh-plugin-shell',
      })
      expect(renderPrompt(assembly)).to.equal(bashGuidance(DEFAULT_LIMITS))
    })

    it('the guidance opens with its heading and states the default limits', () => {
      const guidance = bashGuidance(DEFAULT_LIMITS)
      expect(guidance.startsWith('## bash\n\nRuns one shell command per call and returns its exit code and output.\n\n- ')).to.equal(true)
      expect(guidance).to.include('- A command is killed after `timeout_ms` (default 120000 ms, at most 600000 ms).')
      expect(guidance).to.include('- Output beyond 30000 bytes is truncated.')
    })

    it('renders the bash guidance before the filesystem guidance whatever the load order', async () => {
      await app.plugin(Filesystem)
      await app.plugin(Shell)
      const assembly = await app.systemPrompt.assemble()
      expect(ownSections(assembly)).to.deep.equal(['tool:bash', 'tool:read', 'tool:write', 'tool:edit', 'tool:glob', 'tool:grep'])
      const prompt = renderPrompt(assembly)
      expect(prompt.startsWith(bashGuidance(DEFAULT_LIMITS) + '\n\n## read\n')).to.equal(true)
    })

    it('the module namespace is itself a loadable plugin (name, inject, Config, apply)', async () => {
      await app.plugin(await import('dsh-plugin-shell'))
      expect((await app.systemPrompt.assemble()).tools.map((t) => t.name)).to.deep.equal([BASH_TOOL])
    })
  })

  describe('configuration', () => {
    it('states configured limits in the description, the schema and the guidance', async () => {
      await app.plugin(Shell, { defaultTimeoutMs: 30_000, maxTimeoutMs: 90_000, maxOutputBytes: 8000 })
      const assembly = await app.systemPrompt.assemble()
      const [bash] = assembly.tools
      expect(bash.description).to.include('Commands time out after 30 seconds unless `timeout_ms` says otherwise.')
      expect((bash.parameters as any).properties.timeout_ms).to.include({ minimum: 1000, maximum: 90_000 })
      const prompt = renderPrompt(assembly)
      expect(prompt).to.include('(default 30000 ms, at most 90000 ms)')
      expect(prompt).to.include('Output beyond 8000 bytes is truncated.')
    })

    it('a description override replaces the tool description only', async () => {
      await app.plugin(Shell, { description: 'Run a command in the project container.' })
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools[0].description).to.equal('Run a command in the project container.')
      expect(renderPrompt(assembly)).to.equal(bashGuidance(DEFAULT_LIMITS))
    })

    it('a guidance override replaces the section text and keeps its braces literally', async () => {
      await app.plugin(Shell, { guidance: 'Template strings look like {{name}}; pass them through unchanged.' })
      expect(renderPrompt(await app.systemPrompt.assemble())).to.equal('Template strings look like {{name}}; pass them through unchanged.')
    })

    it('includeGuidance: false registers the schema without a guidance section', async () => {
      await app.plugin(Shell, { includeGuidance: false })
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools.map((t) => t.name)).to.deep.equal(['bash'])
      expect(ownSections(assembly)).to.deep.equal([])
    })

    it('refuses a default timeout above the maximum with a message naming both keys', async () => {
      const error = await rejection(app.plugin(Shell, { defaultTimeoutMs: 700_000 }))
      expect(error.message).to.equal('invalid config:\n  - defaultTimeoutMs (700000) must not exceed maxTimeoutMs (600000)')
      expect(error.message).to.include(ShellErrors.timeoutAboveMax(700_000, 600_000).message)
    })

    it('refuses a blank guidance override and points at includeGuidance', async () => {
      const error = await rejection(app.plugin(Shell, { guidance: '  ' }))
      expect(error.message).to.equal('invalid config:\n  - guidance must not be empty (leave it out to keep the built-in text, or set includeGuidance: false to send the schema alone)')
    })

    it('refuses an empty description override', async () => {
      const error = await rejection(app.plugin(Shell, { description: '' }))
      expect(error.message).to.equal('invalid config:\n  - description must not be empty (leave it out to keep the built-in text)')
    })

    it('refuses a mistyped limit with the key in the message', async () => {
      const error = await rejection(app.plugin(Shell, { maxOutputBytes: 'lots' as unknown as number }))
      expect(error.message).to.equal('invalid config:\n  - $.maxOutputBytes expected number but got lots (at maxOutputBytes)')
    })

    it('a refused config registers nothing', async () => {
      const before = app.systemPrompt.stats().entries
      await rejection(app.plugin(Shell, { defaultTimeoutMs: 700_000 }))
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools).to.deep.equal([])
      expect(ownSections(assembly)).to.deep.equal([])
      expect(app.systemPrompt.stats().entries).to.equal(before)
    })
  })

  describe('disposal and duplicates', () => {
    it('disposing the plugin removes the schema and the guidance', async () => {
      const before = app.systemPrompt.stats().entries
      const fiber = app.plugin(Shell)
      await fiber
      await fiber.dispose()
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools).to.deep.equal([])
      expect(ownSections(assembly)).to.deep.equal([])
      expect(app.systemPrompt.stats().entries).to.equal(before)
      expect(app.tools.stats().entries).to.equal(0)
    })

    it('a second load in the same layer is refused and the first stays intact', async () => {
      await app.plugin(Shell)
      const error = await rejection(app.plugin(Shell, { description: 'Second.' }))
      expect(error.message).to.equal('tool "bash" is already registered (register the second one through a narrower scope to shadow it there)')
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools).to.have.length(1)
      expect(assembly.tools[0].description).to.equal(bashDescription(DEFAULT_LIMITS))
    })
  })

  describe('schema', () => {
    it('the parameters pass JSON Schema validation, for the default and for configured limits', () => {
      expect(() => validateParameters('bash', bashParameters(DEFAULT_LIMITS))).to.not.throw()
      expect(() => validateParameters('bash', bashParameters({ defaultTimeoutMs: 5000, maxTimeoutMs: 5000, maxOutputBytes: 1 }))).to.not.throw()
    })

    it('requires only command and allows no other keys', () => {
      const parameters = bashParameters(DEFAULT_LIMITS) as { required: string[]; additionalProperties: boolean; properties: object }
      expect(parameters.required).to.deep.equal(['command'])
      expect(parameters.additionalProperties).to.equal(false)
      expect(Object.keys(parameters.properties)).to.deep.equal(['command', 'timeout_ms', 'workdir', 'description'])
    })

    it('the workdir pattern accepts absolute POSIX and Windows paths and refuses relative ones', () => {
      const absolute = new RegExp(ABSOLUTE_PATH)
      expect(['/srv/app', 'C:\\work', 'd:/repo'].map((p) => absolute.test(p))).to.deep.equal([true, true, true])
      expect(['src', './src', '~/src', 'C:work'].map((p) => absolute.test(p))).to.deep.equal([false, false, false, false])
    })
  })

  describe('through an agent', () => {
    it('the request carries the bash function and the guidance as the opening system message', async () => {
      await app.plugin(Shell)
      const agent = await host.agents.create({ id: 'coder', model: 'm' })
      const request = await agent.step('List the tests.')
      expect(request.tools).to.deep.equal([{
        type: 'function', function: { name: 'bash', description: bashDescription(DEFAULT_LIMITS), parameters: bashParameters(DEFAULT_LIMITS) },
      }])
      expect(request.messages).to.deep.equal([
        { role: 'system', content: bashGuidance(DEFAULT_LIMITS) },
        { role: 'user', content: 'List the tests.' },
      ])
    })

    it('an agent whose scope denies bash sees neither the schema nor its guidance; others still do', async () => {
      await app.plugin(Shell)
      const reviewer = await host.agents.create({ id: 'reviewer', model: 'm' })
      reviewer.ctx.tools.restrict({ deny: ['bash'] })
      const other = await host.agents.create({ id: 'other', model: 'm' })
      const denied = await reviewer.step('Review.')
      expect(denied.tools).to.equal(undefined)
      expect(denied.messages).to.deep.equal([{ role: 'user', content: 'Review.' }])
      expect((await other.step('Go.')).tools).to.have.length(1)
    })
  })

  describe('README', () => {
    it('shows the exact default guidance and its byte count', async () => {
      const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
      const guidance = bashGuidance(DEFAULT_LIMITS)
      expect(readme).to.include('```markdown\n' + guidance + '\n```')
      expect(readme).to.include(`${Buffer.byteLength(guidance)} bytes`)
    })
  })
})
