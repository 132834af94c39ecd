import { expect } from 'chai'
import { Context } from 'cordis'
import { interpolate, isVariableName, SystemPrompt, VARIABLE_NAME, validatePromptTemplate } from 'dsh-system-prompt'
import { PromptErrors } from 'dsh-system-prompt/internal'
import { bootApp, pluginContext, thrown } from 'dsh-testing'

const E = PromptErrors

describe('dsh-system-prompt: error codes', () => {
  const cases: Array<[string, Error & { code?: string; details?: object }, string, object]> = [
    ['nonFiniteOrder', E.nonFiniteOrder('section', 's'), 'PROMPT_NON_FINITE_ORDER', { kind: 'section', name: 's' }],
    ['invalidName', E.invalidName('context', 7), 'PROMPT_INVALID_NAME', { kind: 'context', received: 7 }],
    ['invalidText', E.invalidText('section', 's', 1), 'PROMPT_INVALID_TEXT', { kind: 'section', name: 's', received: 1 }],
    ['invalidBand', E.invalidBand('s', 'middle'), 'PROMPT_INVALID_BAND', { name: 's', received: 'middle' }],
    ['invalidVolatility', E.invalidVolatility('context', 'c', 'hourly'), 'PROMPT_INVALID_VOLATILITY', { kind: 'context', name: 'c', received: 'hourly' }],
    ['invalidSectionTool', E.invalidSectionTool('s', ''), 'PROMPT_INVALID_SECTION_TOOL', { name: 's', received: '' }],
    ['invalidSectionCompaction', E.invalidSectionCompaction('s', 'keep'), 'PROMPT_INVALID_SECTION_COMPACTION', { name: 's', received: 'keep' }],
    ['duplicateGlobal', E.duplicateGlobal('variable', 'v'), 'PROMPT_ALREADY_REGISTERED', { kind: 'variable', name: 'v' }],
    ['duplicateScoped', E.duplicateScoped('section', 's'), 'PROMPT_ALREADY_REGISTERED_IN_SCOPE', { kind: 'section', name: 's' }],
    ['invalidVariableName', E.invalidVariableName('X'), 'PROMPT_INVALID_VARIABLE_NAME', { received: 'X' }],
    ['invalidProvider', E.invalidProvider('tool provider', 1), 'PROMPT_INVALID_PROVIDER', { what: 'tool provider', received: 1 }],
    ['multipleComplete', E.multipleComplete(['a', 'b']), 'PROMPT_MULTIPLE_COMPLETE', { names: ['a', 'b'] }],
    ['schemaTooDeep', E.schemaTooDeep(256), 'PROMPT_SCHEMA_TOO_DEEP', { limit: 256 }],
    ['schemaAccessor', E.schemaAccessor('parameters.x'), 'PROMPT_SCHEMA_ACCESSOR', { path: 'parameters.x' }],
    ['schemaNotJson', E.schemaNotJson('parameters.x', 'holds a bigint'), 'PROMPT_SCHEMA_NOT_JSON', { path: 'parameters.x', what: 'holds a bigint' }],
    ['schemaUnreadable', E.schemaUnreadable('parameters', 'trap'), 'PROMPT_SCHEMA_UNREADABLE', { path: 'parameters' }],
    ['toolSchemaUnfreezable', E.toolSchemaUnfreezable('t', 'p', E.schemaTooDeep(256)), 'PROMPT_TOOL_SCHEMA_UNFREEZABLE', { tool: 't', owner: 'p', problem: 'PROMPT_SCHEMA_TOO_DEEP' }],
    ['invalidTemplateText', E.invalidTemplateText(null), 'PROMPT_INVALID_TEMPLATE_TEXT', { received: null }],
    ['toolOrderUnregistered', E.toolOrderUnregistered(['x'], ['a']), 'PROMPT_TOOL_ORDER_UNREGISTERED', { missing: ['x'], known: ['a'] }],
    ['reservedToolName', E.reservedToolName('<unlisted-tools>', 'p'), 'PROMPT_RESERVED_TOOL_NAME', { owner: 'p' }],
    ['duplicateToolName', E.duplicateToolName('t', ['a', 'b']), 'PROMPT_DUPLICATE_TOOL', { tool: 't', owners: ['a', 'b'] }],
    ['providerFailed', E.providerFailed('tool provider', 'p', new Error('x')), 'PROMPT_PROVIDER_FAILED', { what: 'tool provider', owner: 'p' }],
    ['providerReturned', E.providerReturned('tool provider', 'p', 'an object', 1), 'PROMPT_PROVIDER_RETURNED', { what: 'tool provider', owner: 'p', expected: 'an object' }],
    ['listenerFailed', E.listenerFailed('p', new Error('x')), 'PROMPT_LISTENER_FAILED', { owner: 'p' }],
    ['listenerNextTwice', E.listenerNextTwice('p'), 'PROMPT_LISTENER_NEXT_TWICE', { owner: 'p' }],
    ['malformedAssembly', E.malformedAssembly('p', 'sections is not an array'), 'PROMPT_MALFORMED_ASSEMBLY', { owner: 'p', problem: 'sections is not an array' }],
    ['unknownVariable', E.unknownVariable({ kind: 'section', entry: 's' }, 'v', ['a']), 'PROMPT_UNKNOWN_VARIABLE', { kind: 'section', entry: 's', variable: 'v', registered: ['a'] }],
    ['valuelessVariable', E.valuelessVariable({ kind: 'context', entry: 'c' }, 'v'), 'PROMPT_VALUELESS_VARIABLE', { kind: 'context', entry: 'c', variable: 'v' }],
    ['malformedGroup', E.malformedGroup({ line: 2, column: 3 }, ' x '), 'PROMPT_MALFORMED_REFERENCE', { line: 2, column: 3, inner: ' x ' }],
    ['malformedOpening', E.malformedOpening({ kind: 'section', entry: 's' }, '{{{x'), 'PROMPT_MALFORMED_OPENING', { kind: 'section', entry: 's', snippet: '{{{x' }],
    ['unterminatedRaw', E.unterminatedRaw({ kind: 'section', entry: 's' }), 'PROMPT_UNTERMINATED_RAW', { kind: 'section', entry: 's' }],
  ]
  for (const [factory, error, code, details] of cases) {
    it(`${factory} carries the code ${code} and the fields it is about`, () => {
      expect(error.code).to.equal(code)
      expect(error.details).to.deep.equal(details)
      expect(Object.isFrozen(error.details)).to.equal(true)
    })
  }

  it('gives every kind of error its own code', () => {
    const codes = cases.map(([, error]) => error.code)
    expect(new Set(codes).size).to.equal(codes.length)
  })

  it('names the place of a template problem by entry when rendering and by position when validating, with one code', () => {
    const rendered = thrown(() => interpolate('a {{nope}}', {}, 'section', 's')) as Error & { code: string }
    expect(rendered.message).to.equal('unknown prompt variable "{{nope}}" in section "s"; registered variables: (none)')
    expect(rendered.code).to.equal('PROMPT_UNKNOWN_VARIABLE')
    const [problem] = validatePromptTemplate('a {{nope}}', [])
    expect(problem.message).to.equal('unknown prompt variable "{{nope}}" at line 1, column 3; registered variables: (none)')
    expect(problem.code).to.equal(rendered.code)
  })

  it('words a valueless variable in an entry with the entry in parentheses and at a position with the position', () => {
    expect(E.valuelessVariable({ kind: 'section', entry: 's' }, 'cwd').message)
      .to.equal('prompt variable "{{cwd}}" has no value for this assembly (section "s")')
    expect(E.valuelessVariable({ line: 1, column: 4 }, 'cwd').message)
      .to.equal('prompt variable "{{cwd}}" has no value for this assembly at line 1, column 4')
  })

  it('exports the variable-name rule once, as a RegExp and a predicate', () => {
    expect(VARIABLE_NAME.source).to.equal('^[a-z][a-z0-9_]*$')
    expect(['model', 'a_1'].every(isVariableName)).to.equal(true)
    expect(['Model', '1a', '', 'a-b', 7].some(isVariableName)).to.equal(false)
  })

  it('rejects a registration with a coded error whose details name the entry', async () => {
    const { app } = await bootApp({ systemPrompt: {} })
    const plugin: Context = await pluginContext(app, 'p', ['systemPrompt'])
    const error = thrown(() => plugin.systemPrompt.section({ name: 's', order: NaN, text: '' })) as Error & { code: string; details: object }
    expect(error).to.be.instanceOf(TypeError)
    expect([error.code, error.details]).to.deep.equal(['PROMPT_NON_FINITE_ORDER', { kind: 'section', name: 's' }])
    expect(SystemPrompt).to.be.a('function')
  })
})
