import { expect } from 'chai'
import { PresetErrors, resolvePresets } from 'dsh-presets'
import { thrown } from 'dsh-testing'

describe('dsh-presets: every error and warning carries a stable code and the fields it is about', () => {
  const errors = [
    PresetErrors.invalidPresetId(2, ''),
    PresetErrors.duplicatePresetId('rev'),
    PresetErrors.invalidTemplateId(''),
    PresetErrors.emptyTemplate('triage'),
    PresetErrors.templateSyntax('triage', ['p1', 'p2']),
    PresetErrors.presetSyntax('rev', 'personaSuffix', ['p1']),
    PresetErrors.unknownDefault('auditor', ['coder']),
    PresetErrors.completeWithoutPersona('rev'),
    PresetErrors.suffixWithComplete('rev'),
    PresetErrors.invalidToolName('rev', 'deny', 'a b'),
    PresetErrors.repeatedToolName('rev', 'allow', 'read'),
    PresetErrors.allowedAndDenied('rev', ['read', 'bash']),
    PresetErrors.invalidEditorText(3),
  ]
  const notices = [
    PresetErrors.unknownTemplateWarning('rev', 'auditor', ['coder'], undefined, true),
    PresetErrors.unresolvedToolsDebug('rev', ['web']),
  ]

  it('each error factory makes its error with its code, details and culprit, and the message unchanged', () => {
    expect(errors.map((e) => ({ name: e.name, code: e.code, details: e.details, message: e.message, culprit: (e as { culprit?: string }).culprit }))).to.deep.equal([
      { name: 'PresetConfigError', code: 'PRESETS_INVALID_ID', details: { index: 2, received: '' }, message: 'presets[2].id must be a non-empty string, received ""', culprit: undefined },
      { name: 'PresetConfigError', code: 'PRESETS_DUPLICATE_ID', details: { preset: 'rev' }, message: 'presets lists preset "rev" more than once', culprit: 'rev' },
      { name: 'PresetConfigError', code: 'PRESETS_INVALID_TEMPLATE_ID', details: { template: '' }, message: 'templates has an empty template id (ids are non-empty strings)', culprit: '' },
      { name: 'PresetConfigError', code: 'PRESETS_EMPTY_TEMPLATE', details: { template: 'triage' }, message: 'template "triage" is empty (a persona template needs text)', culprit: 'triage' },
      { name: 'PresetConfigError', code: 'PRESETS_TEMPLATE_SYNTAX', details: { template: 'triage', problems: ['p1', 'p2'] },
        message: 'template "triage" is not a valid prompt template: p1; p2', culprit: 'triage' },
      { name: 'PresetConfigError', code: 'PRESETS_PRESET_SYNTAX', details: { preset: 'rev', key: 'personaSuffix', problems: ['p1'] },
        message: 'preset "rev" personaSuffix is not a valid prompt template: p1', culprit: 'rev' },
      { name: 'PresetConfigError', code: 'PRESETS_UNKNOWN_DEFAULT', details: { template: 'auditor', known: ['coder'] },
        message: 'default names unknown persona template "auditor"; known templates: coder', culprit: 'auditor' },
      { name: 'PresetConfigError', code: 'PRESETS_COMPLETE_WITHOUT_PERSONA', details: { preset: 'rev' },
        message: 'preset "rev" sets complete but has no persona to claim the prompt with (set persona or template, or a default template)', culprit: 'rev' },
      { name: 'PresetConfigError', code: 'PRESETS_SUFFIX_WITH_COMPLETE', details: { preset: 'rev' },
        message: 'preset "rev" sets both complete and personaSuffix; a complete persona is the whole prompt, so the suffix would never render', culprit: 'rev' },
      { name: 'PresetConfigError', code: 'PRESETS_INVALID_TOOL_NAME', details: { preset: 'rev', key: 'deny', name: 'a b' },
        message: 'preset "rev" tools.deny lists invalid tool name "a b" (must match /^[a-zA-Z0-9_-]{1,64}$/)', culprit: 'rev' },
      { name: 'PresetConfigError', code: 'PRESETS_REPEATED_TOOL_NAME', details: { preset: 'rev', key: 'allow', name: 'read' },
        message: 'preset "rev" tools.allow lists "read" more than once', culprit: 'rev' },
      { name: 'PresetConfigError', code: 'PRESETS_ALLOWED_AND_DENIED', details: { preset: 'rev', names: ['read', 'bash'] },
        message: 'preset "rev" tools lists "read", "bash" in both allow and deny', culprit: 'rev' },
      { name: 'TypeError', code: 'PRESETS_INVALID_EDITOR_TEXT', details: { received: 'number' },
        message: 'presets.validate(text) needs the template text as a string, received number', culprit: undefined },
    ])
  })

  it('each warning and debug line is a { code, message, details } object', () => {
    expect(notices).to.deep.equal([
      { code: 'PRESETS_UNKNOWN_TEMPLATE', details: { preset: 'rev', template: 'auditor', known: ['coder'], fallback: undefined, completeDropped: true },
        message: 'preset "rev" references unknown persona template "auditor"; known templates: coder; falling back to the deployment persona (complete is not applied)' },
      { code: 'PRESETS_UNRESOLVED_TOOLS', details: { preset: 'rev', names: ['web'] },
        message: 'preset "rev" tools name "web", not registered yet; the restriction covers them once they are' },
    ])
  })

  it('covers every factory of the catalogue, each with a code of its own', () => {
    const made = [...errors, ...notices]
    expect(made.length).to.equal(Object.values(PresetErrors).filter((value) => typeof value === 'function' && value.name !== 'PresetConfigError').length)
    expect(new Set(made.map((e) => e.code)).size).to.equal(made.length)
  })

  it('resolvePresets() throws the coded error, and a resolved preset keeps its warnings as objects', () => {
    const error = thrown(() => resolvePresets({ presets: [{ id: 'rev' }, { id: 'rev' }] }))
    expect([(error as { code?: string }).code, (error as { details?: object }).details]).to.deep.equal(['PRESETS_DUPLICATE_ID', { preset: 'rev' }])
    const catalog = resolvePresets({ presets: [{ id: 'rev', template: 'auditor' }] })
    expect(catalog.presets[0].warnings.map((w) => w.code)).to.deep.equal(['PRESETS_UNKNOWN_TEMPLATE'])
  })
})
