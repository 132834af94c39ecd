import { expect } from 'chai'
import { CliError, scriptProblemLine, type ScriptProblem } from '../src/errors.js'
import { installReplayClock, withReplayClock } from '../src/replay-clock.js'
import { parseReplayScript, readReplayScript } from '../src/replay-script.js'
import { fixture, scriptProblems } from './helpers.js'

const problemsOf = scriptProblems

describe('dsh-prompt replay: the script', () => {
  it('reads every kind of turn, with ids call_<turn>_<n> for tool calls and a request after each user turn and each batch of results', () => {
    const script = parseReplayScript([
      'turns:',
      '  - user: hello',
      '  - assistant: let me look',
      '    tool_calls:',
      '      - { name: read, arguments: { path: a.txt } }',
      '      - name: bash',
      '        arguments: \'{"command":"ls"}\'',
      '  - tool: { name: read, result: contents }',
      '  - tool: { name: bash, result: { files: [a] } }',
      '  - assistant: done',
      '  - change: { row: dsh-system-prompt, config: { persona: x } }',
      '  - row: { add: { name: dsh-plugin-shell, id: shell2 } }',
      '  - row: { remove: dsh-plugin-date }',
      '  - clock: +1d',
      '  - clock: +90m',
      '  - user: bye',
      '  - assistant:',
      '    tool_calls: [{ name: read }]',
      '  - tool: { name: read, result: again }',
    ].join('\n'), 's.yml')
    expect(script.turns.map(({ index, line, ...turn }) => [index, line, turn])).to.deep.equal([
      [0, 2, { column: 5, kind: 'user', text: 'hello', request: true }],
      [1, 3, { column: 5, kind: 'assistant', text: 'let me look', toolCalls: [
        { id: 'call_1_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } },
        { id: 'call_1_2', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
      ] }],
      [2, 8, { column: 5, kind: 'tool', name: 'read', callId: 'call_1_1', result: 'contents', request: false }],
      [3, 9, { column: 5, kind: 'tool', name: 'bash', callId: 'call_1_2', result: '{"files":["a"]}', request: true }],
      [4, 10, { column: 5, kind: 'assistant', text: 'done', toolCalls: [] }],
      [5, 11, { column: 5, kind: 'change', row: 'dsh-system-prompt', config: { persona: 'x' } }],
      [6, 12, { column: 5, kind: 'add-row', row: { name: 'dsh-plugin-shell', id: 'shell2' } }],
      [7, 13, { column: 5, kind: 'remove-row', row: 'dsh-plugin-date' }],
      [8, 14, { column: 5, kind: 'clock', ms: 86_400_000, text: '+1d' }],
      [9, 15, { column: 5, kind: 'clock', ms: 5_400_000, text: '+90m' }],
      [10, 16, { column: 5, kind: 'user', text: 'bye', request: true }],
      [11, 17, { column: 5, kind: 'assistant', text: null, toolCalls: [{ id: 'call_3_1', type: 'function', function: { name: 'read', arguments: '{}' } }] }],
      [12, 19, { column: 5, kind: 'tool', name: 'read', callId: 'call_3_1', result: 'again', request: true }],
    ])
  })

  it('names the file, the line and the turn of every malformed turn, all at once', () => {
    expect(problemsOf([
      'turns:',
      '  - user: 3',
      '  - assistant:',
      '  - tool: { name: nope, result: x }',
      '  - clock: 1d',
      '  - { user: a, clock: +1h }',
      '  - change: { row: 5 }',
      '  - row: { add: 1 }',
      '  - assistant: x',
      '    tool_calls: [{ name: a, arguments: \'[1]\' }]',
      '  - 7',
      '  - user: a',
      '    extra: 1',
      '  - row: { add: { name: x }, remove: y }',
      '  - change: { row: r, config: [1] }',
      '  - assistant: x',
      '    tool_calls: [{ name: a, arguments: \'{nope\' }]',
      '  - tool: { name: a }',
      'extra: 2',
    ].join('\n')).map((line) => line.replace(/not JSON \(.*\)$/, 'not JSON (<the parser\'s words>)'))).to.deep.equal([
      's.yml:2:11: turns[0] (user): "user" must be a text, found a number (3)',
      's.yml:3:5: turns[1] (assistant): an assistant reply needs text ("assistant: <text>") or tool_calls',
      's.yml:4:19: turns[2] (tool): the result of tool "nope" answers no call: no earlier assistant reply called it (called so far: (none))',
      's.yml:5:12: turns[3] (clock): clock must be +<n>d, +<n>h or +<n>m (the clock moves on by a whole number of days, hours or minutes), found a text "1d"',
      's.yml:6:5: turns[4]: a turn is a mapping with exactly one of the keys user, assistant, tool, change, row, clock, fork, subagent, tools, compact; found the keys user, clock',
      's.yml:7:20: turns[5] (change): "change.row" must be a row id, found a number (5)',
      's.yml:8:17: turns[6] (row): "row.add" must be a plugin row (a mapping like { name: dsh-plugin-shell, config: {...} }), found a number (1)',
      's.yml:10:40: turns[7] (assistant): "arguments" must be an object or the JSON text of one: the JSON text holds a list, not an object',
      's.yml:11:5: turns[8]: a turn is a mapping with exactly one of the keys user, assistant, tool, change, row, clock, fork, subagent, tools, compact; found a number (7)',
      's.yml:13:5: turns[9] (user): unknown key "extra" (allowed: user)',
      's.yml:14:10: turns[10] (row): "row" must be a mapping with one of add: {...plugin row...} or remove: <row id>, found both add and remove',
      's.yml:15:31: turns[11] (change): "change.config" must be a mapping (the row\'s whole new config), found a list',
      's.yml:17:40: turns[12] (assistant): "arguments" must be an object or the JSON text of one: the text is not JSON (<the parser\'s words>)',
      's.yml:18:11: turns[13] (tool): "tool.result" must be the tool\'s result (a text, or data written as JSON), found nothing',
      's.yml:19:1: unknown key "extra" (allowed: turns)',
    ])
  })

  it('refuses a script that is not a mapping with a turns: list, and a YAML syntax error, with the line', () => {
    expect(problemsOf('- user: hi')).to.deep.equal(['s.yml:1:1: a replay script is a mapping with a "turns:" list, found a list'])
    expect(problemsOf('steps: []')).to.deep.equal(['s.yml:1:1: a replay script is a mapping with a "turns:" list, found no "turns:" key'])
    expect(problemsOf('turns: [\n')).to.have.length(1)
    expect(problemsOf('turns: [\n')[0]).to.match(/^s\.yml:2:1: YAML syntax error: /)
  })

  it('reads the script file, and says so when there is none', async () => {
    const script = await readReplayScript(fixture('replay-broken.yml').replace('.yml', '-none.yml'), 'none.yml').catch((error: CliError) => error)
    expect(CliError.is(script) && (script.details as { problems: ScriptProblem[] }).problems.map(scriptProblemLine)).to.deep.equal(['none.yml: cannot read the replay script: no such file'])
  })

  it('the shipped worked example is a valid script of 44 requests', async () => {
    const script = await readReplayScript('examples/coding-agent/replay.yml')
    const requests = script.turns.filter((turn) => (turn.kind === 'user' || turn.kind === 'tool') && turn.request).length
    expect(requests).to.equal(44)
    expect(script.turns.filter((turn) => turn.kind === 'change').map((turn) => turn.kind === 'change' && turn.row)).to.deep.equal(['dsh-plugin-filesystem', 'dsh-system-prompt', 'dsh-plugin-filesystem'])
    expect(script.turns.filter((turn) => turn.kind === 'clock').map((turn) => turn.kind === 'clock' && turn.text)).to.deep.equal(['+1d'])
  })
})

describe('dsh-prompt replay: the clock', () => {
  // The clock under the replay clock is a fake one the test moves, so every value is exact (no elapsed time is asserted).
  let system: () => number
  let underlying = 0
  beforeEach(() => {
    system = Date.now
    underlying = 1_000_000
    Date.now = () => underlying
  })
  afterEach(() => { Date.now = system })

  it('Date.now() reads the replay clock while it is installed: it starts where asked, runs on with the clock below it and jumps forward', () => {
    const below = Date.now
    const clock = installReplayClock(Date.UTC(2026, 11, 1, 12))
    try {
      expect(Date.now()).to.equal(Date.UTC(2026, 11, 1, 12))
      underlying += 250
      expect(Date.now()).to.equal(Date.UTC(2026, 11, 1, 12) + 250)
      clock.advance(86_400_000)
      expect(new Date(Date.now()).toISOString()).to.equal('2026-12-02T12:00:00.250Z')
    } finally {
      clock.restore()
    }
    expect([Date.now, Date.now()]).to.deep.equal([below, underlying])
  })

  it('is restored when the replay fails, and refuses a second clock while one is installed', async () => {
    const before = Date.now
    const failure = await withReplayClock(0, async () => {
      expect(Date.now()).to.equal(0)
      expect(() => installReplayClock()).to.throw(CliError, 'a replay clock is already installed in this process: replays run one at a time')
      throw new Error('the replay failed')
    }).catch((error: Error) => error.message)
    expect(failure).to.equal('the replay failed')
    expect(Date.now).to.equal(before)
  })
})
