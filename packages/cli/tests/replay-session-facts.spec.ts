/**
 * What `replay` shows of a whole session (issue 21, item 6), in `--json` and in the text report: the
 * epoch a compaction opens (both re-anchors offered and priced, the chosen one's predicted cost, the
 * reported cost once a provider's usage is recorded), a fork's parity with the agent's latest request,
 * a sub-agent's start, and each tool change. Figures are read from the run, never pinned.
 */
import { expect } from 'chai'
import { PassThrough } from 'node:stream'
import { printReplay, replayDeployment, type ReplayResult } from '../src/commands/replay.js'
import { Output } from '../src/output.js'
import { parseReplayScript } from '../src/replay-script.js'
import { EXAMPLE, fixture, runInProcess, QUIET } from './helpers.js'

const DEPLOYMENT = fixture('replay-deployment.yml')
const SESSION = 'examples/coding-agent/session.yml'
const figure = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 2 })

function text(result: ReplayResult): string {
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (chunk) => { out += String(chunk) })
  printReplay(new Output({ stdout, stderr: new PassThrough(), env: {}, color: false }), result)
  return out
}

interface Price { kind: string; available: boolean; requestTokens: number; cachedTokens: number; writtenTokens: number; costNow: number; costPerRequest: number; total: number }
interface JsonTurn {
  turn: number
  changes: string[]
  reusableTokens: number
  predictedCachedTokens: number
  side?: { kind: string }
  fork?: { kind: string; parity: unknown }
  subagent?: { id: string; start: string }
  epoch?: { epoch: number; reanchor: string; horizon: number; offered: Price[]; predicted: Price; reported: unknown; summarised: number; baseline: number; hidden: string[] }
  toolChanges?: Array<{ tool: string; kind: string; owner: string | null; handling: string; breaks: boolean; cost: number }>
}

describe('dsh-prompt replay: epochs, forks, sub-agents and tool changes in --json and the text report (issue 21)', () => {
  it('session.yml --json carries the epoch with both re-anchors priced, the fork\'s parity, the sub-agent\'s start and the tool changes; the text report prints the same figures', async () => {
    // One replay at a time: each installs its own clock.
    const json = await runInProcess(['replay', EXAMPLE.coding, '--script', SESSION, '--json'])
    const plain = await runInProcess(['replay', EXAMPLE.coding, '--script', SESSION])
    expect(json.code, json.stderr).to.equal(0)
    expect(plain.code, plain.stderr).to.equal(0)
    const turns = (JSON.parse(json.stdout) as { turns: JsonTurn[] }).turns
    const epochs = turns.filter((turn) => turn.epoch)
    expect(epochs.map((turn) => [turn.epoch!.epoch, turn.changes[0].startsWith('epoch 1:')])).to.deep.equal([[1, true]])
    const epoch = epochs[0].epoch!
    expect(epoch.offered.map((price) => price.kind)).to.deep.equal(['stable-opening', 'new-opening'])
    expect(epoch.predicted).to.deep.equal(epoch.offered.find((price) => price.kind === epoch.reanchor))
    for (const price of epoch.offered) {
      expect(price.writtenTokens + price.cachedTokens, price.kind).to.equal(price.requestTokens)
      expect(plain.stdout).to.contain(`offered ${price.kind}: ${figure(price.costNow)} now (reads ${figure(price.cachedTokens)}, writes ${figure(price.writtenTokens)} tokens), +${figure(price.costPerRequest)}/request, ${figure(price.total)} over ${epoch.horizon}`)
    }
    // The replay sends nothing, so no cost is reported, and it says so.
    expect(epoch.reported).to.equal(null)
    expect(plain.stdout).to.contain(`  turn ${epochs[0].turn}: epoch 1: ${epoch.reanchor}, the summary replaced ${epoch.summarised} entries, the epoch starts with ${epoch.baseline} entries`)
    expect(plain.stdout).to.contain(`predicted ${figure(epoch.predicted.costNow)} now, reported: no usage recorded (the replay sends no request)`)

    const fork = turns.find((turn) => turn.fork)!
    expect(fork.fork).to.deep.equal({ kind: 'title', parity: null })
    expect(fork.side).to.deep.equal({ kind: 'title' })
    expect(plain.stdout).to.contain(`  turn ${fork.turn}: fork title: repeats the agent's latest request whole; shares ${figure(fork.reusableTokens)} tokens with it, ${figure(fork.predictedCachedTokens)} predicted cached\n`)
    const child = turns.find((turn) => turn.subagent)!
    expect(child.subagent).to.deep.equal({ id: 'fix-review', start: 'parent' })
    expect(plain.stdout).to.contain(`  turn ${child.turn}: subagent fix-review (start parent): shares ${figure(child.reusableTokens)} tokens with the parent's latest request, ${figure(child.predictedCachedTokens)} predicted cached\n`)

    const changes = turns.flatMap((turn) => (turn.toolChanges ?? []).map((change) => [turn.turn, change.tool, change.kind, change.handling]))
    expect(changes.filter(([, , , handling]) => handling === 'inert').map(([, tool, kind]) => [tool, kind])).to.deep.equal([['glob', 'removed'], ['write', 'removed']])
  })

  it('a fork after a prompt change names where it stops repeating the agent\'s latest request: the section, its owner as a row id, the cause', async () => {
    const script = parseReplayScript([
      'turns:',
      '  - user: Hello.',
      '  - assistant: Hello. What shall we do?',
      '  - change: { row: dsh-system-prompt, config: { includeHarnessIdentity: false, persona: You are a brief assistant., personaSuffix: "Today is {{date}}." } }',
      '  - fork: { kind: title, instruction: Name it. }',
      '',
    ].join('\n'), 's.yml')
    const result = await replayDeployment(DEPLOYMENT, script, { boot: QUIET })
    const fork = result.turns[1].fork!
    expect(fork.kind).to.equal('title')
    expect(fork.parity).to.include({ kind: 'section', section: 'deployment:persona', owner: 'dsh-system-prompt', cause: 'section text changed: "deployment:persona"' })
    expect(text(result)).to.contain('  turn 2: fork title: stops repeating the agent\'s latest request at section "deployment:persona" (owner dsh-system-prompt): section text changed: "deployment:persona";')
  })

  it('with a provider\'s usage (ReplayOptions.send), the epoch carries the reported cost, priced as the prediction was, beside the predicted one', async () => {
    const script = parseReplayScript([
      'turns:',
      '  - user: Hello.',
      '  - assistant: Hello. What shall we do?',
      '  - user: List the files.',
      '  - assistant: There is one file.',
      '  - compact: { summary: "The user greeted me.", keep: 1 }',
      '  - user: Thanks.',
      '  - assistant: You are welcome.',
      '',
    ].join('\n'), 's.yml')
    // Every request: 1,000 input tokens, 600 of them read from the cache (gpt-4o under OpenAI's prices: read 0.5, write 1).
    const send = async () => ({ usage: { prompt_tokens: 1000, completion_tokens: 5, total_tokens: 1005, prompt_tokens_details: { cached_tokens: 600 } }, shape: 'openai-chat' as const })
    const result = await replayDeployment(DEPLOYMENT, script, { boot: QUIET, send })
    const epoch = result.turns.find((turn) => turn.epoch)!.epoch!
    expect(epoch.reported).to.deep.equal({ inputTokens: 1000, cachedTokens: 600, costNow: 700 })
    expect(text(result)).to.contain(`    predicted ${figure(epoch.predicted.costNow)} now, reported 700 (600 of 1,000 input tokens cached)\n`)
  })
})
