import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportLedger } from 'dsh-agent'
import { converse, harness } from '../../agent/tests/ledger-scenario.js'
import { blocksOf, describeUsage, sectionChanges, turnsOf } from '../src/commands/history.js'
import * as CliErrors from '../src/errors.js'
import { ANSI, assertBuilt, cli, fixture, REPO } from './helpers.js'

const LEDGER = fixture('ledger/conversation.jsonl')

describe('dsh-prompt history <ledger>', () => {
  before(assertBuilt)
  let folder: string
  beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'dsh-history-')) })
  afterEach(() => rmSync(folder, { recursive: true, force: true }))

  it('the fixture ledger is the ledger scenario as format version 1 wrote it (no parts): a restored agent exports it again byte for byte', async () => {
    const text = readFileSync(join(REPO, LEDGER), 'utf8')
    expect(JSON.parse(text.split('\n')[0]).version).to.equal(1)
    const { host } = await harness('append')
    const agent = await host.agents.restore(text)
    expect(exportLedger(agent)).to.equal(text)
  })

  it('prints each turn with its prompt version, the messages added, the replies with usage, and a per-section diff', async () => {
    const run = await cli(['history', LEDGER])
    expect(run.code).to.equal(0)
    expect(run.stderr).to.equal('')
    expect(run.stdout).to.not.match(ANSI)
    const out = run.stdout
    expect(out.split('\n').slice(0, 3)).to.deep.equal([
      `# ${LEDGER}: agent "a" (model deepseek-chat, promptChange append, provider deepseek, cwd /work)`,
      '10 lines, hash chain intact (head 6ec4b6662dba…); 2 prompt versions; 3 requests',
      'this ledger carries no parts (format version 1): sections are compared at blank lines, since the render joins sections with one blank line and does not mark them, so a section with a blank line in it counts as several',
    ])
    expect(out).to.contain([
      'request 1 (lines 2-5), prompt version 1',
      '  + system prompt, version 1 (line 2, 9 bytes, 1 section):',
      '      Be brief.',
      '  + user input (line 3):',
      '      Read a.txt.',
    ].join('\n'))
    expect(out).to.contain([
      '  < assistant reply (line 5):',
      '      tool call read (id c1): {"path":"a.txt"}',
      '      usage: input 40, cached read not reported, cache write not reported, output 7',
      '',
      'request 2 (lines 6-7), prompt version 1',
      '  + tool result for call c1 (read) (line 6):',
      '      hello',
      '  < assistant reply (line 7):',
      '      It says hello.',
      '      usage: input 1,200, cached read 1,024, cache write not reported, output 9',
    ].join('\n'))
    expect(out).to.contain([
      'request 3 (lines 8-10), prompt version 2',
      '  + system prompt, version 2 (line 8, 36 bytes, 2 sections), per section against version 1:',
      '      section 1: changed',
      '        --- v1 section 1',
      '        +++ v2 section 1',
      '        @@ -1,1 +1,1 @@',
      '        -Be brief.',
      '        +Be careful.',
      '      section 2: added',
      '        --- v1 (none)',
      '        +++ v2 section 2',
      '        @@ -0,0 +1,1 @@',
      '        +Check every path twice.',
    ].join('\n'))
  })

  it('offers only the flags a ledger needs, and counts requests, not turns (issue 24)', async () => {
    const help = await cli(['history', '--help'], { env: { COLUMNS: '200' } })
    const flags = [...help.stdout.matchAll(/^  (?:-\w, )?(--[a-z-]+)/gm)].map(([, flag]) => flag)
    expect(flags).to.deep.equal(['--head', '--json', '--no-color', '--stack', '--max-file-size', '--help'])
    expect(help.stdout).to.match(/print each request it records/)
    const run = await cli(['history', '--timeout', '5', LEDGER])
    expect(run.stderr).to.match(/unknown option '--timeout'/)
  })

  it('--json prints one document: header, head, prompt versions with their section changes, turns', async () => {
    const run = await cli(['history', LEDGER, '--json'])
    expect(run.code).to.equal(0)
    const doc = JSON.parse(run.stdout)
    expect(doc).to.include({ ok: true, command: 'history', file: LEDGER, lines: 10 })
    expect(doc.header).to.deep.equal({ format: 'dsh-ledger', version: 1, agent: 'a', model: 'deepseek-chat', promptChange: 'append', provider: 'deepseek', cwd: '/work' })
    expect(doc.head).to.equal(JSON.parse(readFileSync(join(REPO, LEDGER), 'utf8').trimEnd().split('\n').at(-1)!).hash)
    expect(doc.promptVersions.map((v: { version: number; line: number; sections: number; changes: null | Array<{ kind: string }> }) =>
      [v.version, v.line, v.sections, v.changes?.map((c) => c.kind) ?? null])).to.deep.equal([[1, 2, 1, null], [2, 8, 2, ['changed', 'added']]])
    expect(doc.turns.map((t: { turn: number; promptVersion: number; added: Array<{ line: number }>; replies: Array<{ line: number }> }) =>
      [t.turn, t.promptVersion, t.added.map((a) => a.line), t.replies.map((r) => r.line)])).to.deep.equal([[1, 1, [2, 3, 4], [5]], [2, 1, [6], [7]], [3, 2, [8, 9], [10]]])
    expect(doc.turns[1].added[0]).to.deep.equal({ role: 'tool', source: 'tool', content: 'hello', tool_call_id: 'c1', name: 'read', line: 6 })
    expect(doc.turns[1].replies[0].usage).to.deep.equal({ inputTokens: 1200, cachedReadTokens: 1024, cacheWriteTokens: null, outputTokens: 9 })
  })

  it('a tampered ledger exits 1 naming the line, in text and in --json', async () => {
    const path = join(folder, 'bad.jsonl')
    writeFileSync(path, readFileSync(join(REPO, LEDGER), 'utf8').replace('Read a.txt.', 'Delete a.txt.'))
    const run = await cli(['history', path])
    expect(run.code).to.equal(1)
    expect(run.stdout).to.equal('')
    expect(run.stderr).to.equal(`error: ${path}: ledger line 3: the hash does not match: this line was changed, or a line before it was removed or moved\n`)
    const json = await cli(['history', path, '--json'])
    expect(json.code).to.equal(1)
    expect(JSON.parse(json.stdout)).to.deep.equal({
      ok: false, exitCode: 1, error: { kind: 'ledger', code: 'AGENT_LEDGER_HASH_MISMATCH', message: `${path}: ledger line 3: the hash does not match: this line was changed, or a line before it was removed or moved`, details: { file: path, line: 3 } },
    })
  })

  it('a cut-short ledger, a missing head and a missing file exit 1 too', async () => {
    const text = readFileSync(join(REPO, LEDGER), 'utf8')
    const cut = join(folder, 'cut.jsonl')
    writeFileSync(cut, text.slice(0, -30))
    expect((await cli(['history', cut])).stderr).to.match(/^error: .*cut\.jsonl: ledger line 10: the last line is cut short/)
    const short = join(folder, 'short.jsonl')
    writeFileSync(short, text.split('\n').slice(0, 9).join('\n') + '\n')
    const head = JSON.parse(text.trimEnd().split('\n').at(-1)!).hash as string
    const missing = await cli(['history', short, '--head', head])
    expect(missing.code).to.equal(1)
    expect(missing.stderr).to.contain('ledger line 10: missing: the ledger ends at line 9')
    const absent = await cli(['history', join(folder, 'nope.jsonl'), '--json'])
    expect(absent.code).to.equal(1)
    expect(JSON.parse(absent.stdout).error).to.include({ kind: 'ledger', code: 'CLI_LEDGER_UNREADABLE' })
  })

  it('escapes for the terminal everything it prints from the ledger', async () => {
    const { host } = await harness('append')
    const agent = await host.agents.create({ id: 'a\u001b[2Jb', model: 'm\u202e' })
    await agent.step('line one\r\u001b]0;title\u0007\nline two')
    agent.record({ role: 'assistant', content: null, tool_calls: [{ id: 'c\n1', type: 'function', function: { name: 'r\u001b[31m', arguments: '{"a":"\n"}' } }] })
    agent.record({ role: 'tool', tool_call_id: 'c\n1', name: 'r\u001b[31m', content: 'out\u0008' })
    const path = join(folder, 'odd.jsonl')
    writeFileSync(path, exportLedger(agent))
    for (const env of [{}, { FORCE_COLOR: '1' }] as Array<Record<string, string>>) {
      const run = await cli(['history', path], { env })
      expect(run.code).to.equal(0)
      expect(run.stdout.replace(/\u001b\[[0-9;]*m/g, '')).to.not.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/)
      expect(run.stdout).to.contain('agent "a\\u001b[2Jb" (model m\\u202e')
      expect(run.stdout).to.contain('      line one\\r\\e]0;title\\u0007\n      line two')
      expect(run.stdout).to.contain('tool call r\\e[31m (id c\\n1): {"a":"\\n"}')
    }
  })

  it('under promptChange replace, a new version says it replaces the one at the head', async () => {
    const { host } = await harness('replace')
    const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
    await converse(agent, 'openai-chat')
    const path = join(folder, 'replace.jsonl')
    writeFileSync(path, exportLedger(agent))
    const run = await cli(['history', path])
    expect(run.code).to.equal(0)
    expect(run.stdout).to.contain('  + system prompt, version 2 (line 8, 36 bytes, 1 section) (promptChange replace: from this request on it is the only system prompt, at the head of each request), per section against version 1:\n')
  })

  describe('the pieces', () => {
    it('blocksOf splits a version where the render joins sections, and an empty prompt has none', () => {
      expect(blocksOf('A\n\nB\nC\n\nD')).to.deep.equal(['A', 'B\nC', 'D'])
      expect(blocksOf('')).to.deep.equal([])
    })

    it('sectionChanges pairs changed sections, keeps unchanged runs together, and numbers removed ones in the earlier version', () => {
      const changes = sectionChanges('A\n\nB\n\nC\n\nD', 'A\n\nB\n\nX\n\nD\n\nE', 1, 2)
      expect(changes.map(({ patch: _, ...c }) => c)).to.deep.equal([
        { kind: 'unchanged', from: 1, to: 1, count: 2 },
        { kind: 'changed', from: 3, to: 3, count: 1 },
        { kind: 'unchanged', from: 4, to: 4, count: 1 },
        { kind: 'added', from: null, to: 5, count: 1 },
      ])
      expect(changes[1].patch).to.equal('--- v1 section 3\n+++ v2 section 3\n@@ -1,1 +1,1 @@\n-C\n+X\n')
      expect(sectionChanges('A\n\nB', 'B', 3, 4).map((c) => [c.kind, c.from, c.to])).to.deep.equal([['removed', 1, null], ['unchanged', 2, 1]])
    })

    it('turnsOf starts a turn at the first entry after a reply; replies in a row stay in one turn', () => {
      const line = (source: string, n: number, promptVersion = 1) => ({ role: source === 'assistant' ? 'assistant' : 'user', source, content: 'x', promptVersion, line: n, hash: '' }) as never
      const turns = turnsOf([line('system-prompt', 2), line('user', 3), line('assistant', 4), line('assistant', 5), line('tool', 6), line('tool', 7), line('system-prompt', 8, 2), line('assistant', 9, 2)])
      expect(turns.map((t) => [t.turn, t.promptVersion, t.added.map((a) => a.line), t.replies.map((r) => r.line)])).to.deep.equal([
        [1, 1, [2, 3], [4, 5]], [2, 2, [6, 7, 8], [9]],
      ])
    })

    it('turnsOf gives an epoch\'s baseline (the kept turns\' replies among it) to the request that sends it, and counts no request twice', () => {
      const line = (source: string, n: number) => ({ role: source === 'assistant' ? 'assistant' : 'user', source, content: 'x', promptVersion: 1, line: n, hash: '' }) as never
      // Lines 2-5: the closed epoch; line 6 the mark; 7-11 the baseline (opening, summary, a kept turn and its reply); 12-13 the next request and its reply.
      const entries = [line('system-prompt', 2), line('user', 3), line('assistant', 4), line('user', 5), line('system-prompt', 7), line('user', 8), line('user', 9), line('assistant', 10), line('tool', 11), line('user', 12), line('assistant', 13)]
      const turns = turnsOf(entries, [{ at: 4, baseline: 5 }])
      expect(turns.map((t) => [t.turn, (t.carried ?? []).map((c) => c.line), t.added.map((a) => a.line), t.replies.map((r) => r.line)])).to.deep.equal([
        [1, [], [2, 3], [4]], [2, [], [5], []], [3, [7, 8, 9, 10, 11], [12], [13]],
      ])
      // A ledger that ends with the baseline: the request that will send it.
      expect(turnsOf(entries.slice(0, 9), [{ at: 4, baseline: 5 }]).map((t) => [(t.carried ?? []).length, t.added.length])).to.deep.equal([[0, 2], [0, 1], [5, 0]])
    })

    it('describeUsage says "not reported" for a figure the provider left out', () => {
      expect(describeUsage({ inputTokens: 1234, cachedReadTokens: 0, cacheWriteTokens: null, outputTokens: 5 })).to.equal('usage: input 1,234, cached read 0, cache write not reported, output 5')
    })

    it('its errors carry their codes: the refusal keeps the ledger\'s own, an unreadable file has CLI_LEDGER_UNREADABLE', () => {
      const refused = CliErrors.ledgerRefused('x.jsonl', Object.assign(new Error('ledger line 3: …'), { code: 'AGENT_LEDGER_HASH_MISMATCH', details: { line: 3 } }))
      expect(refused).to.include({ code: 'AGENT_LEDGER_HASH_MISMATCH', kind: 'ledger', exitCode: 1, message: 'x.jsonl: ledger line 3: …' })
      expect(refused.details).to.deep.equal({ file: 'x.jsonl', line: 3 })
      expect(CliErrors.ledgerRefused('x.jsonl', new Error('odd')).code).to.equal('CLI_LEDGER_REFUSED')
      const unreadable = CliErrors.ledgerUnreadable('x.jsonl', Object.assign(new Error('ENOENT'), { code: 'ENOENT' }))
      expect(unreadable).to.include({ code: 'CLI_LEDGER_UNREADABLE', kind: 'ledger', exitCode: 1, message: 'cannot read the ledger x.jsonl: no such file' })
    })
  })
})
