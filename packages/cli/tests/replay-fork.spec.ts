import { expect } from 'chai'
import { PassThrough } from 'node:stream'
import { printReplay, replayDeployment } from '../src/commands/replay.js'
import { Output } from '../src/output.js'
import { parseReplayScript } from '../src/replay-script.js'
import { fixture, QUIET } from './helpers.js'

const DEPLOYMENT = fixture('replay-deployment.yml')
const SCRIPT = [
  'turns:',
  '  - user: Hello.',
  '  - assistant: Hello. What shall we do?',
  '  - user: List the files.',
  '  - fork: { kind: title, instruction: Name this conversation in five words. }',
  '  - assistant: There is one file.',
  '  - user: Thanks.',
  '',
].join('\n')

describe('dsh-prompt replay: fork turns (issue 21)', () => {
  for (const format of ['openai-chat', 'anthropic'] as const) {
    it(`a fork is a side request that repeats the latest one; the next request is measured against the agent's own (${format})`, async () => {
      const result = await replayDeployment(DEPLOYMENT, parseReplayScript(SCRIPT, 's.yml'), { boot: QUIET, format })
      expect(result.turns.map((t) => t.side)).to.deep.equal([undefined, undefined, { kind: 'title' }, undefined])
      const [, latest, fork, next] = result.turns
      expect(fork).to.include({ reusableBytes: latest.requestBytes, reusableTokens: latest.requestTokens, line: 5 })
      expect(fork.breaks).to.deep.equal([])
      expect(next.reusableBytes).to.equal(latest.requestBytes)
      expect(next.breaks).to.deep.equal([])
    })
  }

  it('the text report marks the fork and leaves it out of the conversation\'s total', async () => {
    const result = await replayDeployment(DEPLOYMENT, parseReplayScript(SCRIPT, 's.yml'), { boot: QUIET })
    const stdout = new PassThrough()
    let text = ''
    stdout.on('data', (chunk) => { text += String(chunk) })
    printReplay(new Output({ stdout, stderr: new PassThrough(), env: {}, color: false }), result)
    expect(text).to.match(/\n\s*3 .*fork title\s*\n/)
    const own = result.turns.filter((t) => !t.side)
    const total = own.reduce((sum, t) => sum + t.requestTokens, 0)
    expect(text).to.contain(`of ${total.toLocaleString('en-US')} request tokens`)
  })

  it('a fork without its instruction is a script problem at its line; a fork before any request fails its turn with AGENT_FORK_NO_REQUEST', async () => {
    const bad = (() => {
      try {
        return parseReplayScript('turns:\n  - user: hi\n  - fork: { kind: title }\n', 's.yml')
      } catch (error) {
        return error as { code: string; details: { problems: Array<{ code: string; line: number; details: { key: string } }> } }
      }
    })() as { code: string; details: { problems: Array<{ code: string; line: number; details: { key: string } }> } }
    expect(bad.code).to.equal('CLI_REPLAY_SCRIPT_INVALID')
    expect(bad.details.problems.map((p) => [p.code, p.line, p.details.key])).to.deep.equal([['CLI_REPLAY_WRONG_TYPE', 3, 'fork.instruction']])
    const early = await replayDeployment(DEPLOYMENT, parseReplayScript('turns:\n  - fork: { kind: title, instruction: Name it. }\n', 's.yml'), { boot: QUIET })
      .catch((error: Error & { code?: string; details?: { cause?: string } }) => error)
    expect(early).to.deep.include({ code: 'CLI_REPLAY_TURN_FAILED' })
    expect((early as { details: { cause?: string } }).details.cause).to.equal('AGENT_FORK_NO_REQUEST')
  })
})
