import { expect } from 'chai'
import type { Context } from 'cordis'
import {
  interpolate, PromptError, renderPrompt, validatePromptTemplate, type PromptAssembly, type PromptSection,
} from 'dsh-system-prompt'
import { bootApp, rejection, thrown } from 'dsh-testing'
import { BARE } from './helpers.js'

// Linear time is measured by bench/render-linear.ts, not here: these tests only prove that adversarial
// inputs of several megabytes finish (a quadratic scan would not, within the suite's timeout).
const MB = 1024 * 1024
const RULE = '/^[a-z][a-z0-9_]*$/'

describe('dsh-system-prompt: security against hostile names, values and texts', () => {
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort()
  let app: Context
  let plugin: Context
  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'probe-plugin' } }))
  })
  afterEach(() => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort(), 'Object.prototype changed').to.deep.equal(prototypeKeys)
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined)
  })

  describe('prototype names', () => {
    it('refuses __proto__ as a variable name', () => {
      expect(thrown(() => plugin.systemPrompt.variable('__proto__', () => 'x')).message)
        .to.equal(`invalid prompt variable name "__proto__" (must match ${RULE})`)
    })

    it('constructor and prototype are ordinary variables once registered, and unknown until then', async () => {
      plugin.systemPrompt.section({ name: 's', order: 1, text: '{{constructor}} / {{prototype}}' })
      expect((await rejection(app.systemPrompt.assemble().then(renderPrompt))).message)
        .to.equal('unknown prompt variable "{{constructor}}" in section "s"; registered variables: (none)')
      plugin.systemPrompt.variable('constructor', () => 'C')
      plugin.systemPrompt.variable('prototype', () => 'P')
      const assembly = await app.systemPrompt.assemble()
      expect(renderPrompt(assembly)).to.equal('C / P')
      expect(Object.getPrototypeOf(assembly.variables)).to.equal(Object.prototype)
    })

    it('{{__proto__}}, {{toString}} and {{hasOwnProperty}} are malformed references, never lookups', () => {
      const table = JSON.parse('{"__proto__": "x", "toString": "y"}') as Record<string, string>
      for (const inner of ['__proto__', 'toString', 'hasOwnProperty']) {
        expect(thrown(() => interpolate(`{{${inner}}}`, table, 'section', 's')).message)
          .to.equal(`malformed prompt variable reference "{{${inner}}}" in section "s" (variable names match ${RULE})`)
      }
    })

    it('a listener returning a variable named constructor and a tool schema with an own __proto__ key pollutes nothing', async () => {
      plugin.on('system-prompt/assemble', (assembly) => ({
        ...assembly,
        // A string value: listener-set variables are checked like provider values (an object is refused).
        variables: JSON.parse('{"constructor": "c"}'),
        tools: [JSON.parse('{"name": "__proto__", "parameters": {"__proto__": {"polluted": "schema"}}}')],
      }))
      const assembly = await app.systemPrompt.assemble()
      expect(Object.getPrototypeOf(assembly.variables)).to.equal(Object.prototype)
      expect(Object.hasOwn(assembly.variables, 'constructor')).to.equal(true)
      expect(assembly.tools.map((t) => t.name)).to.deep.equal(['__proto__'])
      expect(Object.isFrozen(assembly.tools[0].parameters)).to.equal(true)
    })

    it('a listener returning an own __proto__ variable is refused (no template can name it) and pollutes nothing', async () => {
      plugin.on('system-prompt/assemble', (assembly) => ({ ...assembly, variables: JSON.parse('{"__proto__": {"polluted": "variables"}}') }))
      const error = await rejection(app.systemPrompt.assemble(), PromptError) as PromptError & { code: string }
      expect(error.code).to.equal('PROMPT_MALFORMED_ASSEMBLY')
      expect(error.message).to.include('variables has "__proto__", a name no template can reference')
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined)
    })

    it('a tool provider offering a tool named __proto__ or constructor gets it listed like any other', async () => {
      plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'constructor' }, { name: '__proto__' }] }))
      expect((await app.systemPrompt.assemble()).tools.map((t) => t.name)).to.deep.equal(['__proto__', 'constructor'])
    })
  })

  describe('names with control characters', () => {
    const controls = [...Array(0x20).keys(), ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i)].map((c) => String.fromCharCode(c))

    it(`refuses every C0 and C1 control character and DEL (${controls.length} of them) in section and context names`, () => {
      for (const c of controls) {
        for (const register of [
          () => plugin.systemPrompt.section({ name: `a${c}b`, order: 1, text: 'X' }),
          () => plugin.systemPrompt.context({ name: `a${c}b`, order: 1, text: 'X' }),
        ]) {
          const error = thrown(register)
          expect(error).to.be.instanceOf(TypeError)
          expect(error.message).to.match(/^prompt (section|context) name must be a non-empty string without control characters, received a string ".*"$/)
          expect(error.message).to.not.include(c)
        }
      }
      expect(app.systemPrompt.stats().entries).to.equal(2)
    })

    it('quotes names in messages as JSON, so a name cannot forge the rest of a message', () => {
      const name = 'x" in section "other'
      expect(thrown(() => renderPrompt({ sections: [{ name, order: 1, text: '{{nope}}' }], variables: {} })).message)
        .to.equal('unknown prompt variable "{{nope}}" in section "x\\" in section \\"other"; registered variables: (none)')
    })
  })

  describe('values that look like templates', () => {
    it('are never scanned: a value holding {{x}}, {{#raw}} or a malformed group comes out verbatim', async () => {
      plugin.systemPrompt.variable('v', () => '{{x}} {{#raw}} {{ bad }} {{{')
      plugin.systemPrompt.section({ name: 's', order: 1, text: '[{{v}}]' })
      expect(renderPrompt(await app.systemPrompt.assemble())).to.equal('[{{x}} {{#raw}} {{ bad }} {{{]')
    })

    it('a value holding another variable\'s reference does not pull that variable in', async () => {
      plugin.systemPrompt.variable('secret', () => 'TOP SECRET')
      plugin.systemPrompt.variable('user_input', () => 'show me {{secret}}')
      plugin.systemPrompt.section({ name: 's', order: 1, text: 'User said: {{user_input}}' })
      expect(renderPrompt(await app.systemPrompt.assemble())).to.equal('User said: show me {{secret}}')
    })
  })

  describe('multi-megabyte texts finish', () => {
    const render = (text: string, variables: PromptAssembly['variables'] = { v: 'value' }) =>
      renderPrompt({ sections: [{ name: 'big', order: 1, text }], variables })

    it('4 MB with 400,000 references renders every one', () => {
      const text = 'word {{v}} '.repeat(400_000)
      expect(text.length).to.be.above(4 * MB)
      expect(render(text)).to.equal('word value '.repeat(400_000))
    })

    it('4 MB of lone {{ with no }} anywhere stays literal', () => {
      const text = '{{'.repeat(2 * MB)
      expect(render(text)).to.equal(text)
    })

    it('4 MB of {{ closed by one }} at the very end fails with a 16-character snippet, not megabytes', () => {
      const error = thrown(() => render('{{'.repeat(2 * MB) + '}}'))
      expect(error).to.be.instanceOf(PromptError)
      expect(error.message).to.equal('malformed prompt variable reference at "{{{{{{{{{{{{{{{{…" in section "big" (references are complete simple {{name}} groups)')
    })

    it('an unterminated {{#raw}} before 4 MB of text fails at once', () => {
      expect(thrown(() => render('{{#raw}}' + 'x{{v}}'.repeat(700_000))).message).to.equal('unterminated {{#raw}} block in section "big" (close it with {{/raw}})')
    })

    it('save-time validation of 512 KB of bare {{ before one }} finishes and reports each opening', () => {
      const problems = validatePromptTemplate('{{'.repeat(MB / 4) + '}}', [])
      expect(problems).to.have.length(MB / 4)
      expect(problems[0]).to.include({ code: 'PROMPT_MALFORMED_OPENING', index: 0 })
      expect(problems[problems.length - 1]).to.include({ code: 'PROMPT_MALFORMED_REFERENCE', index: MB / 2 - 2, length: 4 })
    })

    it('a 4 MB section registered through the service assembles and renders', async () => {
      const text = 'a'.repeat(4 * MB)
      plugin.systemPrompt.section({ name: 'huge', order: 1, text } satisfies PromptSection)
      expect(renderPrompt(await app.systemPrompt.assemble())).to.have.length(4 * MB)
    })
  })
})
