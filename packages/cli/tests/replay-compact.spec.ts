import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readLedger } from 'dsh-agent'
import { replayDeployment } from '../src/commands/replay.js'
import { offerWords } from '../src/replay-session.js'
import { rechain } from '../../agent/tests/helpers.js'
import { parseReplayScript } from '../src/replay-script.js'
import { fixture, runInProcess, QUIET } from './helpers.js'

const DEPLOYMENT = fixture('replay-deployment.yml')
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

  it('history shows each epoch before the request that sends its baseline, with its re-anchor, price, and predicted against reported cost, and lists the epochs in --json', async () => {
    // Every request: 1,000 input tokens, 600 of them read from the cache; under Anthropic's prices (read 0.1, write 1.25) that is 560.
    const send = async () => ({ usage: { prompt_tokens: 1000, completion_tokens: 5, total_tokens: 1005, prompt_tokens_details: { cached_tokens: 600 } }, shape: 'openai-chat' as const })
    const result = await replayDeployment(DEPLOYMENT, parseReplayScript(`${SCRIPT}  - assistant: You are welcome.\n`, 's.yml'), { boot: QUIET, format: 'anthropic', ledger: true, send })
    const dir = mkdtempSync(join(tmpdir(), 'dsh-epochs-'))
    try {
      const file = join(dir, 'ledger.jsonl')
      writeFileSync(file, result.ledger!)
      const text = await runInProcess(['history', file])
      expect(text.code, text.stderr).to.equal(0)
      const lines = result.ledger!.trim().split('\n').length
      // The ledger's requests are the replay's: the kept turns are sent again with the epoch's first request, not counted twice.
      expect(text.stdout).to.contain(`${lines} lines, hash chain intact`)
      expect(text.stdout).to.match(new RegExp(`; ${result.turns.length} requests\n`))
      const epoch = result.turns[3].epoch!
      const mark = result.ledger!.split('\n').findIndex((line) => line.startsWith('{"epoch":1,')) + 1
      const figure = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 2 })
      expect(text.stdout).to.contain([
        `epoch 1: stable-opening, predicted ${figure(epoch.predicted.costNow)} now (+${figure(epoch.predicted.costPerRequest)}/request), reported 560 (line ${mark}): the summary replaced ${epoch.summarised} entries; the epoch starts with ${epoch.baseline} entries, sent with request 4`,
        `  re-anchors priced with ${epoch.provider}'s caching rules for anthropic, in token-equivalents, over ${epoch.horizon} later requests:`,
        // Ledger format 4 keeps both offers, shown in replay's words.
        ...epoch.offered.map((offer) => `    offered ${offerWords(offer, epoch)}`),
        `  predicted ${figure(epoch.predicted.costNow)} now, reported 560 (600 of 1,000 input tokens cached)`,
        '',
        `request 4 (lines ${mark + 1}-`,
      ].join('\n'))
      expect(text.stdout).to.contain(`  = the epoch's baseline, sent with this request (${epoch.baseline} entries, lines ${mark + 1}-${mark + epoch.baseline}):`)
      expect(text.stdout).to.contain('  < kept assistant reply (line')
      const json = await runInProcess(['history', file, '--json'])
      const parsed = JSON.parse(json.stdout) as { lines: number; epochs: Array<{ epoch: number; reanchor: string; firstRequest: number; reported: unknown }>; turns: Array<{ turn: number; carried?: Array<{ line: number }> }> }
      expect(parsed.lines).to.equal(lines)
      expect(parsed.turns.flatMap((turn) => turn.carried ? [[turn.turn, turn.carried.map((item) => item.line)]] : [])).to.deep.equal([[4, Array.from({ length: epoch.baseline }, (_, i) => mark + 1 + i)]])
      expect(parsed.epochs.map((item) => [item.epoch, item.reanchor, item.firstRequest, item.reported])).to.deep.equal([[1, 'stable-opening', 4, { inputTokens: 1000, cachedTokens: 600, costNow: 560 }]])
      // A ledger of format 3 keeps the chosen re-anchor's price only, and the words say so.
      const older = join(dir, 'format-3.jsonl')
      const objects = result.ledger!.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
      writeFileSync(older, rechain(objects.map(({ offered: _offered, horizon: _horizon, toolOwners: _owners, ...fields }, i) => (i === 0 ? { ...fields, version: 3 } : fields))))
      const three = await runInProcess(['history', older])
      expect(three.code, three.stderr).to.equal(0)
      expect(three.stdout).to.contain(`  re-anchor stable-opening, priced with ${epoch.provider}'s caching rules for anthropic in token-equivalents: reads ${figure(epoch.predicted.cachedTokens)}, writes ${figure(epoch.predicted.writtenTokens)} tokens now; +${figure(epoch.predicted.costPerRequest)} per later request (a ledger older than format 4 keeps the chosen re-anchor's price only)`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
