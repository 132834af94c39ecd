import { expect } from 'chai'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readLedger } from 'dsh-agent'
import { BREAK_CAUSES } from 'dsh-wire'
import { replayDeployment, type ReplayResult } from '../src/commands/replay.js'
import { parseReplayScript, readReplayScript } from '../src/replay-script.js'
import { EXAMPLE, fixture, lines, runBeforeAll, cli, type Run, QUIET } from './helpers.js'

const DEPLOYMENT = fixture('replay-deployment.yml')
const SCRIPT = fixture('replay-script.yml')
/** Noon, so a replay's own seconds never cross midnight. */
const NOON = Date.UTC(2026, 11, 1, 12)

/** `turn: cause` for every break of a replay. */
function breaksOf(result: ReplayResult): string[] {
  return result.turns.flatMap((t) => t.breaks.map((b) => `${t.turn}: ${b.cause}`))
}

/** The class a cause starts with (R-CACHE-6). */
function causeClass(cause: string): string | undefined {
  return BREAK_CAUSES.find((name) => cause.startsWith(name))
}

describe('dsh-prompt replay: playing a script against a deployment', () => {
  let append: ReplayResult
  let replace: ReplayResult
  before(async () => {
    const script = await readReplayScript(SCRIPT)
    append = await replayDeployment(DEPLOYMENT, script, { start: NOON, boot: QUIET })
    replace = await replayDeployment(DEPLOYMENT, script, { start: NOON, boot: QUIET, policy: 'replace', format: 'anthropic' })
  })

  it('reports every request, numbered from 1, with the keys of R-CLI-7 and what the script changed before it', () => {
    expect(append.format).to.equal('openai-chat')
    expect(append.turns.map((t) => t.turn)).to.deep.equal([1, 2, 3, 4, 5, 6, 7])
    expect(append.turns.map((t) => t.changes)).to.deep.equal([[], [], [], ['change dsh-system-prompt'], ['add dsh-plugin-filesystem'], ['remove dsh-plugin-filesystem'], ['clock +1d']])
    for (const t of append.turns) {
      expect(t).to.include.keys('turn', 'requestBytes', 'reusableBytes', 'reusableTokens', 'predictedCachedTokens', 'breaks')
      expect(t.reusableBytes).to.be.at.most(t.requestBytes)
      expect(t.predictedCachedTokens).to.be.at.most(t.reusableTokens)
    }
    expect(append.turns[0].reusableBytes).to.equal(0)
    expect([append.agent, append.policy, append.script]).to.deep.equal(['main', 'append', SCRIPT])
  })

  it('under append, a persona edit, a new day and a tool removed (kept declared, inert) extend the prefix; adding a tool breaks it', () => {
    expect(append.turns[1].reusableBytes).to.equal(append.turns[0].requestBytes)
    expect(append.turns[3].reusableBytes).to.equal(append.turns[2].requestBytes)
    expect(append.turns[5].reusableBytes).to.equal(append.turns[4].requestBytes)
    expect(append.turns[6].reusableBytes).to.equal(append.turns[5].requestBytes)
    expect(breaksOf(append).map((line) => line.replace(/^(\d+: [a-z ]+?):.*$/, '$1'))).to.deep.equal(['5: tool added'])
    expect(append.turns.map((t) => t.toolChanges?.map((c) => [c.tool, c.kind, c.owner, c.handling, c.breaks]))).to.deep.equal([
      undefined, undefined, undefined, undefined, [['read', 'added', 'dsh-plugin-filesystem', 'declared', true]], [['read', 'removed', 'dsh-plugin-filesystem', 'inert', false]], undefined,
    ])
    expect(append.turns[4].toolChanges![0].cost).to.equal(append.turns[3].requestTokens - append.turns[4].predictedCachedTokens)
    expect(append.turns[4].breaks[0]).to.include({ kind: 'tool', section: 'read', owner: 'dsh-plugin-filesystem', layer: 'global' })
  })

  it('under replace, the persona edit, the tool added and the new day each break the prefix, with a cause of the right class and the owner as a row id; the tool removed does not (its guidance kept)', () => {
    expect(replace.policy).to.equal('replace')
    expect(replace.format).to.equal('anthropic')
    const classes = replace.turns.flatMap((t) => t.breaks.map((b) => [t.turn, causeClass(b.cause), b.section]))
    expect(classes).to.deep.equal([
      [4, 'section text changed', 'deployment:persona'],
      [5, 'tool added', 'read'],
      [7, 'variable value changed', 'deployment:persona-suffix'],
    ])
    // The tool stays declared (inert), and its guidance section stays as sent in the one system prompt replace keeps.
    expect(replace.turns[5].toolChanges!.map((change) => [change.tool, change.handling, change.kept])).to.deep.equal([['read', 'inert', [{ section: 'tool:read', owner: 'dsh-plugin-filesystem' }]]])
    expect([4, 5, 7].map((turn) => replace.turns[turn - 1].breaks[0].owner)).to.deep.equal(['dsh-system-prompt', 'dsh-plugin-filesystem', 'dsh-system-prompt'])
    expect(replace.turns[6].breaks[0].cause).to.contain('({{date}})')
  })

  it('a turn that fails names the script line and the turn, and everything is unloaded (the clock too)', async () => {
    const before = Date.now
    const script = parseReplayScript('turns:\n  - user: hi\n  - change: { row: dsh-system-prompt, config: { persona: 3 } }\n', 's.yml')
    const error = await replayDeployment(DEPLOYMENT, script, { boot: QUIET }).catch((e: Error & { code?: string; details?: { problems?: Array<{ code: string; key?: string }> } }) => e)
    expect(error).to.include({ code: 'CLI_REPLAY_TURN_FAILED' })
    expect((error as Error).message.startsWith('s.yml:3: turns[1] (change): ')).to.equal(true)
    expect((error as Error).message).to.contain('invalid config: $.persona expected string but got 3')
    expect((error as { details: { problems: Array<{ code: string; key?: string }> } }).details.problems.map((p) => [p.code, p.key])).to.deep.equal([['LOADER_INVALID_CONFIG', 'plugins[0].config.persona']])
    expect(Date.now).to.equal(before)
  })

  it('a deployment without agents is CLI_REPLAY_NEEDS_AGENT, an unknown --agent CLI_UNKNOWN_AGENT (usage errors)', async () => {
    const script = parseReplayScript('turns:\n  - user: hi\n', 's.yml')
    const none = await replayDeployment(fixture('no-agents.yml'), script, { boot: QUIET }).catch((e: Error & { code?: string; exitCode?: number }) => e)
    expect(none).to.include({ code: 'CLI_REPLAY_NEEDS_AGENT', exitCode: 2 })
    const unknown = await replayDeployment(DEPLOYMENT, script, { boot: QUIET, agent: 'ghost' }).catch((e: Error & { code?: string }) => e)
    expect(unknown).to.include({ code: 'CLI_UNKNOWN_AGENT' })
  })

  it('a change that restarts the agents service is CLI_REPLAY_AGENT_GONE: the conversation would be lost', async () => {
    const script = parseReplayScript('turns:\n  - user: hi\n  - change: { row: dsh-agent, config: { promptChange: replace } }\n  - user: again\n', 's.yml')
    const error = await replayDeployment(DEPLOYMENT, script, { boot: QUIET }).catch((e: Error & { code?: string }) => e)
    expect(error).to.include({ code: 'CLI_REPLAY_AGENT_GONE' })
    expect((error as Error).message).to.match(/^s\.yml:3: turns\[1\] \(change\): the change disposed agent "main"/)
  })
})

describe('dsh-prompt replay: the worked example (examples/coding-agent/replay.yml)', () => {
  it('plays 44 requests; under replace the persona edit, the write tool and the day rollover break the prefix, each with its cause', async () => {
    const script = await readReplayScript('examples/coding-agent/replay.yml')
    const result = await replayDeployment(EXAMPLE.coding, script, { start: NOON, boot: QUIET, policy: 'replace', format: 'anthropic' })
    expect(result.turns).to.have.length(44)
    expect(result.turns.flatMap((t) => t.breaks.map((b) => [t.turn, causeClass(b.cause), b.section]))).to.deep.equal([
      [17, 'section text changed', 'deployment:persona'],
      [26, 'tool added', 'write'],
      [34, 'variable value changed', 'deployment:persona-suffix'],
    ])
    const shares = result.turns.map((t) => t.predictedCachedTokens / t.requestTokens)
    expect(shares[0]).to.equal(0)
    // Away from the breaks, nearly everything is served from cache.
    expect(Math.min(...shares.filter((_, i) => ![0, 16, 25, 33].includes(i)))).to.be.above(0.8)
  })
})

describe('dsh-prompt replay: the command', () => {
  const ledger = join(mkdtempSync(join(tmpdir(), 'dsh-replay-')), 'replay.jsonl')
  const page = join(mkdtempSync(join(tmpdir(), 'dsh-replay-')), 'replay.html')
  let history: Run
  const runs = runBeforeAll({
    // history reads what this run writes, so the two run in one job, one after the other.
    ledger: async () => {
      const replay = await cli(['replay', DEPLOYMENT, '--script', SCRIPT, '--ledger', ledger])
      history = await cli(['history', ledger])
      return replay
    },
    text: () => cli(['replay', DEPLOYMENT, '--script', SCRIPT, '--policy', 'replace']),
    json: () => cli(['replay', DEPLOYMENT, '--script', SCRIPT, '--json', '--format', 'openai-responses']),
    broken: () => cli(['replay', EXAMPLE.coding, '--script', fixture('replay-broken.yml')]),
    brokenJson: () => cli(['replay', EXAMPLE.coding, '--script', fixture('replay-broken.yml'), '--json']),
    noScript: () => cli(['replay', DEPLOYMENT]),
    html: () => cli(['replay', DEPLOYMENT, '--script', SCRIPT, '--policy', 'replace', '--html', page]),
    badPolicy: () => cli(['replay', DEPLOYMENT, '--script', SCRIPT, '--policy', 'rewrite']),
  })

  it('prints a header, a table row per request and each break with its cause, section and owner (exit 0)', () => {
    const out = lines(runs.text.stdout)
    expect(runs.text.code, runs.text.stderr).to.equal(0)
    expect(out[0]).to.equal(`# ${DEPLOYMENT}: agent "main", openai-chat, promptChange replace; script ${SCRIPT}: 7 requests`)
    expect(out[2].split(/\s+/)).to.deep.equal(['turn', 'requestBytes', 'reusableBytes', 'reusableTokens', 'predictedCachedTokens', 'cached', 'breaks', 'before', 'this', 'request'])
    expect(out.slice(3, 10).map((line) => line.trim().split(/\s+/)[0])).to.deep.equal(['1', '2', '3', '4', '5', '6', '7'])
    expect(out[6]).to.match(/ 1 {2}change dsh-system-prompt$/)
    const from = out.findIndex((line) => line.startsWith('breaks: '))
    const breaks = out.slice(from + 1, out.indexOf('', from))
    expect(breaks).to.have.length(3)
    expect(breaks.every((line) => line.startsWith('  turn '))).to.equal(true)
    expect(breaks[0]).to.equal('  turn 4: section text changed: "deployment:persona" (section "deployment:persona", message 0, owner dsh-system-prompt, layer global)')
    const changed = out.indexOf('tool changes: 2 requests')
    expect(out.slice(changed + 1, changed + 3)).to.deep.equal([
      `  turn 5: "read" added (owner dsh-plugin-filesystem): declared now; breaks the prefix, ${out[changed + 1].match(/, ([\d,]+) tokens/)![1]} tokens no longer read (openai-chat has no append path for an added tool (chat completions take tools only in the request's tools list))`,
      '  turn 6: "read" removed (owner dsh-plugin-filesystem): kept declared, inert (a call gets AGENT_TOOL_UNAVAILABLE); keeps section "tool:read" as sent until the next epoch; no break',
    ])
    expect(out[out.length - 1]).to.match(/^predicted cached: [\d,]+ of [\d,]+ request tokens \(\d+%\), openai caching rules, tokens by o200k_base$/)
  })

  it('--json prints { format, turns: [{ turn, requestBytes, reusableBytes, reusableTokens, predictedCachedTokens, breaks }] }', () => {
    expect(runs.json.code, runs.json.stderr).to.equal(0)
    const doc = JSON.parse(runs.json.stdout)
    expect(doc.format).to.equal('openai-responses')
    expect(doc.turns).to.have.length(7)
    expect(doc.turns[0]).to.include({ turn: 1, reusableBytes: 0 })
    expect(doc.turns[0]).to.include.keys('requestBytes', 'reusableTokens', 'predictedCachedTokens', 'breaks')
    expect(doc.turns[4].breaks.map((b: { cause: string }) => causeClass(b.cause))).to.deep.equal(['tool added'])
  })

  it('a malformed script: every problem on its own line with file, line and turn, then the error (exit 2); --json lists them', () => {
    expect(runs.broken.code).to.equal(2)
    expect(runs.broken.stdout).to.equal('')
    expect(lines(runs.broken.stderr)).to.deep.equal([
      'packages/cli/tests/fixtures/replay-broken.yml:3:5: turns[1] (assistant): an assistant reply needs text ("assistant: <text>") or tool_calls',
      'packages/cli/tests/fixtures/replay-broken.yml:4:19: turns[2] (tool): the result of tool "read" answers no call: no earlier assistant reply called it (called so far: (none))',
      'packages/cli/tests/fixtures/replay-broken.yml:5:12: turns[3] (clock): clock must be +<n>d, +<n>h or +<n>m (the clock moves on by a whole number of days, hours or minutes), found a text "1d"',
      'error: the replay script packages/cli/tests/fixtures/replay-broken.yml has 3 problems: nothing was played',
    ])
    const doc = JSON.parse(runs.brokenJson.stdout)
    expect([runs.brokenJson.code, doc.ok, doc.error.code, doc.error.problems.map((p: { code: string; line: number }) => [p.code, p.line])]).to.deep.equal([
      2, false, 'CLI_REPLAY_SCRIPT_INVALID', [['CLI_REPLAY_EMPTY_REPLY', 3], ['CLI_REPLAY_NO_CALL', 4], ['CLI_REPLAY_BAD_CLOCK', 5]],
    ])
  })

  it('--ledger writes the played conversation as a ledger that history reads: one item per request', async () => {
    expect(runs.ledger.code, runs.ledger.stderr).to.equal(0)
    const text = readFileSync(ledger, 'utf8')
    const lineCount = text.split('\n').length - 1
    expect(lines(runs.ledger.stdout).at(-1)).to.equal(`ledger: ${ledger} (${lineCount} lines; read it with dsh-prompt history)`)
    const parsed = readLedger(text)
    expect(parsed.header.agent).to.equal('main')
    // Six inputs and the note that tells the model the removed tool is unavailable.
    expect(parsed.entries.filter((entry) => entry.source === 'user')).to.have.length(7)
    expect(parsed.entries.filter((entry) => entry.source === 'tool').map((entry) => (entry as { tool_call_id?: string }).tool_call_id)).to.deep.equal(['call_2_1'])
    expect(history.code, history.stderr).to.equal(0)
    expect(history.stdout).to.match(/; 7 requests\n/)
  })

  it('--html writes the picture: one bar per request and one mark per break, each break\'s cause on it', () => {
    expect(runs.html.code, runs.html.stderr).to.equal(0)
    expect(lines(runs.html.stdout)).to.deep.equal([`wrote ${page}: the picture of 7 requests, 3 breaks`])
    const html = readFileSync(page, 'utf8')
    expect(html.match(/class="break"/g)).to.have.length(3)
    expect(html).to.include('data-cause="section text changed: &quot;deployment:persona&quot;"')
  })

  it('--script is required and --policy takes append or replace (usage errors, exit 2)', () => {
    expect([runs.noScript.code, runs.badPolicy.code]).to.deep.equal([2, 2])
    expect(runs.noScript.stderr).to.contain("required option '--script <file>' not specified")
    expect(runs.badPolicy.stderr).to.contain("Allowed choices are append, replace")
  })
})
