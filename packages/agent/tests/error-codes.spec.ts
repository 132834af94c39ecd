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
    AgentErrors.unknownCacheRules('main', 'cohere', ['openai', 'anthropic', 'deepseek', 'gemini']),
    AgentErrors.stepTimedOut('main', 50, []),
    AgentErrors.invalidStepTimeout('main', -1),
    AgentErrors.invalidProfile('main', 'outputReserve', 'the output reserve 200000 leaves nothing of the window 128000'),
    AgentErrors.forkWithoutRequest('main', 'title', 'anthropic'),
    AgentErrors.invalidFork('main', 'kind must be a non-empty string, received number'),
    AgentErrors.forkToolRefused('main', 'compact', [{ id: 'call_1', name: 'read' }]),
    AgentErrors.invalidStart('child', '"parent" needs a parent agent (set parent)'),
    AgentErrors.startWithoutRequest('child', 'main'),
    AgentErrors.invalidToolChange('main', 'toolChange.removed', 'vanish'),
    AgentErrors.toolUnavailable('main', { id: 'call_2', name: 'write' }, 'lender', 'removed'),
    AgentErrors.invalidCompaction('main', 'summary must be a non-empty text (the summarizer\'s reply)'),
    AgentErrors.nothingToCompact('main', 2, 2),
    AgentErrors.compactionStale('main', 12, 13),
    AgentErrors.invalidResumePolicy('keep'),
    AgentErrors.resumeListenerFailed('main', 'audit', new Error('down')),
    AgentErrors.invalidWire('main', 'promptUpdates.claude-x', 'expected "system-message" or "marker", received "native"'),
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
      { name: 'Error', code: 'AGENT_FORK_NO_REQUEST', details: { id: 'main', kind: 'title', format: 'anthropic' }, message: 'agent "main" fork("title"): no anthropic request to fork from yet (call step() with format "anthropic" first)' },
      { name: 'TypeError', code: 'AGENT_INVALID_FORK', details: { id: 'main', problem: 'kind must be a non-empty string, received number' }, message: 'agent "main" fork(): kind must be a non-empty string, received number' },
      { name: 'Error', code: 'AGENT_FORK_TOOL_REFUSED', details: { id: 'main', kind: 'compact', calls: [{ id: 'call_1', name: 'read' }] }, message: 'agent "main" fork("compact"): its tools are inert, and the reply calls "read" (call_1) (a fork answers in text; run tools in the agent itself)' },
      { name: 'TypeError', code: 'AGENT_INVALID_START', details: { id: 'child', problem: '"parent" needs a parent agent (set parent)' }, message: 'agent "child" start: "parent" needs a parent agent (set parent)' },
      { name: 'Error', code: 'AGENT_START_NO_REQUEST', details: { id: 'child', parent: 'main' }, message: 'agent "child" start "parent": parent agent "main" has sent no request yet (step the parent first, or start the child "live" or "fresh")' },
      { name: 'TypeError', code: 'AGENT_INVALID_TOOL_CHANGE', details: { id: 'main', key: 'toolChange.removed', received: 'vanish' }, message: 'agent "main": toolChange.removed must be one of the choices of its kind (docs/sessions.md), received "vanish"' },
      { name: 'Error', code: 'AGENT_TOOL_UNAVAILABLE', details: { id: 'main', call: 'call_2', tool: 'write', owner: 'lender', reason: 'removed' }, message: 'agent "main": tool "write" (call call_2) is unavailable: it was removed (its owner lender is gone or hides it) and stays listed only until the next epoch; do not call it again' },
      { name: 'TypeError', code: 'AGENT_INVALID_COMPACTION', details: { id: 'main', problem: 'summary must be a non-empty text (the summarizer\'s reply)' }, message: 'agent "main" compaction: summary must be a non-empty text (the summarizer\'s reply)' },
      { name: 'Error', code: 'AGENT_NOTHING_TO_COMPACT', details: { id: 'main', keepTurns: 2, turns: 2 }, message: 'agent "main" compaction: keeping the last 2 turns keeps the whole epoch (2 turns): there is nothing to summarise (keep fewer turns, or step on first)' },
      { name: 'Error', code: 'AGENT_COMPACTION_STALE', details: { id: 'main', planned: 12, now: 13 }, message: 'agent "main" compaction: the plan was made for a record of 12 entries, which has changed since (now 13); plan again' },
      { name: 'TypeError', code: 'AGENT_INVALID_RESUME_POLICY', details: { received: 'keep' }, message: 'restore(): resume must be "authoritative" or "new-epoch", received "keep"' },
      { name: 'Error', code: 'AGENT_RESUME_LISTENER_FAILED', details: { id: 'main', plugin: 'audit' }, message: 'agent "main": agent/resume listener of plugin "audit" failed: down (the resume is decided and the step goes on)' },
      { name: 'TypeError', code: 'AGENT_INVALID_WIRE', details: { id: 'main', key: 'promptUpdates.claude-x', reason: 'expected "system-message" or "marker", received "native"' }, message: 'agent "main": wire.promptUpdates.claude-x: expected "system-message" or "marker", received "native"' },
    ])
  })

  it('covers every factory of the catalogue, each with a code of its own', () => {
    expect(made.length + ledger.length).to.equal(Object.values(AgentErrors).filter((value) => typeof value === 'function').length)
    expect(new Set([...made, ...ledger].map((e) => e.code)).size).to.equal(made.length + ledger.length)
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
  AgentErrors.ledgerNotCanonical(2, 'its keys are source, role'),
  AgentErrors.ledgerBlankLine(7, true),
  AgentErrors.ledgerWriterNeedsStored('a', 5),
  AgentErrors.ledgerWriterExists('a', 'the store'),
  AgentErrors.ledgerStoreMismatch('a', { lines: 0, head: '' }, { lines: 2, head: 'ab'.repeat(32) }),
  AgentErrors.stepListenerFailed('a', 'metrics', new Error('down')),
  AgentErrors.sessionStartListenerFailed('a', 'workflow-state', new Error('down')),
  AgentErrors.usageListenerFailed('a', 'exporter', new Error('down')),
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
      { name: 'Error', code: 'AGENT_LEDGER_NOT_CANONICAL', details: { line: 2, problem: 'its keys are source, role' } },
      { name: 'Error', code: 'AGENT_LEDGER_BLANK_LINE', details: { line: 7, last: true } },
      { name: 'TypeError', code: 'AGENT_LEDGER_WRITER_NEEDS_STORED', details: { id: 'a', restored: 5 } },
      { name: 'Error', code: 'AGENT_LEDGER_WRITER_EXISTS', details: { id: 'a', store: 'the store' } },
      { name: 'Error', code: 'AGENT_LEDGER_STORE_MISMATCH', details: { id: 'a', expected: { lines: 0, head: '' }, found: { lines: 2, head: 'ab'.repeat(32) } } },
      { name: 'Error', code: 'AGENT_STEP_LISTENER_FAILED', details: { id: 'a', plugin: 'metrics' } },
      { name: 'Error', code: 'AGENT_SESSION_START_LISTENER_FAILED', details: { id: 'a', plugin: 'workflow-state' } },
      { name: 'Error', code: 'AGENT_USAGE_LISTENER_FAILED', details: { id: 'a', plugin: 'exporter' } },
    ])
    expect(ledger.slice(0, 7).map((e) => e.message.slice(0, e.message.indexOf(':')))).to.deep.equal([1, 4, 9, 3, 5, 6, 8].map((n) => `ledger line ${n}`))
  })
})
