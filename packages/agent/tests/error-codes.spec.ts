import { expect } from 'chai'
import { AgentErrors } from 'dsh-agent'

describe('dsh-agent: every error carries a stable code and the fields it is about', () => {
  const made = [
    AgentErrors.invalidAgentId(''),
    AgentErrors.invalidModel('main'),
    AgentErrors.duplicateAgent('main'),
    AgentErrors.unknownPreset('auditor', ['writer']),
    AgentErrors.duplicatePreset('writer'),
    AgentErrors.invalidPresetId(7),
    AgentErrors.unknownParent('child', 'lead'),
    AgentErrors.invalidPromptChange('merge'),
    AgentErrors.agentDisposed('main'),
    AgentErrors.invalidRecord('main', 'tool_calls must be an array'),
    AgentErrors.invalidInput('main'),
    AgentErrors.invalidParent('child', {}),
  ]

  it('each factory makes its error class with its code and details, and the message unchanged', () => {
    expect(made.map((e) => ({ name: e.name, code: e.code, details: e.details, message: e.message }))).to.deep.equal([
      { name: 'TypeError', code: 'AGENT_INVALID_ID', details: { received: '' }, message: 'agent id must be a non-empty string, received ""' },
      { name: 'TypeError', code: 'AGENT_INVALID_MODEL', details: { id: 'main' }, message: 'agent "main" needs a model (a non-empty string)' },
      { name: 'Error', code: 'AGENT_DUPLICATE_ID', details: { id: 'main' }, message: 'agent "main" already exists; dispose it first or choose another id' },
      { name: 'Error', code: 'AGENT_UNKNOWN_PRESET', details: { preset: 'auditor', known: ['writer'] }, message: 'unknown preset "auditor"; known presets: writer' },
      { name: 'Error', code: 'AGENT_DUPLICATE_PRESET', details: { preset: 'writer' }, message: 'preset "writer" is already defined' },
      { name: 'TypeError', code: 'AGENT_INVALID_PRESET_ID', details: { received: 7 }, message: 'preset id must be a non-empty string, received 7' },
      { name: 'Error', code: 'AGENT_UNKNOWN_PARENT', details: { id: 'child', parent: 'lead' }, message: 'agent "child" names parent agent "lead", which does not exist' },
      { name: 'TypeError', code: 'AGENT_INVALID_PROMPT_CHANGE', details: { received: 'merge' }, message: 'promptChange must be "append" or "replace", received "merge"' },
      { name: 'Error', code: 'AGENT_DISPOSED', details: { id: 'main' }, message: 'agent "main" has been disposed' },
      { name: 'TypeError', code: 'AGENT_INVALID_RECORD', details: { id: 'main', problem: 'tool_calls must be an array' }, message: 'agent "main" record(): tool_calls must be an array' },
      { name: 'TypeError', code: 'AGENT_INVALID_INPUT', details: { id: 'main' }, message: 'agent "main" step(input): input must be a string when given' },
      { name: 'TypeError', code: 'AGENT_INVALID_PARENT', details: { id: 'child' }, message: 'agent "child" parent must be an agent or an agent\'s id, received an object' },
    ])
  })

  it('covers every factory of the catalogue, each with a code of its own', () => {
    expect(made.length).to.equal(Object.values(AgentErrors).filter((value) => typeof value === 'function').length)
    expect(new Set(made.map((e) => e.code)).size).to.equal(made.length)
  })
})
