import { expect } from 'chai'
import { BootErrors } from 'dsh-boot'
import { agentKeyOf, loadTimeAssemblyError } from '../src/after-load.js'

/** An error with `code` and `details` and a message that says something else entirely. */
const coded = (code: string, details: object = {}, message = 'words that say nothing about it') => Object.assign(new Error(message), { code, details })

// The messages of a deployment file's agents are not thrown: each becomes one problem of the load.
const messages = [
  BootErrors.noPromptService(),
  BootErrors.noAgentsService(),
  BootErrors.agentNotCreated('main', new Error('no')),
  BootErrors.agentsNotList(),
  BootErrors.invalidAgentRow(1, ['model'], new Error('$.model missing required value')),
  BootErrors.unknownAgentKey(0, 'modle'),
  BootErrors.duplicateAgentId(2, 'a', 0),
  BootErrors.parentNotBefore(2, 'a', 'c'),
  BootErrors.emptyAgentValue(0, 'cwd'),
  BootErrors.ownParent(3, 'c'),
  BootErrors.startWithoutParent(0, 'main', 'fresh'),
  BootErrors.startParentOnRow(1, 'copy', 'main'),
]

describe('dsh-boot: the messages of a deployment file\'s agents carry a stable code and the fields they are about', () => {
  it('each is a { code, message, details } object, the words unchanged', () => {
    expect(messages.map(({ code, details }) => ({ code, details }))).to.deep.equal([
      { code: 'AGENT_NO_PROMPT_SERVICE', details: {} },
      { code: 'AGENT_NO_AGENTS_SERVICE', details: {} },
      { code: 'AGENT_NOT_CREATED', details: { agent: 'main', reason: 'no' } },
      { code: 'AGENT_ROWS_NOT_LIST', details: {} },
      { code: 'AGENT_INVALID_ROW', details: { index: 1, path: ['model'], issue: 'missing required value' } },
      { code: 'AGENT_UNKNOWN_ROW_KEY', details: { index: 0, key: 'modle', allowed: BootErrors.AGENT_KEYS } },
      { code: 'AGENT_DUPLICATE_ROW_ID', details: { index: 2, id: 'a', first: 0 } },
      { code: 'AGENT_PARENT_NOT_BEFORE', details: { index: 2, id: 'a', parent: 'c' } },
      { code: 'AGENT_EMPTY_ROW_VALUE', details: { index: 0, key: 'cwd' } },
      { code: 'AGENT_OWN_PARENT', details: { index: 3, id: 'c' } },
      { code: 'AGENT_START_WITHOUT_PARENT', details: { index: 0, id: 'main', start: 'fresh' } },
      { code: 'AGENT_START_PARENT_ON_ROW', details: { index: 1, id: 'copy', parent: 'main' } },
    ])
    expect(messages.map((m) => m.message)).to.deep.equal([
      'no plugin provides the systemPrompt service: add a row "- name: dsh-system-prompt" under plugins:',
      'agents are declared but no plugin provides the agents service: add a row "- name: dsh-agent" under plugins:',
      'agent "main" could not be created: no',
      'expected a list of agents like "- { id: main, model: deepseek-chat }"',
      '$[1].model missing required value',
      '$[0].modle is not a key of an agent (allowed: id, model, provider, cwd, preset, parent, start, promptChange, profile, toolChange, wire)',
      '$[2].id "a" is already the id of agents[0] (agent ids are unique in the file)',
      '$[2].parent "c" is not an agent listed before "a" (list parents before their children)',
      '$[0].cwd is empty, so {{cwd}} would render as nothing (set a value or leave cwd out; a ${VAR} that is set but empty gives "", ${VAR:-default} falls back to the default)',
      '$[3].parent names the agent itself ("c")',
      '$[0].start "fresh" needs a parent: set parent to the id of an agent listed before "main", or leave start out',
      '$[1].start "parent" cannot start "copy" from "main"\'s latest request: the agents of agents: are created when the deployment loads, before "main" has sent one (use start "live" or "fresh" here, or create the sub-agent with agents.create({ parent, start: "parent" }) once its parent has sent a request)',
    ])
  })

  it('a message that reports another error keeps that error\'s code (and its own when it has none)', () => {
    const cause = { code: 'PROMPT_TOOL_ORDER_UNREGISTERED', message: 'toolOrder lists unregistered tool "x"; known tools: (none)', details: { missing: ['x'], known: [] } }
    expect(BootErrors.inAssemblies(cause, ['agent "main"'])).to.deep.equal({
      code: 'PROMPT_TOOL_ORDER_UNREGISTERED', message: `${cause.message} (in the assembly for agent "main")`, details: { missing: ['x'], known: [], where: ['agent "main"'] },
    })
    expect(BootErrors.agentNotCreated('main', coded('AGENT_UNKNOWN_PRESET')).code).to.equal('AGENT_UNKNOWN_PRESET')
  })
})

describe('dsh-boot: the boot decides by codes and details, never the words', () => {
  it('an agent refusal points at preset or promptChange by its AGENT_ code, else at the id', () => {
    expect([coded('AGENT_UNKNOWN_PRESET'), coded('AGENT_INVALID_PROMPT_CHANGE'), coded('AGENT_INVALID_MODEL')].map(agentKeyOf)).to.deep.equal(['preset', 'promptChange', 'id'])
    expect(agentKeyOf(new Error('unknown preset "auditor"; known presets: (none)'))).to.equal('id')
    expect(agentKeyOf(new TypeError('promptChange must be "append" or "replace", received "merge"'))).to.equal('id')
    expect(agentKeyOf(coded('constructor'))).to.equal('id')
    // A profile refusal points at the figure its details name.
    expect(agentKeyOf(coded('AGENT_INVALID_PROFILE', { id: 'main', key: 'inputCap', reason: 'r' }))).to.equal('profile.inputCap')
  })

  it('the load reports an assembly error by its PROMPT_ code, not by how its message starts', () => {
    const missing = coded('PROMPT_TOOL_ORDER_UNREGISTERED', { missing: ['x'], known: [] })
    expect(loadTimeAssemblyError(missing)).to.deep.equal({ code: 'PROMPT_TOOL_ORDER_UNREGISTERED', message: missing.message, details: { missing: ['x'], known: [] } })
    expect(loadTimeAssemblyError(coded('PROMPT_RESERVED_TOOL_NAME', { owner: 'p' }))?.code).to.equal('PROMPT_RESERVED_TOOL_NAME')
    expect(loadTimeAssemblyError(coded('PROMPT_PROVIDER_FAILED', {}, 'toolOrder lists unregistered tool "x"; known tools: (none)'))).to.equal(undefined)
    expect(loadTimeAssemblyError(new Error('tool provider returned reserved tool name "<unlisted-tools>"'))).to.equal(undefined)
  })
})

describe('dsh-boot: the catalogue', () => {
  it('covers every factory, each with a code of its own', () => {
    expect(messages.length + ['inAssemblies', 'noAgentsServiceError'].length).to.equal(Object.values(BootErrors).filter((value) => typeof value === 'function').length)
    expect(new Set(messages.map((m) => m.code)).size).to.equal(messages.length)
  })
})
