import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseReplayScript } from '../src/replay-script.js'
import { fixture, REPO, runInProcess, scriptProblems } from './helpers.js'

// Issue 20, items 4 and 10: history reads through the ledger's one validator; a replay script answers
// each call of a reply once, in order, and never sends a conversation with an unanswered call.

const run = runInProcess

const sha = (previous: string, fields: object) => createHash('sha256').update(previous + JSON.stringify(fields)).digest('hex')

/** The fixture ledger with `edit` applied to its lines' objects and the chain made valid again. */
function forged(edit: (all: Array<Record<string, unknown>>) => void): string {
  const all = readFileSync(join(REPO, fixture('ledger/conversation.jsonl')), 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  edit(all)
  let previous = ''
  return all.map(({ hash: _, ...fields }) => {
    previous = sha(previous, fields)
    return JSON.stringify({ ...fields, hash: previous }) + '\n'
  }).join('')
}

describe('dsh-prompt: hostile ledgers and replay scripts (issue 20)', () => {
  let folder: string
  beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'dsh-hostile-ledger-')) })
  afterEach(() => rmSync(folder, { recursive: true, force: true }))

  const ledgers: Array<[string, (all: Array<Record<string, unknown>>) => void, string, string]> = [
    ['tool_calls: [null]', (all) => { all[4].tool_calls = [null] }, 'AGENT_LEDGER_INVALID_ENTRY',
      'ledger line 5: the entry cannot be recorded: tool_calls[0] must be a tool call object ({ id, type, function: { name, arguments } }), found null'],
    ['tool_calls: [{}]', (all) => { all[4].tool_calls = [{}] }, 'AGENT_LEDGER_INVALID_ENTRY', 'ledger line 5: the entry cannot be recorded: tool_calls[0].id must be a non-empty string'],
    ['usage figures that are not counts', (all) => { all[4].usage = { inputTokens: 'NaN', cachedReadTokens: null, cacheWriteTokens: null, outputTokens: -5 } }, 'AGENT_LEDGER_INVALID_ENTRY',
      'ledger line 5: the entry cannot be recorded: usage.inputTokens is a string "NaN"; each figure is a finite count of at least 0, or null when the provider did not report it'],
    ['fields out of their order', (all) => { const { role, source, ...rest } = all[2]; all[2] = { source, role, ...rest } }, 'AGENT_LEDGER_NOT_CANONICAL',
      'ledger line 3: not in the ledger\'s canonical form: its keys are source, role, promptVersion, content; the ledger writes role, source, promptVersion, content'],
  ]
  for (const [what, edit, code, message] of ledgers) {
    it(`history refuses a hash-valid ledger holding ${what}, naming the line (exit 1), as restore does`, async () => {
      const path = join(folder, 'bad.jsonl')
      writeFileSync(path, forged(edit))
      const text = await run(['history', path])
      expect(text.code).to.equal(1)
      expect(text.stdout).to.equal('')
      expect(text.stderr.startsWith(`error: ${path}: ${message}`)).to.equal(true, text.stderr)
      const json = await run(['history', path, '--json'])
      expect(json.code).to.equal(1)
      expect(JSON.parse(json.stdout).error).to.include({ kind: 'ledger', code })
    })
  }

  describe('a replay reply that calls one tool twice', () => {
    const script = (...turns: string[]) => ['turns:', '  - user: read both', '  - assistant:', '    tool_calls: [{ name: read, arguments: { path: a } }, { name: read, arguments: { path: b } }]', ...turns].join('\n')

    it('gets its results attached to its calls in order', () => {
      const turns = parseReplayScript(script('  - tool: { name: read, result: A }', '  - tool: { name: read, result: B }', '  - assistant: done'), 's.yml').turns
      expect(turns.filter((turn) => turn.kind === 'tool').map((turn) => turn.kind === 'tool' && [turn.callId, turn.result, turn.request]))
        .to.deep.equal([['call_1_1', 'A', false], ['call_1_2', 'B', true]])
    })

    const problems = scriptProblems

    it('refuses a script whose request would leave a call unanswered (CLI_REPLAY_UNANSWERED_CALL), and a third result (CLI_REPLAY_CALL_ANSWERED)', () => {
      const unanswered = 's.yml:5:5: turns[2] (tool): the last assistant reply\'s call read (call_1_2) has no result before the next request: every call needs its tool: turn first (providers refuse a conversation with an unanswered call)'
      expect(problems(script('  - tool: { name: read, result: A }', '  - user: next'))).to.deep.equal([unanswered])
      expect(problems(script('  - tool: { name: read, result: A }'))).to.deep.equal([unanswered])
      expect(problems(script('  - user: next'))).to.deep.equal([
        's.yml:5:5: turns[2] (user): the last assistant reply\'s calls read (call_1_1), read (call_1_2) have no result before the next request: every call needs its tool: turn first (providers refuse a conversation with an unanswered call)',
      ])
      expect(problems(script('  - tool: { name: read, result: A }', '  - tool: { name: read, result: B }', '  - tool: { name: read, result: C }'))).to.deep.equal([
        's.yml:7:19: turns[4] (tool): every call of tool "read" in the last assistant reply has its result already (a reply that calls a tool twice gets one tool: turn per call, in order)',
      ])
    })
  })
})
