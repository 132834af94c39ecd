import { expect } from 'chai'
import { AgentErrors } from 'dsh-agent'
import { agentKeyOf, loadTimeAssemblyError } from '../src/after-load.js'

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
    AgentErrors.unknownCacheRules('main', 'cohere', ['openai', 'anthropic', 'deepseek', 'gemini']),
    AgentErrors.stepTimedOut('main', 50, []),
    AgentErrors.invalidStepTimeout('main', -1),
    AgentErrors.invalidProfile('main', 'outputReserve', 'the output reserve 200000 leaves nothing of the window 128000'),
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
      { name: 'TypeError', code: 'AGENT_UNKNOWN_CACHE_RULES', details: { id: 'main', rules: 'cohere', known: ['openai', 'anthropic', 'deepseek', 'gemini'] }, message: 'agent "main" step(): unknown cacheRules "cohere"; known: openai, anthropic, deepseek, gemini' },
      { name: 'Error', code: 'AGENT_STEP_TIMEOUT', details: { id: 'main', ms: 50, listeners: [] }, message: 'agent "main" step(): the assembly did not finish within 50 ms; no assemble listener runs, so a tool or text provider is holding it (raise the bound with the step\'s timeout option or the agents service\'s stepTimeout)' },
      { name: 'TypeError', code: 'AGENT_INVALID_STEP_TIMEOUT', details: { id: 'main', received: -1 }, message: 'agent "main" step(): timeout must be a number of milliseconds, 0 or more (0: no bound), received -1' },
      { name: 'TypeError', code: 'AGENT_INVALID_PROFILE', details: { id: 'main', key: 'outputReserve', reason: 'the output reserve 200000 leaves nothing of the window 128000' }, message: 'agent "main": profile.outputReserve: the output reserve 200000 leaves nothing of the window 128000' },
    ])
  })

  it('covers every factory of the catalogue, each with a code of its own', () => {
    expect(made.length + messages.length + ledger.length + ['inAssemblies'].length).to.equal(Object.values(AgentErrors).filter((value) => typeof value === 'function').length)
    expect(new Set([...made, ...messages, ...ledger].map((e) => e.code)).size).to.equal(made.length + messages.length + ledger.length)
  })
})

/** An error with `code` and `details` and a message that says something else entirely. */
const coded = (code: string, details: object = {}, message = 'words that say nothing about it') => Object.assign(new Error(message), { code, details })

// The messages of a deployment file's agents are not thrown: each becomes one problem of the load.
const messages = [
  AgentErrors.noPromptService(),
  AgentErrors.noAgentsService(),
  AgentErrors.agentNotCreated('main', new Error('no')),
  AgentErrors.agentsNotList(),
  AgentErrors.invalidAgentRow(1, ['model'], new Error('$.model missing required value')),
  AgentErrors.unknownAgentKey(0, 'modle'),
  AgentErrors.duplicateAgentId(2, 'a', 0),
  AgentErrors.parentNotBefore(2, 'a', 'c'),
  AgentErrors.emptyAgentValue(0, 'cwd'),
  AgentErrors.ownParent(3, 'c'),
]

describe('dsh-agent: the messages of a deployment file\'s agents carry a stable code and the fields they are about', () => {
  it('each is a { code, message, details } object, the words unchanged', () => {
    expect(messages.map(({ code, details }) => ({ code, details }))).to.deep.equal([
      { code: 'AGENT_NO_PROMPT_SERVICE', details: {} },
      { code: 'AGENT_NO_AGENTS_SERVICE', details: {} },
      { code: 'AGENT_NOT_CREATED', details: { agent: 'main', reason: 'no' } },
      { code: 'AGENT_ROWS_NOT_LIST', details: {} },
      { code: 'AGENT_INVALID_ROW', details: { index: 1, path: ['model'], issue: 'missing required value' } },
      { code: 'AGENT_UNKNOWN_ROW_KEY', details: { index: 0, key: 'modle', allowed: AgentErrors.AGENT_KEYS } },
      { code: 'AGENT_DUPLICATE_ROW_ID', details: { index: 2, id: 'a', first: 0 } },
      { code: 'AGENT_PARENT_NOT_BEFORE', details: { index: 2, id: 'a', parent: 'c' } },
      { code: 'AGENT_EMPTY_ROW_VALUE', details: { index: 0, key: 'cwd' } },
      { code: 'AGENT_OWN_PARENT', details: { index: 3, id: 'c' } },
    ])
    expect(messages.map((m) => m.message)).to.deep.equal([
      'no plugin provides the systemPrompt service: add a row "- name: dsh-system-prompt" under plugins:',
      'agents are declared but no plugin provides the agents service: add a row "- name: dsh-agent" under plugins:',
      'agent "main" could not be created: no',
      'expected a list of agents like "- { id: main, model: deepseek-chat }"',
      '$[1].model missing required value',
      '$[0].modle is not a key of an agent (allowed: id, model, provider, cwd, preset, parent, promptChange, profile)',
      '$[2].id "a" is already the id of agents[0] (agent ids are unique in the file)',
      '$[2].parent "c" is not an agent listed before "a" (list parents before their children)',
      '$[0].cwd is empty, so {{cwd}} would render as nothing (set a value or leave cwd out; a ${VAR} that is set but empty gives "", ${VAR:-default} falls back to the default)',
      '$[3].parent names the agent itself ("c")',
    ])
  })

  it('a message that reports another error keeps that error\'s code (and its own when it has none)', () => {
    const cause = { code: 'PROMPT_TOOL_ORDER_UNREGISTERED', message: 'toolOrder lists unregistered tool "x"; known tools: (none)', details: { missing: ['x'], known: [] } }
    expect(AgentErrors.inAssemblies(cause, ['agent "main"'])).to.deep.equal({
      code: 'PROMPT_TOOL_ORDER_UNREGISTERED', message: `${cause.message} (in the assembly for agent "main")`, details: { missing: ['x'], known: [], where: ['agent "main"'] },
    })
    expect(AgentErrors.agentNotCreated('main', coded('AGENT_UNKNOWN_PRESET')).code).to.equal('AGENT_UNKNOWN_PRESET')
  })
})

describe('dsh-agent: the boot decides by codes and details, never the words', () => {
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

// The ledger's refusals (readLedger, agents.restore(), FileLedgerStore, LedgerWriter): each names its line.
const ledger = [
  AgentErrors.ledgerBadHeader('the ledger is empty'),
  AgentErrors.ledgerNotJson(4, 'Unexpected end of JSON input'),
  AgentErrors.ledgerCutShort(9),
  AgentErrors.ledgerHashMismatch(3),
  AgentErrors.ledgerBadLine(5, 'a user entry has no key "usage"'),
  AgentErrors.ledgerInvalidEntry(6, AgentErrors.invalidRecord('a', 'tool content must be a string')),
  AgentErrors.ledgerMissingLines(8, 'ab'.repeat(32)),
  AgentErrors.ledgerLineBreak(1),
  AgentErrors.ledgerInvalidStored('a', -1, 3),
]

describe('dsh-agent: the ledger\'s refusals carry a stable code and the line they are about', () => {
  it('each is an error with its code and details', () => {
    expect(ledger.map((e) => ({ name: e.name, code: e.code, details: e.details }))).to.deep.equal([
      { name: 'Error', code: 'AGENT_LEDGER_BAD_HEADER', details: { line: 1, problem: 'the ledger is empty' } },
      { name: 'Error', code: 'AGENT_LEDGER_NOT_JSON', details: { line: 4, problem: 'Unexpected end of JSON input' } },
      { name: 'Error', code: 'AGENT_LEDGER_CUT_SHORT', details: { line: 9 } },
      { name: 'Error', code: 'AGENT_LEDGER_HASH_MISMATCH', details: { line: 3 } },
      { name: 'Error', code: 'AGENT_LEDGER_BAD_LINE', details: { line: 5, problem: 'a user entry has no key "usage"' } },
      { name: 'TypeError', code: 'AGENT_LEDGER_INVALID_ENTRY', details: { line: 6, problem: 'tool content must be a string' } },
      { name: 'Error', code: 'AGENT_LEDGER_MISSING_LINES', details: { line: 8, head: 'ab'.repeat(32) } },
      { name: 'TypeError', code: 'AGENT_LEDGER_LINE_BREAK', details: { index: 1 } },
      { name: 'TypeError', code: 'AGENT_LEDGER_INVALID_STORED', details: { id: 'a', stored: -1, most: 3 } },
    ])
    expect(ledger.slice(0, 7).map((e) => e.message.slice(0, e.message.indexOf(':')))).to.deep.equal([1, 4, 9, 3, 5, 6, 8].map((n) => `ledger line ${n}`))
  })
})
