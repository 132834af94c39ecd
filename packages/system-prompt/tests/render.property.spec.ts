import { expect } from 'chai'
import fc from 'fast-check'
import {
  interpolate, PromptError, renderAssembly, renderContextSnapshot, renderPrompt, type AssembledContext, type AssembledSection,
} from 'dsh-system-prompt'
import { SOAK } from 'dsh-testing'
import { outcomeOf, referenceInterpolate, referencePrompt, referenceSnapshot } from './render-reference.js'

// Normal runs stay well inside the suite's budget; `DSH_SOAK=1` runs the long counts (1,000,000 texts).
const RUNS = SOAK ? 1_000_000 : 20_000
const PROMPT_RUNS = SOAK ? 200_000 : 1_000

const NAMES = ['a', 'b', 'model', 'x_1', 'z9', 'constructor', 'prototype'] as const
// The alphabet docs/guarantees.md states the guarantee for: braces, letters, digits, `_`, space, newline (plus the raw markers' `#` and `/`).
const CHAR = fc.constantFrom('{', '}', 'a', 'b', 'm', 'Z', 'x', '0', '9', '_', ' ', '\n')
const TOKEN = fc.oneof(
  { weight: 5, arbitrary: CHAR },
  { weight: 3, arbitrary: fc.constantFrom('{{', '}}', '{{{', '}}}') },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES, 'missing', 'toString') },
  { weight: 4, arbitrary: fc.constantFrom(...NAMES, 'missing', ' model ', 'Model', '1a', '', '_x', '#raw', '/raw').map((inner) => `{{${inner}}}`) },
  { weight: 1, arbitrary: fc.constantFrom('{{#raw}}', '{{/raw}}', '#raw', '/raw') },
)
/** Texts over the alphabet, biased towards groups, near-groups and raw markers. */
const TEXT = fc.oneof(
  { weight: 4, arbitrary: fc.array(TOKEN, { maxLength: 24 }).map((tokens) => tokens.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: CHAR, maxLength: 40 }) },
)
/** Values that look like template syntax: they must come out exactly as they are. */
const VALUE = fc.oneof(fc.string({ unit: CHAR, maxLength: 8 }), fc.constantFrom('{{a}}', '{{#raw}}', '}}{{', '{{{model}}}', ''))
/** Variable tables: some names missing, some registered without a value (`undefined`). */
const TABLE = fc.dictionary(fc.constantFrom(...NAMES), fc.option(VALUE, { nil: undefined, freq: 6 }), { maxKeys: NAMES.length })
const KIND = fc.constantFrom('section' as const, 'context' as const)
const OWNER = fc.constantFrom('s', 'tool:read', 'a "quoted" name', 'é', 'deployment:persona')

// The four R-RENDER-4 errors, plus the unterminated raw block of the escape.
const DOCUMENTED = [
  /^unknown prompt variable "\{\{[a-z][a-z0-9_]*\}\}" in (section|context) ".*"; registered variables: .+$/s,
  /^prompt variable "\{\{[a-z][a-z0-9_]*\}\}" has no value for this assembly \((section|context) ".*"\)$/s,
  /^malformed prompt variable reference "\{\{[^{}]*\}\}" in (section|context) ".*" \(variable names match \/\^\[a-z\]\[a-z0-9_\]\*\$\/\)$/s,
  /^malformed prompt variable reference at "(?:[^"\\]|\\.){1,16}…" in (section|context) ".*" \(references are complete simple \{\{name\}\} groups\)$/s,
  /^unterminated \{\{#raw\}\} block in (section|context) ".*" \(close it with \{\{\/raw\}\}\)$/s,
]

describe('dsh-system-prompt: rendering agrees with a reference model of R-RENDER (soak)', function () {
  if (SOAK) this.timeout(0)

  it(`interpolate() gives the reference's text, or its error type and message, for ${RUNS} random texts and tables`, () => {
    fc.assert(fc.property(TEXT, TABLE, KIND, OWNER, (text, table, kind, owner) => {
      expect(outcomeOf(() => interpolate(text, table, kind, owner))).to.deep.equal(referenceInterpolate(text, table, kind, owner))
    }), { numRuns: RUNS })
  })

  it('never fails with anything but a PromptError carrying one of the documented messages', () => {
    fc.assert(fc.property(TEXT, TABLE, KIND, OWNER, (text, table, kind, owner) => {
      try {
        expect(interpolate(text, table, kind, owner)).to.be.a('string')
      } catch (error) {
        expect(error).to.be.instanceOf(PromptError)
        const message = (error as Error).message
        expect(DOCUMENTED.some((pattern) => pattern.test(message)), message).to.equal(true)
      }
    }), { numRuns: Math.min(RUNS, 5_000) })
  })

  it('never scans a substituted value again: {{name}} gives the value verbatim, whatever braces it holds', () => {
    fc.assert(fc.property(fc.constantFrom(...NAMES), VALUE, fc.string({ unit: fc.constantFrom('x', ' ', '\n', '}'), maxLength: 4 }), (name, value, tail) => {
      const table = { [name]: value }
      expect(interpolate(`<{{${name}}}>${tail}`, table, 'section', 's')).to.equal(`<${value}>${tail}`)
    }), { numRuns: Math.min(RUNS, 5_000) })
  })

  it(`renderAssembly() (the path the agent and the CLI use) and the published helpers agree with the reference on whole assemblies (${PROMPT_RUNS} runs)`, () => {
    const entry = fc.record({
      name: fc.constantFrom('one', 'two', 'three', 'four', 'five'),
      text: TEXT,
      interpolate: fc.constantFrom(undefined, undefined, false),
      band: fc.constantFrom(undefined, undefined, 'first' as const, 'last' as const),
    })
    const entries = fc.uniqueArray(entry, { selector: (e) => e.name, maxLength: 5 })
    fc.assert(fc.property(entries, entries, TABLE, (sections, contexts, variables) => {
      const asSections = sections.map((s, i): AssembledSection => ({ name: s.name, order: i, text: s.text, ...(s.interpolate === false ? { interpolate: false } : {}), ...(s.band ? { band: s.band } : {}) }))
      const asContexts = contexts.map((c, i): AssembledContext => ({ name: c.name, order: i, text: c.text, ...(c.interpolate === false ? { interpolate: false } : {}) }))
      const prompt = referencePrompt(sections, variables)
      const snapshot = referenceSnapshot(contexts.map(({ band: _band, ...c }) => c), variables)
      expect(outcomeOf(() => renderPrompt({ sections: asSections, variables }))).to.deep.equal(prompt)
      expect(outcomeOf(() => renderContextSnapshot({ contexts: asContexts, variables }))).to.deep.equal(snapshot)
      // The shipped path: when both halves render, it gives exactly those texts, each part with its entry.
      const assembly = { sections: asSections, contexts: asContexts, variables }
      if (prompt.ok && snapshot.ok) {
        const rendered = renderAssembly(assembly)
        expect([rendered.system, rendered.snapshot]).to.deep.equal([prompt.text, snapshot.text])
        expect(rendered.sections.every((part) => asSections.includes(part.entry) && part.text !== '')).to.equal(true)
      } else {
        expect(() => renderAssembly(assembly)).to.throw(PromptError)
      }
    }), { numRuns: PROMPT_RUNS })
  })

  it('the reference model itself pins the examples of R-RENDER-4, so the comparison above cannot pass vacuously', () => {
    const table = { model: 'deepseek-chat', cwd: undefined }
    const text = (t: string) => referenceInterpolate(t, table, 'section', 's')
    expect(text('Model: {{model}}.')).to.deep.equal({ ok: true, text: 'Model: deepseek-chat.' })
    expect(text('{{#raw}}{{x}}{{/raw}}')).to.deep.equal({ ok: true, text: '{{x}}' })
    expect(text('a {{ b')).to.deep.equal({ ok: true, text: 'a {{ b' })
    expect(text('{{model}}}')).to.deep.equal({ ok: true, text: 'deepseek-chat}' })
    expect(text('{{ model }}')).to.deep.include({ message: 'malformed prompt variable reference "{{ model }}" in section "s" (variable names match /^[a-z][a-z0-9_]*$/)' })
    expect(text('{{{model}}}')).to.deep.include({ message: 'malformed prompt variable reference at "{{{model}}}…" in section "s" (references are complete simple {{name}} groups)' })
    expect(text('{{cwd}}')).to.deep.include({ message: 'prompt variable "{{cwd}}" has no value for this assembly (section "s")' })
    expect(text('{{constructor}}')).to.deep.include({ message: 'unknown prompt variable "{{constructor}}" in section "s"; registered variables: cwd, model' })
    expect(text('{{#raw}} open')).to.deep.include({ message: 'unterminated {{#raw}} block in section "s" (close it with {{/raw}})' })
  })
})
