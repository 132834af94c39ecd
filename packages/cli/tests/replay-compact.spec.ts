import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readLedger } from 'dsh-agent'
import { replayDeployment } from '../src/commands/replay.js'
import { parseReplayScript } from '../src/replay-script.js'
import { fixture, runInProcess } from './helpers.js'

const DEPLOYMENT = fixture('replay-deployment.yml')
const QUIET = { logLevel: 'silent' as const, env: {} }
const SCRIPT = [
  'turns:',
  '  - user: Hello.',
  '  - assistant: Hello. What shall we do?',
  '  - user: List the files.',
  '  - assistant: There is one file.',
  '  - user: Read it.',
  '  - assistant: It says hello.',
  '  - compact: { summary: "The user greeted me and I listed one file.", keep: 1 }',
  '  - user: Thanks.',
  '',
].join('\n')

describe('dsh-prompt replay: compact turns (issue 21)', () => {
  for (const format of ['openai-chat', 'anthropic'] as const) {
    it(`a compaction opens an epoch: the next request shows it with its re-anchor and predicted cost, and keeps the opening (${format})`, async () => {
      const result = await replayDeployment(DEPLOYMENT, parseReplayScript(SCRIPT, 's.yml'), { boot: QUIET, format, ledger: true })
      const [, , third, next] = result.turns
      expect(next.changes).to.have.length(1)
      expect(next.changes[0]).to.match(/^epoch 1: stable-opening, predicted [\d,.]+ now \(\+[\d,.]+\/request\)$/)
      expect(next.reusableBytes).to.be.greaterThan(0)
      expect(next.requestBytes).to.be.lessThan(third.requestBytes + 200)
      const ledger = readLedger(result.ledger!)
      expect(ledger.epochs.map((epoch) => [epoch.epoch, epoch.reanchor, epoch.format])).to.deep.equal([[1, 'stable-opening', format]])
    })
  }

  it('a compact turn without a summary, or with a keep that is not a whole number, is a script problem at its line', () => {
    const problems = (() => {
      try {
        parseReplayScript('turns:\n  - user: hi\n  - compact: { keep: 1 }\n  - compact: { summary: S., keep: -1 }\n', 's.yml')
      } catch (error) {
        return (error as { details: { problems: Array<{ code: string; line: number; details: { key: string } }> } }).details.problems
      }
    })()
    expect(problems?.map((p) => [p.code, p.line, p.details.key])).to.deep.equal([['CLI_REPLAY_WRONG_TYPE', 3, 'compact.summary'], ['CLI_REPLAY_WRONG_TYPE', 4, 'compact.keep']])
  })

  it('history shows each epoch before the turn it starts, with its re-anchor and predicted cost, and lists the epochs in --json', async () => {
    const result = await replayDeployment(DEPLOYMENT, parseReplayScript(SCRIPT, 's.yml'), { boot: QUIET, format: 'anthropic', ledger: true })
    const dir = mkdtempSync(join(tmpdir(), 'dsh-epochs-'))
    try {
      const file = join(dir, 'ledger.jsonl')
      writeFileSync(file, result.ledger!)
      const text = await runInProcess(['history', file])
      expect(text.code, text.stderr).to.equal(0)
      const lines = result.ledger!.trim().split('\n').length
      expect(text.stdout).to.contain(`${lines} lines, hash chain intact`)
      expect(text.stdout).to.match(/\nepoch 1: stable-opening, predicted [\d,.]+ now \(\+[\d,.]+\/request\) \(line \d+\): the summary replaced \d+ entries; the epoch starts with \d+ entries\n\nrequest \d+ /)
      const json = await runInProcess(['history', file, '--json'])
      const parsed = JSON.parse(json.stdout) as { lines: number; epochs: Array<{ epoch: number; reanchor: string }> }
      expect(parsed.lines).to.equal(lines)
      expect(parsed.epochs.map((epoch) => [epoch.epoch, epoch.reanchor])).to.deep.equal([[1, 'stable-opening']])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
