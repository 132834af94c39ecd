import { readFile } from 'node:fs/promises'
import { expect } from 'chai'
import type { Context } from 'cordis'
import Filesystem, {
  ABSOLUTE_PATH, DEFAULT_FILE_LIMITS, FILE_TOOL_NAMES, FILE_TOOLS, fileToolDefinitions, FilesystemErrors, type FileToolName,
} from 'dsh-plugin-filesystem'
import { renderPrompt } from 'dsh-system-prompt'
import { validateParameters } from 'dsh-tools'
import { bootApp, ownSections, pluginContext, rejection } from 'dsh-testing'

const guidance = (name: FileToolName) => FILE_TOOLS[name].guidance(DEFAULT_FILE_LIMITS)
const description = (name: FileToolName) => FILE_TOOLS[name].description(DEFAULT_FILE_LIMITS)
const parameters = (name: FileToolName) => FILE_TOOLS[name].parameters(DEFAULT_FILE_LIMITS)
const PLACEMENT_ORDER = ['tool:read', 'tool:write', 'tool:edit', 'tool:glob', 'tool:grep']

describe('dsh-plugin-filesystem', () => {
  let app: Context
  let host: Context
  beforeEach(async () => {
    ({ app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, agents: true }))
  })

  describe('registration', () => {
    it('registers the five tools, offered in name order with their built-in descriptions and parameters', async () => {
      await app.plugin(Filesystem)
      const { tools } = await app.systemPrompt.assemble()
      expect(tools.map((t) => t.name)).to.deep.equal(['edit', 'glob', 'grep', 'read', 'write'])
      for (const tool of tools) {
        const name = tool.name as FileToolName
        expect(tool).to.deep.equal({ name, description: description(name), parameters: parameters(name) })
      }
    })

    it('puts each guidance section at its named placement, in the order read, write, edit, glob, grep', async () => {
      await app.plugin(Filesystem)
      const assembly = await app.systemPrompt.assemble()
      const sections = assembly.sections.filter((s) => s.name.startsWith('tool:'))
      expect(sections.map((s) => s.name)).to.deep.equal(PLACEMENT_ORDER)
      for (const section of sections) {
        expect(section).to.include({ order: app.systemPrompt.getSectionOrder(section.name), interpolate: false, owner: 'dsh-plugin-filesystem' })
      }
      expect(renderPrompt(assembly)).to.equal(FILE_TOOL_NAMES.map(guidance).join('\n\n'))
    })

    it('renders the grep guidance\'s literal {{…}} example verbatim', async () => {
      await app.plugin(Filesystem, { tools: ['grep'] })
      const prompt = renderPrompt(await app.systemPrompt.assemble())
      expect(prompt).to.include('Escape characters you mean literally: `getUser\\(`, `\\{\\{name\\}\\}`, `a\\.b`.')
    })

    it('each guidance opens with its tool\'s heading', () => {
      for (const name of FILE_TOOL_NAMES) expect(guidance(name).startsWith(`## ${name}\n\n- `)).to.equal(true)
    })

    it('the edit guidance asks for a read first and an exact, unique match', () => {
      expect(guidance('edit')).to.include('- Read the file first. Copy `old_string` from its current content exactly')
      expect(guidance('edit')).to.include('- `old_string` must match exactly once.')
    })
  })

  describe('configuration', () => {
    it('tools: [read, grep] offers those two tools and their guidance only', async () => {
      await app.plugin(Filesystem, { tools: ['grep', 'read'] })
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools.map((t) => t.name)).to.deep.equal(['grep', 'read'])
      expect(ownSections(assembly)).to.deep.equal(['tool:read', 'tool:grep'])
    })

    it('readLineLimit is stated in read\'s description, schema and guidance', async () => {
      await app.plugin(Filesystem, { tools: ['read'], readLineLimit: 500 })
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools[0].description).to.equal('Read a text file. Returns its lines numbered from 1, at most 500 lines per call, starting at `offset`.')
      expect((assembly.tools[0].parameters as any).properties.limit).to.include({ minimum: 1, maximum: 500 })
      expect(renderPrompt(assembly)).to.include('- A call returns at most 500 lines.')
    })

    it('overrides replace one tool\'s description and guidance and leave the others alone', async () => {
      await app.plugin(Filesystem, { tools: ['read', 'write'], overrides: { write: { description: 'Write a file.', guidance: 'Never write to {{secrets}}.' } } })
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools.map((t) => t.description)).to.deep.equal([description('read'), 'Write a file.'])
      expect(renderPrompt(assembly)).to.equal(guidance('read') + '\n\nNever write to {{secrets}}.')
    })

    it('includeGuidance: false registers the schemas without sections', async () => {
      await app.plugin(Filesystem, { includeGuidance: false })
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools).to.have.length(5)
      expect(ownSections(assembly)).to.deep.equal([])
    })

    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['an unknown tool', { tools: ['read', 'bash'] }, 'tools lists unknown tool "bash"; known tools: read, write, edit, glob, grep'],
      ['several unknown tools', { tools: ['cat', 'ls', 'cat'] }, 'tools lists unknown tools "cat", "ls"; known tools: read, write, edit, glob, grep'],
      ['a repeated tool', { tools: ['read', 'grep', 'read'] }, 'tools lists "read" more than once'],
      ['an empty tool list', { tools: [] }, 'tools must list at least one tool (to offer none, do not load the plugin)'],
      ['an override for an unknown tool', { overrides: { cat: { description: 'x' } } }, 'overrides names unknown tool "cat"; known tools: read, write, edit, glob, grep'],
      ['an override for a tool not offered', { tools: ['read', 'grep'], overrides: { write: { description: 'x' } } }, 'overrides names "write", which is not in tools (read, grep)'],
      ['a blank override text', { overrides: { edit: { guidance: ' ' } } }, 'overrides.edit.guidance must not be empty (leave it out to keep the built-in text, or set includeGuidance: false to send the schemas alone)'],
      ['an override that sets no text (a misspelt key)', { overrides: { read: { descripton: 'x' } } }, 'overrides.read sets neither description nor guidance'],
      ['a mistyped tool list', { tools: 'read' }, '$.tools expected array but got read (at tools)'],
      ['a zero line limit', { readLineLimit: 0 }, '$.readLineLimit expected number >= 1 but got 0 (at readLineLimit)'],
    ]
    for (const [what, config, message] of refusals) {
      it(`refuses ${what} with a message naming it, and registers nothing`, async () => {
        const error = await rejection(app.plugin(Filesystem, config as any))
        expect(error.message).to.equal('invalid config:\n  - ' + message)
        const assembly = await app.systemPrompt.assemble()
        expect(assembly.tools).to.deep.equal([])
        expect(ownSections(assembly)).to.deep.equal([])
      })
    }

    it('the error catalogue produces the quoted messages', () => {
      expect(FilesystemErrors.repeatedTool('read').message).to.equal('tools lists "read" more than once')
    })
  })

  describe('disposal and failed loads', () => {
    it('disposing the plugin removes every tool and guidance section', async () => {
      const before = app.systemPrompt.stats().entries
      const fiber = app.plugin(Filesystem)
      await fiber
      await fiber.dispose()
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools).to.deep.equal([])
      expect(ownSections(assembly)).to.deep.equal([])
      expect(app.systemPrompt.stats().entries).to.equal(before)
      expect(app.tools.stats().entries).to.equal(0)
    })

    it('a load that collides with an existing tool fails and leaves none of its tools behind', async () => {
      const other = await pluginContext(app, 'other', ['systemPrompt', 'tools', 'agents'])
      other.tools.register({ name: 'grep', description: 'Project search.', parameters: { type: 'object' } })
      const error = await rejection(app.plugin(Filesystem))
      expect(error.message).to.equal('tool "grep" is already registered (register the second one through a narrower scope to shadow it there)')
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.tools.map((t) => `${t.name}: ${t.description}`)).to.deep.equal(['grep: Project search.'])
      expect(ownSections(assembly)).to.deep.equal([])
    })
  })

  describe('schemas', () => {
    for (const name of FILE_TOOL_NAMES) {
      it(`${name}: the parameters pass JSON Schema validation and forbid unknown keys`, () => {
        const schema = parameters(name) as { additionalProperties: boolean; required: string[]; properties: Record<string, unknown> }
        expect(() => validateParameters(name, schema)).to.not.throw()
        expect(schema.additionalProperties).to.equal(false)
        for (const key of schema.required) expect(schema.properties).to.have.property(key)
      })
    }

    it('every path parameter is an absolute-path string', () => {
      for (const name of FILE_TOOL_NAMES) {
        const path = (parameters(name) as any).properties.path
        expect(path, name).to.include({ type: 'string', pattern: ABSOLUTE_PATH })
      }
      const absolute = new RegExp(ABSOLUTE_PATH)
      expect(['/srv/app/a.ts', 'C:\\work\\a.ts', 'src/a.ts', 'a.ts'].map((p) => absolute.test(p))).to.deep.equal([true, true, false, false])
    })

    it('the required arguments are what each tool cannot work without', () => {
      const required = Object.fromEntries(FILE_TOOL_NAMES.map((name) => [name, (parameters(name) as any).required]))
      expect(required).to.deep.equal({
        read: ['path'], write: ['path', 'content'], edit: ['path', 'old_string', 'new_string'], glob: ['pattern'], grep: ['pattern'],
      })
    })

    it('fileToolDefinitions follows the configured list and text choices', () => {
      const [read] = fileToolDefinitions({ tools: ['read'], readLineLimit: 10, includeGuidance: false, overrides: {} })
      expect(read).to.deep.equal({ name: 'read', description: FILE_TOOLS.read.description({ readLineLimit: 10 }), parameters: FILE_TOOLS.read.parameters({ readLineLimit: 10 }) })
    })
  })

  describe('through agents', () => {
    it('the request offers the functions in name order and the guidance in placement order', async () => {
      await app.plugin(Filesystem)
      const agent = await host.agents.create({ id: 'coder', model: 'm' })
      const request = await agent.step('Fix the bug.')
      expect(request.tools!.map((t) => t.function.name)).to.deep.equal(['edit', 'glob', 'grep', 'read', 'write'])
      expect(request.messages[0]).to.deep.equal({ role: 'system', content: FILE_TOOL_NAMES.map(guidance).join('\n\n') })
    })

    it('a read-only preset sees read, glob and grep with their guidance only', async () => {
      await app.plugin(Filesystem)
      const preset = host.agents.definePreset('explorer')
      preset.ctx.tools.restrict({ allow: ['read', 'glob', 'grep'] })
      const agent = await host.agents.create({ id: 'scout', model: 'm', preset: 'explorer' })
      const request = await agent.step('Where is the parser?')
      expect(request.tools!.map((t) => t.function.name)).to.deep.equal(['glob', 'grep', 'read'])
      expect(request.messages[0].content).to.equal([guidance('read'), guidance('glob'), guidance('grep')].join('\n\n'))
    })
  })

  describe('README', () => {
    it('shows the exact default guidance of every tool and its byte count', async () => {
      const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
      for (const name of FILE_TOOL_NAMES) {
        expect(readme, name).to.include('```markdown\n' + guidance(name) + '\n```')
        expect(readme, name).to.include(`| \`tool:${name}\` | ${Buffer.byteLength(guidance(name))} |`)
      }
    })
  })
})
