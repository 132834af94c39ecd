import { expect } from 'chai'
import { PassThrough } from 'node:stream'
import { printReplay, replayDeployment } from '../src/commands/replay.js'
import { Output } from '../src/output.js'
import { parseReplayScript } from '../src/replay-script.js'
import { EXAMPLE, fixture, QUIET } from './helpers.js'

const DEPLOYMENT = fixture('replay-deployment.yml')
const script = (start: string) => parseReplayScript([
  'turns:',
  '  - user: Hello.',
  '  - assistant: Hello. What shall we do?',
  '  - user: List the files.',
  `  - subagent: { id: scout, start: ${start}, task: Count the files. }`,
  '  - assistant: There is one file.',
  '  - user: Thanks.',
  '',
].join('\n'), 's.yml')

describe('dsh-prompt replay: subagent turns (issue 21)', () => {
  for (const format of ['openai-chat', 'anthropic'] as const) {
    it(`a sub-agent started from the agent repeats its latest request and is credited it; the agent's next request is measured against its own (${format})`, async () => {
      const result = await replayDeployment(DEPLOYMENT, script('parent'), { boot: QUIET, format })
      expect(result.turns.map((t) => t.subagent)).to.deep.equal([undefined, undefined, { id: 'scout', start: 'parent' }, undefined])
      const [, latest, child, next] = result.turns
      expect(child).to.deep.include({ reusableBytes: latest.requestBytes, reusableTokens: latest.requestTokens, line: 5, side: { kind: 'subagent' }, breaks: [] })
      expect(next.reusableBytes).to.equal(latest.requestBytes)
      expect(next.breaks).to.deep.equal([])
    })
  }

  it('the text report marks the sub-agent\'s row with its id and start; a fresh one claims nothing', async () => {
    const result = await replayDeployment(DEPLOYMENT, script('fresh'), { boot: QUIET })
    expect(result.turns[2]).to.include({ reusableBytes: 0, predictedCachedTokens: 0 })
    const stdout = new PassThrough()
    let text = ''
    stdout.on('data', (chunk) => { text += String(chunk) })
    printReplay(new Output({ stdout, stderr: new PassThrough(), env: {}, color: false }), result)
    expect(text).to.match(/\n\s*3 .*subagent scout \(fresh\)\s*\n/)
  })

  it('a sub-agent works where its parent works: its parent\'s provider and cwd ({{cwd}} in the coding agent\'s persona)', async () => {
    const turns = 'turns:\n  - user: Find the failing test.\n  - subagent: { id: scout, start: parent, task: Read the test log. }\n'
    const result = await replayDeployment(EXAMPLE.coding, parseReplayScript(turns, 's.yml'), { boot: { logLevel: 'silent', env: { DSH_CWD: '/srv/app' } } })
    const [parent, child] = result.turns
    expect(child).to.deep.include({ provider: parent.provider, reusableTokens: parent.requestTokens, breaks: [], subagent: { id: 'scout', start: 'parent' } })
  })

  it('a subagent turn with an unknown start is a script problem at its line; a parent start before any request fails its turn with AGENT_START_NO_REQUEST', async () => {
    const bad = (() => {
      try {
        return parseReplayScript('turns:\n  - user: hi\n  - subagent: { id: scout, start: forked, task: Go. }\n', 's.yml')
      } catch (error) {
        return error
      }
    })() as { code: string; details: { problems: Array<{ code: string; line: number; details: { key: string } }> } }
    expect(bad.code).to.equal('CLI_REPLAY_SCRIPT_INVALID')
    expect(bad.details.problems.map((p) => [p.code, p.line, p.details.key])).to.deep.equal([['CLI_REPLAY_WRONG_TYPE', 3, 'subagent.start']])
    const early = await replayDeployment(DEPLOYMENT, parseReplayScript('turns:\n  - subagent: { id: scout, start: parent, task: Go. }\n', 's.yml'), { boot: QUIET })
      .catch((error: Error & { code?: string; details?: { cause?: string } }) => error)
    expect(early).to.deep.include({ code: 'CLI_REPLAY_TURN_FAILED' })
    expect((early as { details: { cause?: string } }).details.cause).to.equal('AGENT_START_NO_REQUEST')
  })

  it('replays a sub-agent row of agents: under another policy with the start it was declared with (its ledger keeps start and routing key)', async () => {
    const turns = parseReplayScript('turns:\n  - user: Hello.\n', 's.yml')
    const result = await replayDeployment(fixture('subagent-rows.yml'), turns, { boot: QUIET, agent: 'scratch', policy: 'replace', ledger: true })
    const header = JSON.parse(result.ledger!.split('\n')[0]) as { agent: string; promptChange: string; parent?: string; start?: string; routingKey?: string }
    expect(header).to.deep.include({ agent: 'scratch', promptChange: 'replace', parent: 'main', start: 'fresh', routingKey: 'main/scratch' })
  })
})

