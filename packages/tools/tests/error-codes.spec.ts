import { expect } from 'chai'
import { ToolErrors } from 'dsh-tools'

describe('dsh-tools: every error carries a stable code and the fields it is about', () => {
  const made = [
    ToolErrors.invalidToolName('a b'),
    ToolErrors.invalidDescription('read'),
    ToolErrors.invalidParameters('read', 'expected an object, received an array'),
    ToolErrors.duplicateGlobalTool('read'),
    ToolErrors.duplicateScopedTool('read'),
    ToolErrors.guidanceWithoutOrder('lint'),
    ToolErrors.invalidGuidance('read'),
    ToolErrors.restrictNeedsScope(),
    ToolErrors.invalidRestriction('needs an allow list or a non-empty deny list'),
    ToolErrors.unknownRestrictedTools(['x', 'y'], []),
  ]

  it('each factory makes its error class with its code and details, and the message unchanged', () => {
    expect(made.map((e) => ({ name: e.name, code: e.code, details: e.details, message: e.message }))).to.deep.equal([
      { name: 'TypeError', code: 'TOOLS_INVALID_NAME', details: { received: 'a b' }, message: 'invalid tool name "a b" (must match /^[a-zA-Z0-9_-]{1,64}$/)' },
      { name: 'TypeError', code: 'TOOLS_INVALID_DESCRIPTION', details: { name: 'read' }, message: 'tool "read" description must be a string' },
      { name: 'TypeError', code: 'TOOLS_INVALID_PARAMETERS', details: { name: 'read', problem: 'expected an object, received an array' }, message: 'tool "read" parameters are not a valid JSON Schema object: expected an object, received an array' },
      { name: 'Error', code: 'TOOLS_DUPLICATE_GLOBAL', details: { name: 'read' }, message: 'tool "read" is already registered (register the second one through a narrower scope to shadow it there)' },
      { name: 'Error', code: 'TOOLS_DUPLICATE_SCOPED', details: { name: 'read' }, message: 'tool "read" is already registered in this scope' },
      { name: 'Error', code: 'TOOLS_GUIDANCE_WITHOUT_ORDER', details: { name: 'lint' }, message: 'tool "lint" guidance needs an order: "tool:lint" is not a named placement, so pass guidance as { text, order }' },
      { name: 'TypeError', code: 'TOOLS_INVALID_GUIDANCE', details: { name: 'read' }, message: 'tool "read" guidance must be a string or { text: string, order?: number }' },
      { name: 'Error', code: 'TOOLS_RESTRICT_NEEDS_SCOPE', details: {}, message: 'tools.restrict() needs a scoped context (an agent\'s or a preset\'s ctx): a restriction through a global context would hide tools from every agent' },
      { name: 'TypeError', code: 'TOOLS_INVALID_RESTRICTION', details: { problem: 'needs an allow list or a non-empty deny list' }, message: 'tools.restrict() needs an allow list or a non-empty deny list' },
      { name: 'Error', code: 'TOOLS_UNKNOWN_RESTRICTED', details: { names: ['x', 'y'], known: [] }, message: 'tools.restrict() names unknown tools "x", "y"; known tools: (none)' },
    ])
  })

  it('makes the change-listener warning as a coded object whose message is what the logger prints', () => {
    expect(ToolErrors.changeListenerFailed({ action: 'register', kind: 'tool', name: 'read' }, new Error('boom'))).to.deep.equal({
      code: 'TOOLS_CHANGE_LISTENER_FAILED',
      message: 'a tools/change listener failed on register of tool "read": boom',
      details: { action: 'register', kind: 'tool', name: 'read' },
    })
  })

  it('covers every factory of the catalogue, each with a code of its own', () => {
    expect(made.length + 1).to.equal(Object.values(ToolErrors).filter((value) => typeof value === 'function').length)
    expect(new Set(made.map((e) => e.code)).size).to.equal(made.length)
  })
})
