import { expect } from 'chai'
import type { Problem } from 'dsh-loader'
import { bootDeployment } from 'dsh-boot'
import { assemblyFinding } from '../src/checks.js'
import * as CliErrors from '../src/errors.js'
import { yamlCascade } from '../src/report.js'
import { renderFailure } from '../src/view.js'
import { cli, fixture } from './helpers.js'

/** An error with `code` and `details` and a message that says something else entirely. */
const coded = (code: string, details: object = {}, message = 'words that say nothing about it') => Object.assign(new Error(message), { code, details })

describe('dsh-prompt: every error and message carries a stable code and the fields it is about', () => {
  const errors = [
    CliErrors.unknownAgent('nope', 'd.yml', ['main']),
    CliErrors.requestNeedsAgent('d.yml'),
    CliErrors.diffArguments(1, 1),
    CliErrors.invalidGap('x'),
    CliErrors.renderFailed('agent "main"', coded('PROMPT_X'), 'cwd'),
    CliErrors.unknownFormat('cohere', ['openai-chat', 'gemini']),
    CliErrors.formatNeedsRequest(),
    CliErrors.assemblyTimeout('agent "main"', 'd.yml', 200, ['slow'], 'slow-plugin'),
    CliErrors.pluginExit(0, 'plugins[1] (id "quitter"), line 4'),
    CliErrors.uncaughtException(new TypeError('boom'), undefined),
    CliErrors.unhandledRejection(coded('X_CODE', {}, 'no'), 'plugins[2] (id "r")'),
    CliErrors.formatNeedsAgent('d.yml'),
    CliErrors.htmlNotWritten('out/x.html', coded('ENOENT', {}, 'no such folder')),
    CliErrors.scriptInvalid('s.yml', [{ file: 's.yml', line: 3, column: 5, item: 'turns[0] (user)', ...CliErrors.scriptEmptyReply() }]),
    CliErrors.replayNeedsAgent('d.yml'),
    CliErrors.replayTurnFailed('s.yml:9', 'turns[4] (change)', coded('LOADER_DEPLOYMENT_FAILED')),
    CliErrors.replayAgentGone('s.yml:9', 'turns[4] (change)', 'main'),
    CliErrors.clockBusy(),
    CliErrors.ledgerUnwritable('out/l.jsonl', coded('ENOENT')),
    CliErrors.oneAgentOnly('render', 'a', 'b'),
    CliErrors.invalidFileSize('big'),
    CliErrors.invalidLimit('--max-yaml-tokens', '1e3'),
    CliErrors.invalidTimeout('soon'),
  ]
  const messages = [
    CliErrors.assemblyFailed(new Error('odd')),
    CliErrors.valuelessAt('cwd', 1, 5),
    CliErrors.unstableText('section', 'clock', 'clock.mjs', 12),
    CliErrors.toolNotSendable('lookup', 'probe, global', new Error('no JSON')),
    CliErrors.placementsTooClose({ name: 'a', order: 100 }, { name: 'b', order: 105 }),
    CliErrors.unresolvedRestriction('rev', ['web']),
    CliErrors.unresolvedAllow('rev', ['web'], true),
    CliErrors.volatileBeforeStable({ name: 'today', volatility: 'daily', origin: 'notes.mjs, global' }, { name: 'rules', volatility: 'static' }, 44),
    CliErrors.scriptUnreadable('no such file'),
    CliErrors.scriptYaml('Unexpected end'),
    CliErrors.scriptShape('a list'),
    CliErrors.scriptUnknownKey('tool_call', ['assistant', 'tool_calls']),
    CliErrors.scriptItemKind('the keys user, clock'),
    CliErrors.scriptWrongType('user', 'a text', 'a number (3)'),
    CliErrors.scriptBadClock('a text "1d"'),
    CliErrors.scriptEmptyReply(),
    CliErrors.scriptBadArguments('found a list'),
    CliErrors.scriptNoCall('read', ['bash']),
    CliErrors.scriptCallAnswered('read'),
    CliErrors.scriptUnanswered(['read (call_1_1)']),
    CliErrors.headOverBudget('main', { profile: 'default', origin: 'default', budget: 28_672, headTokens: 9_000, share: 0.3139, limit: 0.25, exact: false }),
  ]

  it('each usage and render error is a CliError with its code, details, kind and exit code', () => {
    expect(errors.map((e) => ({ name: e.name, code: e.code, details: e.details, kind: e.kind, exit: e.exitCode }))).to.deep.equal([
      { name: 'CliError', code: 'CLI_UNKNOWN_AGENT', details: { agent: 'nope', file: 'd.yml', declared: ['main'] }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_REQUEST_NEEDS_AGENT', details: { file: 'd.yml' }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_DIFF_ARGUMENTS', details: { files: 1, agents: 1 }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_INVALID_GAP', details: { received: 'x' }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_RENDER_FAILED', details: { target: 'agent "main"', cause: 'PROMPT_X' }, kind: 'render', exit: 1 },
      { name: 'CliError', code: 'CLI_UNKNOWN_FORMAT', details: { format: 'cohere', known: ['openai-chat', 'gemini'] }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_FORMAT_NEEDS_REQUEST', details: {}, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_ASSEMBLY_TIMEOUT', details: { target: 'agent "main"', file: 'd.yml', wait: 'assembly', ms: 200, listeners: ['slow'], owner: 'slow-plugin' }, kind: 'render', exit: 1 },
      { name: 'CliError', code: 'CLI_PLUGIN_EXIT', details: { exitCode: 0, row: 'plugins[1] (id "quitter"), line 4' }, kind: 'deployment', exit: 1 },
      { name: 'CliError', code: 'CLI_UNCAUGHT_EXCEPTION', details: { row: null, cause: null }, kind: 'deployment', exit: 1 },
      { name: 'CliError', code: 'CLI_UNHANDLED_REJECTION', details: { row: 'plugins[2] (id "r")', cause: 'X_CODE' }, kind: 'deployment', exit: 1 },
      { name: 'CliError', code: 'CLI_FORMAT_NEEDS_AGENT', details: { file: 'd.yml' }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_HTML_NOT_WRITTEN', details: { file: 'out/x.html', reason: 'ENOENT' }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_REPLAY_SCRIPT_INVALID', details: { file: 's.yml', problems: [{ file: 's.yml', line: 3, column: 5, item: 'turns[0] (user)', ...CliErrors.scriptEmptyReply() }] }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_REPLAY_NEEDS_AGENT', details: { file: 'd.yml' }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_REPLAY_TURN_FAILED', details: { place: 's.yml:9', item: 'turns[4] (change)', cause: 'LOADER_DEPLOYMENT_FAILED', problems: undefined }, kind: 'deployment', exit: 1 },
      { name: 'CliError', code: 'CLI_REPLAY_AGENT_GONE', details: { place: 's.yml:9', item: 'turns[4] (change)', agent: 'main' }, kind: 'deployment', exit: 1 },
      { name: 'CliError', code: 'CLI_REPLAY_CLOCK_BUSY', details: {}, kind: 'internal', exit: 1 },
      { name: 'CliError', code: 'CLI_REPLAY_LEDGER_UNWRITABLE', details: { file: 'out/l.jsonl', cause: 'ENOENT' }, kind: 'ledger', exit: 1 },
      { name: 'CliError', code: 'CLI_ONE_AGENT_ONLY', details: { command: 'render', first: 'a', second: 'b' }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_INVALID_FILE_SIZE', details: { received: 'big' }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_INVALID_LIMIT', details: { flag: '--max-yaml-tokens', received: '1e3' }, kind: 'usage', exit: 2 },
      { name: 'CliError', code: 'CLI_INVALID_TIMEOUT', details: { received: 'soon' }, kind: 'usage', exit: 2 },
    ])
    expect(errors.map((e) => e.message)).to.deep.equal([
      'agent "nope" is not declared in d.yml; declared agents: main',
      '--request needs an agent: d.yml declares none, and a request needs an agent\'s model (add an agents: section)',
      'diff compares two deployment files, or one deployment file with two --agent options (got 1 file and 1 --agent option)',
      '--render-gap must be a whole number of milliseconds from 0 to 10000, received "x"',
      'cannot render agent "main": words that say nothing about it; set cwd: on the agent in agents: (run "dsh-prompt check" to list every problem)',
      '--format must be one of openai-chat, gemini, received "cohere"',
      '--format chooses the shape of the request body: use it together with --request',
      'the assembly for agent "main" (d.yml) did not finish within 200 ms: the system-prompt/assemble listener of "slow" has not returned (raise the limit with --timeout <ms>)',
      'process.exit(0) was called by plugins[1] (id "quitter"), line 4 while the command ran; a plugin may not end dsh-prompt, so the command fails',
      'an exception nobody caught was thrown while the command ran: TypeError: boom',
      'a promise was rejected by plugins[2] (id "r") and nobody handled it while the command ran: no',
      '--format orders an agent\'s request as its provider hashes it: d.yml declares no agent, so there is no request (add an agents: section)',
      'cannot write the page to out/x.html: no such folder',
      'the replay script s.yml has a problem: nothing was played',
      'replay needs an agent: d.yml declares none (add an agents: section)',
      's.yml:9: turns[4] (change): words that say nothing about it',
      's.yml:9: turns[4] (change): the change disposed agent "main" (it restarted a service the agent lives in, so its conversation ended): change a row whose plugin applies the change in place, or one no agent depends on',
      'a replay clock is already installed in this process: replays run one at a time',
      'cannot write the ledger out/l.jsonl: no such folder',
      'render shows one agent, but --agent was given twice (a, b); to compare two agents, run "dsh-prompt diff <deployment> --agent a --agent b"',
      '--max-file-size must be a whole number of bytes (at least 1), received "big"',
      '--max-yaml-tokens must be a whole number (at least 1), received "1e3"',
      '--timeout must be a whole number of milliseconds from 1 to 2147483647, received "soon"',
    ])
    const intercepted = CliErrors.exitIntercepted(3)
    expect([intercepted.code, intercepted.details, intercepted.message]).to.deep.equal(['CLI_EXIT_INTERCEPTED', { exitCode: 3 }, 'process.exit(3) was called; dsh-prompt does not let a plugin end the process'])
  })

  it('each message that is not thrown is a { code, message, details } object, the words unchanged', () => {
    expect(messages.map(({ code, details }) => ({ code, details }))).to.deep.equal([
      { code: 'CLI_ASSEMBLY_FAILED', details: {} },
      { code: 'CLI_VALUELESS_AT', details: { variable: 'cwd', line: 1, column: 5 } },
      { code: 'CLI_UNSTABLE_TEXT', details: { kind: 'section', name: 'clock', origin: 'clock.mjs', byte: 12 } },
      { code: 'CLI_TOOL_NOT_SENDABLE', details: { tool: 'lookup', origin: 'probe, global' } },
      { code: 'CLI_PLACEMENTS_TOO_CLOSE', details: { first: { name: 'a', order: 100 }, second: { name: 'b', order: 105 } } },
      { code: 'CLI_UNRESOLVED_RESTRICTION', details: { preset: 'rev', names: ['web'] } },
      { code: 'CLI_UNRESOLVED_ALLOW', details: { preset: 'rev', names: ['web'], none: true } },
      { code: 'CLI_VOLATILE_BEFORE_STABLE', details: { section: 'today', volatility: 'daily', before: 'rules', beforeVolatility: 'static', bytes: 44 } },
      { code: 'CLI_REPLAY_UNREADABLE', details: { reason: 'no such file' } },
      { code: 'CLI_REPLAY_YAML', details: { reason: 'Unexpected end' } },
      { code: 'CLI_REPLAY_SHAPE', details: { found: 'a list' } },
      { code: 'CLI_REPLAY_UNKNOWN_KEY', details: { key: 'tool_call', allowed: ['assistant', 'tool_calls'] } },
      { code: 'CLI_REPLAY_ITEM_KIND', details: { found: 'the keys user, clock', kinds: ['user', 'assistant', 'tool', 'change', 'row', 'clock', 'fork', 'subagent', 'tools', 'compact'] } },
      { code: 'CLI_REPLAY_WRONG_TYPE', details: { key: 'user', expected: 'a text', found: 'a number (3)' } },
      { code: 'CLI_REPLAY_BAD_CLOCK', details: { found: 'a text "1d"' } },
      { code: 'CLI_REPLAY_EMPTY_REPLY', details: {} },
      { code: 'CLI_REPLAY_BAD_ARGUMENTS', details: { reason: 'found a list' } },
      { code: 'CLI_REPLAY_NO_CALL', details: { name: 'read', called: ['bash'] } },
      { code: 'CLI_REPLAY_CALL_ANSWERED', details: { name: 'read' } },
      { code: 'CLI_REPLAY_UNANSWERED_CALL', details: { calls: ['read (call_1_1)'] } },
      { code: 'CLI_HEAD_OVER_BUDGET', details: { agent: 'main', profile: 'default', origin: 'default', headTokens: 9_000, budget: 28_672, share: 0.3139, limit: 0.25 } },
    ])
    expect(messages.map((m) => m.message)).to.deep.equal([
      'odd',
      'prompt variable "{{cwd}}" has no value for this assembly at line 1, column 5; set cwd: on the agent in agents:',
      'section "clock" (clock.mjs) renders differently on two renders in a row (from byte 12): a clock or random value changes the system prompt on every request and defeats the provider\'s prefix cache',
      'tool "lookup" (probe, global) cannot be sent: serialising the request body fails: no JSON',
      'first-party sections "a" (order 100) and "b" (order 105) are closer than ten apart (keep first-party placements ten apart)',
      'preset "rev" restricts a tool that no plugin registers: "web" (such a name restricts nothing)',
      'preset "rev" allows a tool that no plugin registers: "web" (no name of its tools.allow is registered, so its agents get no tool at all)',
      'section "today" (notes.mjs, global, daily) renders before the less volatile section "rules" (static): each change of it sends the 44 bytes of system prompt after it again, uncached (give it a later order, or a band: \'last\')',
      'cannot read the replay script: no such file',
      'YAML syntax error: Unexpected end',
      'a replay script is a mapping with a "turns:" list, found a list',
      'unknown key "tool_call" (allowed: assistant, tool_calls)',
      'a turn is a mapping with exactly one of the keys user, assistant, tool, change, row, clock, fork, subagent, tools, compact; found the keys user, clock',
      '"user" must be a text, found a number (3)',
      'clock must be +<n>d, +<n>h or +<n>m (the clock moves on by a whole number of days, hours or minutes), found a text "1d"',
      'an assistant reply needs text ("assistant: <text>") or tool_calls',
      '"arguments" must be an object or the JSON text of one: found a list',
      'the result of tool "read" answers no call: no earlier assistant reply called it (called so far: "bash")',
      'every call of tool "read" in the last assistant reply has its result already (a reply that calls a tool twice gets one tool: turn per call, in order)',
      'the last assistant reply\'s call read (call_1_1) has no result before the next request: every call needs its tool: turn first (providers refuse a conversation with an unanswered call)',
      'the system prompt and tools take 31.4% of the input budget (9,000 of 28,672 tokens, estimated, profile default: the conservative default for a model the table does not know), above the 25% threshold: every request carries them and compaction cannot shrink them (trim sections or tools, or give the agent\'s row a profile with its model\'s real window)',
    ])
  })

  it('a message that reports another error keeps that error\'s code (and the CLI\'s own when it has none)', () => {
    expect(CliErrors.assemblyFailed(coded('PROMPT_LISTENER_FAILED')).code).to.equal('PROMPT_LISTENER_FAILED')
    expect(CliErrors.completeSections({ code: 'PROMPT_MULTIPLE_COMPLETE', message: 'm' }, ['"a" from x']))
      .to.deep.equal({ code: 'PROMPT_MULTIPLE_COMPLETE', message: 'm ("a" from x)', details: { origins: ['"a" from x'] } })
    expect(CliErrors.inEntry('context', 'clock', 'clock.mjs', { code: 'PROMPT_UNKNOWN_VARIABLE', message: 'm' }))
      .to.deep.equal({ code: 'PROMPT_UNKNOWN_VARIABLE', message: 'context "clock" (clock.mjs): m', details: { kind: 'context', name: 'clock', origin: 'clock.mjs' } })
  })

  it('covers every factory of the catalogue (the class, the usage helper and the text helpers make no message of their own)', () => {
    const helpers = ['CliError', 'usage', 'thrown', 'loadFailed', 'loopVariableHint', 'describeError', 'scriptProblemLine']
    const factories = Object.entries(CliErrors).filter(([name, value]) => typeof value === 'function' && !helpers.includes(name))
    // ledgerRefused and ledgerUnreadable are pinned in history.spec.ts, beside the command that throws them;
    // scriptTooManyTurns and ledgerNotRead in file-limits.spec.ts; toolRefused (which keeps the wire code) in check-request.spec.ts.
    const pinnedElsewhere = ['completeSections', 'inEntry', 'ledgerRefused', 'ledgerUnreadable', 'exitIntercepted', 'scriptTooManyTurns', 'ledgerNotRead', 'toolRefused']
    expect(factories.length).to.equal(errors.length + messages.length + pinnedElsewhere.length)
  })
})

describe('dsh-prompt: decisions read codes and details, never the words', () => {
  const yamlLike = 'YAML syntax error: Missing closing "quote'
  const problem = (code: string, message: string): Problem => ({ file: 'd.yml', code, message })

  it('a YAML cascade is a first problem coded LOADER_YAML_SYNTAX, whatever it says', () => {
    expect(yamlCascade([problem('LOADER_YAML_SYNTAX', 'something else'), problem('LOADER_WRONG_TYPE', 'x')])).to.equal(true)
    expect(yamlCascade([problem('LOADER_INVALID_CONFIG', yamlLike), problem('LOADER_WRONG_TYPE', 'x')])).to.equal(false)
  })

  it('describeError describes what was thrown, whatever it is, and never throws', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect([undefined, Symbol('odd'), Object.create(null), proxy, 'plain', new TypeError('bad\nthing')].map(CliErrors.describeError)).to.deep.equal([
      'undefined was thrown, not an Error', 'a symbol (Symbol(odd)) was thrown, not an Error', 'an object was thrown, not an Error',
      'an unreadable value (a revoked Proxy?) was thrown, not an Error', 'plain', 'TypeError: bad thing',
    ])
  })

  it('the loop-variable hint follows PROMPT_VALUELESS_VARIABLE and its details.variable', () => {
    const hint = '; set cwd: on the agent in agents:'
    expect(renderFailure('agent "main"', coded('PROMPT_VALUELESS_VARIABLE', { variable: 'cwd' })).message).to.include(hint)
    expect(renderFailure('agent "main"', coded('PROMPT_LISTENER_FAILED', {}, 'prompt variable "{{cwd}}" has no value for this assembly')).message).not.to.include(hint)
  })

  it('two complete sections are told apart by PROMPT_MULTIPLE_COMPLETE, and name where each section comes from', async () => {
    const booted = await bootDeployment(fixture('two-complete.yml'), { logLevel: 'silent' })
    try {
      const target = { agent: booted.agents[0], label: 'agent "main"' }
      const complete = assemblyFinding(booted, target, coded('PROMPT_MULTIPLE_COMPLETE', { names: [] }, 'two of them'))
      expect([complete.kind, complete.code, complete.message]).to.deep.equal([
        'complete', 'PROMPT_MULTIPLE_COMPLETE', 'two of them ("house:rules" from ./complete-sections.mjs, global; "legal:notice" from ./complete-sections.mjs, global)',
      ])
      const other = assemblyFinding(booted, target, coded('PROMPT_LISTENER_FAILED', {}, 'multiple complete prompt sections are active: "a", "b"'))
      expect([other.kind, other.code]).to.deep.equal(['assembly', 'PROMPT_LISTENER_FAILED'])
    } finally {
      await booted.dispose()
    }
  })

  it('a provider returning the reserved tool name is reported against its own row (details.owner)', async () => {
    const run = await cli(['check', fixture('reserved-tool.yml'), '--json'])
    expect(JSON.parse(run.stdout).problems).to.deep.equal([{
      file: fixture('reserved-tool.yml'), kind: 'load', code: 'PROMPT_RESERVED_TOOL_NAME', where: [],
      message: 'tool provider returned reserved tool name "<unlisted-tools>" (reserved for toolOrder\'s rest entry)',
      line: 3, column: 5, entry: 'plugins[1] (id "reserved")', id: 'reserved', key: 'plugins[1]',
    }])
  })
})
