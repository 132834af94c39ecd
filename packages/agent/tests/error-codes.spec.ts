import { expect } from 'chai'
import { AgentErrors } from 'dsh-agent'

describe('dsh-agent: every error carries a stable code and the fields it is about', () => {
  const cases: Array<[Error & { code: string; details: object }, ErrorConstructor | TypeErrorConstructor, string, object, string]> = [
    [AgentErrors.invalidAgentId(''), TypeError, 'AGENT_INVALID_ID', { received: '' }, 'agent id must be a non-empty string, received ""'],
    [AgentErrors.invalidModel('main'), TypeError, 'AGENT_INVALID_MODEL', { id: 'main' }, 'agent "main" needs a model (a non-empty string)'],
    [AgentErrors.duplicateAgent('main'), Error, 'AGENT_DUPLICATE_ID', { id: 'main' }, 'agent "main" already exists; dispose it first or choose another id'],
    [AgentErrors.unknownPreset('auditor', ['writer']), Error, 'AGENT_UNKNOWN_PRESET', { preset: 'auditor', known: ['writer'] }, 'unknown preset "auditor"; known presets: writer'],
    [AgentErrors.duplicatePreset('writer'), Error, 'AGENT_DUPLICATE_PRESET', { preset: 'writer' }, 'preset "writer" is already defined'],
    [AgentErrors.invalidPresetId(7), TypeError, 'AGENT_INVALID_PRESET_ID', { received: 7 }, 'preset id must be a non-empty string, received 7'],
    [AgentErrors.unknownParent('child', 'lead'), Error, 'AGENT_UNKNOWN_PARENT', { id: 'child', parent: 'lead' }, 'agent "child" names parent agent "lead", which does not exist'],
    [AgentErrors.invalidPromptChange('merge'), TypeError, 'AGENT_INVALID_PROMPT_CHANGE', { received: 'merge' }, 'promptChange must be "append" or "replace", received "merge"'],
    [AgentErrors.agentDisposed('main'), Error, 'AGENT_DISPOSED', { id: 'main' }, 'agent "main" has been disposed'],
    [AgentErrors.invalidRecord('main', 'tool_calls must be an array'), TypeError, 'AGENT_INVALID_RECORD', { id: 'main', problem: 'tool_calls must be an array' }, 'agent "main" record(): tool_calls must be an array'],
    [AgentErrors.invalidInput('main'), TypeError, 'AGENT_INVALID_INPUT', { id: 'main' }, 'agent "main" step(input): input must be a string when given'],
  ]

  for (const [error, type, code, details, message] of cases) {
    it(`${code}: ${type.name}, details ${JSON.stringify(details)}, message unchanged`, () => {
      expect(error).to.be.instanceOf(type)
      expect(error.code).to.equal(code)
      expect(error.details).to.deep.equal(details)
      expect(error.message).to.equal(message)
    })
  }

  it('covers every factory of the catalogue, each with its own code', () => {
    expect(cases.length).to.equal(Object.values(AgentErrors).filter((value) => typeof value === 'function').length)
    expect(new Set(cases.map((c) => c[2])).size).to.equal(cases.length)
  })
})
