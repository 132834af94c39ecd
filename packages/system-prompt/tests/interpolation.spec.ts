import { expect } from 'chai'
import { Context } from 'cordis'
import fc from 'fast-check'
import { interpolate, renderContextSnapshot, renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { bootApp, promptText, recordChanges, thrown } from 'dsh-testing'
import { BARE } from './helpers.js'

const RULE = '/^[a-z][a-z0-9_]*$/'
const HEADING = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'

/** Renders one section `s` with `text` against `variables` (the pure renderer, as the agent loop calls it). */
function renderSection(text: string, variables: PromptAssembly['variables'] = { model: 'deepseek-chat' }): string {
  return renderPrompt({ sections: [{ name: 's', order: 0, text }], variables })
}

/** Renders one context `c` with `text`. */
function renderContext(text: string, variables: PromptAssembly['variables'] = { model: 'deepseek-chat' }): string {
  return renderContextSnapshot({ contexts: [{ name: 'c', order: 0, text }], variables })
}

const renderError = (text: string, variables?: PromptAssembly['variables']) => thrown(() => renderSection(text, variables)).message
const contextError = (text: string, variables?: PromptAssembly['variables']) => thrown(() => renderContext(text, variables)).message
const malformedGroup = (inner: string, owner = 'section "s"') =>
  `malformed prompt variable reference "{{${inner}}}" in ${owner} (variable names match ${RULE})`
const malformedAt = (snippet: string, owner = 'section "s"') =>
  `malformed prompt variable reference at ${JSON.stringify(snippet + '…')} in ${owner} (references are complete simple {{name}} groups)`

describe('dsh-system-prompt: strict interpolation', () => {
  describe('references', () => {
    it('replaces a complete {{name}} group with the variable\'s value', () => {
      expect(renderSection('Model: {{model}}.')).to.equal('Model: deepseek-chat.')
    })

    it('replaces every reference, repeated ones included', () => {
      expect(renderSection('{{a}}-{{b_2}}-{{a}}', { a: 'x', b_2: 'y' })).to.equal('x-y-x')
    })

    it('leaves text without {{ unchanged', () => {
      expect(renderSection('a } b }} c { d')).to.equal('a } b }} c { d')
    })

    it('{{model}}} renders the value then a literal }', () => {
      expect(renderSection('{{model}}}')).to.equal('deepseek-chat}')
    })

    it('}}{{model}} renders a literal }} then the value', () => {
      expect(renderSection('}}{{model}}')).to.equal('}}deepseek-chat')
    })

    it('never scans a substituted value again', () => {
      expect(renderSection('{{model}}', { model: '{{x}} and {{ y }} and {{{' })).to.equal('{{x}} and {{ y }} and {{{')
      expect(renderSection('{{a}}{{b}}', { a: '{', b: '{x}}' })).to.equal('{{x}}')
    })

    it('looks variables up as own properties only: {{constructor}} is unknown', () => {
      expect(renderError('{{constructor}}'))
        .to.equal('unknown prompt variable "{{constructor}}" in section "s"; registered variables: model')
    })

    it('accepts {{constructor}} once it is registered', () => {
      expect(renderSection('{{constructor}}', { constructor: 'built' })).to.equal('built')
    })
  })

  describe('errors', () => {
    it('rejects an unknown variable, listing the registered names sorted', () => {
      expect(renderError('Hello {{nope}}', { zeta: 'z', alpha: 'a', a_b: '', a1: undefined }))
        .to.equal('unknown prompt variable "{{nope}}" in section "s"; registered variables: a1, a_b, alpha, zeta')
    })

    it('rejects an unknown variable with (none) when nothing is registered', () => {
      expect(renderError('{{model}}', {})).to.equal('unknown prompt variable "{{model}}" in section "s"; registered variables: (none)')
    })

    it('rejects a registered variable that has no value in this assembly', () => {
      expect(renderError('{{cwd}}', { cwd: undefined }))
        .to.equal('prompt variable "{{cwd}}" has no value for this assembly (section "s")')
    })

    it('accepts an empty-string value (a value, not "no value")', () => {
      expect(renderSection('[{{cwd}}]', { cwd: '' })).to.equal('[]')
    })

    for (const inner of [' model ', '', 'Model', 'model-name', '1model', '_model', 'a.b', '#each', '/raw']) {
      it(`rejects the malformed complete group "{{${inner}}}"`, () => {
        expect(renderError(`before {{${inner}}} after`)).to.equal(malformedGroup(inner))
      })
    }

    it('rejects {{{model}}}: the snippet is the text from the offending {{, then …', () => {
      expect(renderError('{{{model}}}')).to.equal(malformedAt('{{{model}}}'))
    })

    it('cuts the malformed-at snippet to the first 16 characters from the offending {{', () => {
      expect(renderError('Intro text {{{model}}} and a long tail')).to.equal(malformedAt('{{{model}}} and '))
    })

    it('rejects a {{ whose group holds a single brace while a }} follows', () => {
      expect(renderError('x {{a}b}} y')).to.equal(malformedAt('{{a}b}} y'))
      expect(renderError('{{a{b}}')).to.equal(malformedAt('{{a{b}}'))
    })

    it('rejects a {{ that opens no complete group even after a valid reference', () => {
      expect(renderError('{{model}} {{ {{model}}')).to.equal(malformedAt('{{ {{model}}'))
    })

    it('keeps a lone {{ with no }} after it literal', () => {
      expect(renderSection('a {{ b')).to.equal('a {{ b')
      expect(renderSection('{{model}} then {{ and {{more')).to.equal('deepseek-chat then {{ and {{more')
      expect(renderSection('}} {{')).to.equal('}} {{')
    })

    it('reports the first problem in text order', () => {
      expect(renderError('{{Bad}} {{unknown}}')).to.equal(malformedGroup('Bad'))
      expect(renderError('{{unknown}} {{Bad}}')).to.match(/^unknown prompt variable "\{\{unknown\}\}"/)
    })

    it('names the section that failed among several', () => {
      const error = thrown(() => renderPrompt({
        sections: [{ name: 'fine', order: 0, text: 'ok {{model}}' }, { name: 'tool:bash', order: 1, text: '{{shell}}' }],
        variables: { model: 'm' },
      }))
      expect(error.message).to.equal('unknown prompt variable "{{shell}}" in section "tool:bash"; registered variables: model')
    })
  })

  describe('contexts', () => {
    it('interpolate the same way', () => {
      expect(renderContext('{{model}}}')).to.equal(`${HEADING}\n\ndeepseek-chat}`)
    })

    it('name the context in every message', () => {
      expect(contextError('{{nope}}')).to.equal('unknown prompt variable "{{nope}}" in context "c"; registered variables: model')
      expect(contextError('{{cwd}}', { cwd: undefined })).to.equal('prompt variable "{{cwd}}" has no value for this assembly (context "c")')
      expect(contextError('{{ model }}')).to.equal(malformedGroup(' model ', 'context "c"'))
      expect(contextError('{{{model}}}')).to.equal(malformedAt('{{{model}}}', 'context "c"'))
    })
  })

  describe('interpolate: false', () => {
    it('emits a section verbatim, braces and all', () => {
      const text = 'Use {{ model }}, {{Model}}, {{{x}}} and {{nope}} literally; {{#raw}} too'
      expect(renderPrompt({ sections: [{ name: 's', order: 0, text, interpolate: false }], variables: {} })).to.equal(text)
    })

    it('is honoured for sections registered through the service', async () => {
      const { app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'tool-guidance' } })
      plugin.systemPrompt.section({ name: 'tool:template', order: 1, text: 'Write {{placeholder}} in templates.', interpolate: false })
      plugin.systemPrompt.section({ name: 'plain', order: 2, text: 'Model {{model}}.' })
      plugin.systemPrompt.variable('model', () => 'm1')
      expect(await promptText(app)).to.equal('Write {{placeholder}} in templates.\n\nModel m1.')
    })

    it('is honoured for contexts registered through the service', async () => {
      const { app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'facts' } })
      plugin.systemPrompt.context({ name: 'c', order: 1, text: '{{ raw }}', interpolate: false })
      expect(renderContextSnapshot(await app.systemPrompt.assemble())).to.equal(`${HEADING}\n\n{{ raw }}`)
    })
  })

  describe('the raw escape {{#raw}}…{{/raw}}', () => {
    it('emits its content verbatim', () => {
      expect(renderSection('Write {{#raw}}{{model}} and {{ x }} and {{{y}}}{{/raw}} as is.'))
        .to.equal('Write {{model}} and {{ x }} and {{{y}}} as is.')
    })

    it('interpolates around it and allows several blocks', () => {
      expect(renderSection('{{model}} {{#raw}}{{a}}{{/raw}} {{model}} {{#raw}}{{b}}{{/raw}}')).to.equal('deepseek-chat {{a}} deepseek-chat {{b}}')
    })

    it('may hold a lone {{#raw}} marker text but ends at the first {{/raw}}', () => {
      expect(renderSection('{{#raw}}{{#raw}}{{/raw}}')).to.equal('{{#raw}}')
    })

    it('rejects an unterminated block, naming the section or context', () => {
      expect(renderError('{{#raw}} {{model}}')).to.equal('unterminated {{#raw}} block in section "s" (close it with {{/raw}})')
      expect(contextError('{{#raw}}')).to.equal('unterminated {{#raw}} block in context "c" (close it with {{/raw}})')
    })

    it('is plain text in a value: values are never scanned', () => {
      expect(renderSection('{{model}}', { model: '{{#raw}}' })).to.equal('{{#raw}}')
    })
  })

  describe('variable registration', () => {
    let app: Context
    let plugin: Context
    beforeEach(async () => {
      ({ app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'vars' } }))
    })

    it('resolves a registered variable from its provider at each assembly', async () => {
      let n = 0
      plugin.systemPrompt.variable('turn', () => String(++n))
      plugin.systemPrompt.section({ name: 's', order: 1, text: 'Turn {{turn}}.' })
      expect(await promptText(app)).to.equal('Turn 1.')
      expect(await promptText(app)).to.equal('Turn 2.')
    })

    it('gives the provider the assembly context, and undefined means no value', async () => {
      const agent = { label: 'a' }
      plugin.systemPrompt.variable('agent_label', (context) => context.scope ? (context.scope as { label: string }).label : undefined)
      expect((await app.systemPrompt.assemble()).variables).to.deep.equal({ agent_label: undefined })
      expect((await app.systemPrompt.assemble({ scope: agent })).variables).to.deep.equal({ agent_label: 'a' })
    })

    for (const name of ['Model', '1a', '', 'a-b', 'a b', '_a', 'é', 'a\n', 'constructor ']) {
      it(`refuses the invalid name ${JSON.stringify(name)} and leaves nothing behind`, async () => {
        const events = recordChanges(app)
        const before = app.systemPrompt.stats()
        expect(thrown(() => plugin.systemPrompt.variable(name, () => 'x')))
          .to.be.instanceOf(TypeError)
          .and.have.property('message', `invalid prompt variable name ${JSON.stringify(name)} (must match ${RULE})`)
        expect(app.systemPrompt.stats()).to.deep.equal(before)
        expect((await app.systemPrompt.assemble()).variables).to.deep.equal({})
        expect(events).to.deep.equal([])
      })
    }

    it('refuses a non-string name with the same message', () => {
      expect(thrown(() => plugin.systemPrompt.variable(42 as never, () => 'x')).message)
        .to.equal(`invalid prompt variable name "42" (must match ${RULE})`)
    })
  })

  describe('properties', () => {
    const literal = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '{', '}', 'é', '#') })
      .filter((s) => !s.includes('{{') && !s.endsWith('{'))
    const name = fc.constantFrom('model', 'cwd', 'a_1')
    const value = fc.string({ unit: fc.constantFrom('x', '{', '}', ' ', 'm') })

    it('text without {{ renders unchanged', () => {
      fc.assert(fc.property(fc.string().filter((s) => s !== '' && !s.includes('{{')), (text) => {
        expect(renderSection(text)).to.equal(text)
      }))
    })

    it('literal chunks and valid references render to the chunks and the values, values unscanned', () => {
      const template = fc.array(fc.oneof(literal.map((text) => ({ text })), name.map((ref) => ({ ref }))), { minLength: 1 })
      fc.assert(fc.property(template, value, value, value, (parts, model, cwd, a1) => {
        const variables: Record<string, string> = { model, cwd, a_1: a1 }
        // Chunks must not run into a following reference as `{` + `{{`; separate parts by a space.
        const text = parts.map((p) => 'ref' in p ? `{{${p.ref}}}` : p.text).join(' ')
        const expected = parts.map((p) => 'ref' in p ? variables[p.ref!] : p.text).join(' ')
        fc.pre(expected !== '')
        expect(renderSection(text, variables)).to.equal(expected)
      }))
    })
  })
})

describe('dsh-system-prompt: interpolating the same text again (compiled once, kept)', () => {
  it('gives each variable table its own values', () => {
    const text = 'Model {{model}} in {{cwd}}; {{#raw}}{{model}}{{/raw}} stays.'
    expect(interpolate(text, { model: 'a', cwd: '/x' }, 'section', 's')).to.equal('Model a in /x; {{model}} stays.')
    expect(interpolate(text, { model: 'b', cwd: '/y' }, 'section', 's')).to.equal('Model b in /y; {{model}} stays.')
  })

  it('names the entry and kind of each use in a problem, and keeps the first problem first', () => {
    const text = '{{known}} then {{ bad }} and {{missing}}'
    expect(thrown(() => interpolate(text, { known: 'k' }, 'section', 'one')).message)
      .to.equal('malformed prompt variable reference "{{ bad }}" in section "one" (variable names match /^[a-z][a-z0-9_]*$/)')
    expect(thrown(() => interpolate(text, {}, 'context', 'two')).message)
      .to.equal('unknown prompt variable "{{known}}" in context "two"; registered variables: (none)')
  })

  it('renders a text too long to keep exactly like a short one', () => {
    const long = 'x'.repeat(70 * 1024) + ' {{model}}'
    expect(interpolate(long, { model: 'm' }, 'section', 's')).to.equal('x'.repeat(70 * 1024) + ' m')
    expect(interpolate(long, { model: 'n' }, 'section', 's').endsWith(' n')).to.equal(true)
  })
})
