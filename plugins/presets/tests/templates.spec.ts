import { expect } from 'chai'
import type { Context } from 'cordis'
import {
  BUILTIN_TEMPLATES, CODER_TEMPLATE, PLANNER_TEMPLATE, REVIEWER_TEMPLATE, storePreset, validatePromptTemplate,
} from 'dsh-presets'
import { validatePromptTemplate as fromSystemPrompt } from 'dsh-system-prompt'
import { captureLogs, rejection, type CapturedLog } from 'dsh-testing'
import { boot, DEPLOYMENT, loadPresets, PLAN, stepAgent } from './helpers.js'

const KNOWN = 'known templates: coder, planner, reviewer'

describe('dsh-presets: templates and stored forms', () => {
  let app: Context
  let ctx: Context
  let logs: CapturedLog[]

  beforeEach(async () => {
    ({ app, host: ctx } = await boot())
    logs = captureLogs(app)
  })

  const warnings = () => logs.filter((log) => log.type === 'warn').map((log) => log.line)

  describe('built-in templates', () => {
    it('are coder, planner and reviewer, with real text', () => {
      expect(Object.keys(BUILTIN_TEMPLATES).sort()).to.deep.equal(['coder', 'planner', 'reviewer'])
      expect(BUILTIN_TEMPLATES).to.deep.equal({ coder: CODER_TEMPLATE, planner: PLANNER_TEMPLATE, reviewer: REVIEWER_TEMPLATE })
      for (const text of Object.values(BUILTIN_TEMPLATES)) expect(text.length).to.be.greaterThan(200)
    })

    it('use no variable, so they render for any agent', () => {
      for (const text of Object.values(BUILTIN_TEMPLATES)) expect(validatePromptTemplate(text, [])).to.deep.equal([])
    })

    it('give a preset that names one its text', async () => {
      await loadPresets(app, { presets: [{ id: 'review', template: 'reviewer' }] })
      expect((await stepAgent(ctx, 'r', 'review')).system).to.equal(`${REVIEWER_TEMPLATE}\n\n${PLAN}`)
      expect(app.presets.get('review')!.persona).to.deep.equal({ source: 'template', template: 'reviewer', text: REVIEWER_TEMPLATE })
    })
  })

  describe('configured templates', () => {
    it('are known next to the built-in ones, and one with a built-in id replaces it', async () => {
      await loadPresets(app, {
        templates: { triage: 'You sort incoming issues.', coder: 'House coder persona.' },
        presets: [{ id: 't', template: 'triage' }, { id: 'c', template: 'coder' }],
      })
      expect(Object.keys(app.presets.templates).sort()).to.deep.equal(['coder', 'planner', 'reviewer', 'triage'])
      expect((await stepAgent(ctx, 't', 't')).system).to.equal(`You sort incoming issues.\n\n${PLAN}`)
      expect((await stepAgent(ctx, 'c', 'c')).system).to.equal(`House coder persona.\n\n${PLAN}`)
    })
  })

  describe('stored form (seed 004)', () => {
    it('stores persona text equal to a known template as a reference to it', async () => {
      await loadPresets(app, { presets: [{ id: 'review', persona: REVIEWER_TEMPLATE }] })
      const preset = app.presets.get('review')!
      expect(preset.stored).to.deep.equal({ id: 'review', template: 'reviewer' })
      expect(preset.persona.source).to.equal('template')
      expect((await stepAgent(ctx, 'r', 'review')).system).to.equal(`${REVIEWER_TEMPLATE}\n\n${PLAN}`)
    })

    it('stores changed text as custom text and clears the template reference', async () => {
      const edited = REVIEWER_TEMPLATE + ' Be terse.'
      await loadPresets(app, { presets: [{ id: 'review', persona: edited, template: 'reviewer' }] })
      expect(app.presets.get('review')!.stored).to.deep.equal({ id: 'review', persona: edited })
      expect((await stepAgent(ctx, 'r', 'review')).system).to.equal(`${edited}\n\n${PLAN}`)
    })

    it('lets explicit text win over a template', async () => {
      await loadPresets(app, { presets: [{ id: 'p', persona: 'Custom persona.', template: 'coder' }] })
      expect(app.presets.get('p')!.persona).to.deep.equal({ source: 'text', text: 'Custom persona.' })
    })

    it('leaves keys at their default out and keeps the others', () => {
      expect(storePreset({ id: 'a', complete: false, includeRuntimeContext: true, tools: { allow: [], deny: [] } }, BUILTIN_TEMPLATES))
        .to.deep.equal({ id: 'a' })
      expect(storePreset({ id: 'b', persona: 'X', personaSuffix: 'Y', includeRuntimeContext: false, tools: { deny: ['bash'] } }, BUILTIN_TEMPLATES))
        .to.deep.equal({ id: 'b', persona: 'X', personaSuffix: 'Y', includeRuntimeContext: false, tools: { deny: ['bash'] } })
      expect(storePreset({ id: 'c', persona: 'Z', complete: true }, BUILTIN_TEMPLATES)).to.deep.equal({ id: 'c', persona: 'Z', complete: true })
    })

    it('prefers the entry\'s own template, then the default, then the first id, when several templates share the text', () => {
      const templates = { a: 'same', b: 'same', c: 'same' }
      expect(storePreset({ id: 'x', persona: 'same', template: 'c' }, templates, 'b').template).to.equal('c')
      expect(storePreset({ id: 'x', persona: 'same' }, templates, 'b').template).to.equal('b')
      expect(storePreset({ id: 'x', persona: 'same' }, templates).template).to.equal('a')
    })

    it('is what the service\'s store() gives an editor for an edited entry', async () => {
      await loadPresets(app, { templates: { triage: 'You sort incoming issues.' } })
      expect(app.presets.store({ id: 'new', persona: 'You sort incoming issues.' })).to.deep.equal({ id: 'new', template: 'triage' })
      expect(app.presets.store({ id: 'new', persona: 'Something else.' })).to.deep.equal({ id: 'new', persona: 'Something else.' })
    })
  })

  describe('unknown references and the default', () => {
    it('falls back to the deployment persona for an unknown reference and logs a warning naming both', async () => {
      await loadPresets(app, { presets: [{ id: 'legacy', template: 'old-reviewer' }] })
      expect(warnings()).to.deep.equal([
        `warn dsh-presets: preset "legacy" references unknown persona template "old-reviewer"; ${KNOWN}; falling back to the deployment persona`,
      ])
      const preset = app.presets.get('legacy')!
      expect(preset.stored).to.deep.equal({ id: 'legacy', template: 'old-reviewer' })
      expect(preset.persona).to.deep.equal({ source: 'deployment' })
      expect((await stepAgent(ctx, 'l', 'legacy')).system).to.equal(`${DEPLOYMENT}\n\n${PLAN}`)
    })

    it('falls back to the default template when one is set, and says so', async () => {
      await loadPresets(app, { default: 'coder', presets: [{ id: 'legacy', template: 'old-reviewer' }] })
      expect(warnings()).to.deep.equal([
        `warn dsh-presets: preset "legacy" references unknown persona template "old-reviewer"; ${KNOWN}; falling back to the default template "coder"`,
      ])
      expect(app.presets.get('legacy')!.persona).to.deep.equal({ source: 'default', template: 'coder', text: CODER_TEMPLATE })
      expect((await stepAgent(ctx, 'l', 'legacy')).system).to.equal(`${CODER_TEMPLATE}\n\n${PLAN}`)
    })

    it('gives the default template to a preset that names no persona, without a warning', async () => {
      await loadPresets(app, { default: 'planner', presets: [{ id: 'p' }] })
      expect(app.presets.get('p')!.persona).to.deep.equal({ source: 'default', template: 'planner', text: PLANNER_TEMPLATE })
      expect((await stepAgent(ctx, 'p', 'p')).system).to.equal(`${PLANNER_TEMPLATE}\n\n${PLAN}`)
      expect((await stepAgent(ctx, 'solo')).system).to.equal(`${DEPLOYMENT}\n\n${PLAN}`)
      expect(warnings()).to.deep.equal([])
    })

    it('does not apply complete when an unknown reference falls back to the deployment persona, and says so', async () => {
      await loadPresets(app, { presets: [{ id: 'bare', template: 'gone', complete: true }] })
      expect(warnings()).to.deep.equal([
        `warn dsh-presets: preset "bare" references unknown persona template "gone"; ${KNOWN}; falling back to the deployment persona (complete is not applied)`,
      ])
      expect(app.presets.get('bare')!.complete).to.equal(false)
      expect((await stepAgent(ctx, 'b', 'bare')).system).to.equal(`${DEPLOYMENT}\n\n${PLAN}`)
    })

    it('applies complete to the default template an unknown reference falls back to', async () => {
      await loadPresets(app, { default: 'reviewer', presets: [{ id: 'bare', template: 'gone', complete: true }] })
      expect((await stepAgent(ctx, 'b', 'bare')).system).to.equal(REVIEWER_TEMPLATE)
    })
  })

  describe('save-time validation', () => {
    it('re-exports validatePromptTemplate from dsh-system-prompt', () => {
      expect(validatePromptTemplate).to.equal(fromSystemPrompt)
    })

    it('checks an edited text against the variables the deployment registers, with every problem', async () => {
      await loadPresets(app, {})
      const problems = await app.presets.validate('For {{model}} in {{cwd}}: {{ modle }} and {{date}}')
      expect(problems.map((p) => p.message)).to.deep.equal([
        'malformed prompt variable reference "{{ modle }}" at line 1, column 27 (variable names match /^[a-z][a-z0-9_]*$/)',
        'unknown prompt variable "{{date}}" at line 1, column 43; registered variables: cwd, model, provider',
      ])
      app.systemPrompt.variable('date', () => '2026-11-30')
      expect((await app.presets.validate('{{date}}'))).to.deep.equal([])
    })

    it('refuses a text that is not a string', async () => {
      await loadPresets(app, {})
      const error = await rejection(() => app.presets.validate(undefined as unknown as string))
      expect(error.message).to.equal('presets.validate(text) needs the template text as a string, received undefined')
    })
  })
})
