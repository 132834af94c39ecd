import { expect } from 'chai'
import { replayDeployment } from '../src/commands/replay.js'
import { parseReplayScript } from '../src/replay-script.js'
import { fixture, scriptProblems, QUIET } from './helpers.js'

const DEPLOYMENT = fixture('replay-deployment.yml')
const SCRIPT = [
  'turns:',
  '  - user: Hello.',
  '  - assistant: Hello.',
  '  - tools: { hide: [bash] }',
  '  - user: Run the tests.',
  '  - assistant: I cannot run commands now.',
  '  - tools: { show: [bash] }',
  '  - user: Try again.',
  '',
].join('\n')

describe('dsh-prompt replay: tools turns hide and show tools (issue 21)', () => {
  for (const format of ['openai-chat', 'anthropic'] as const) {
    it(`a hidden tool stays declared and inert with its guidance kept, with no break; shown again it is declared as before (${format})`, async () => {
      const result = await replayDeployment(DEPLOYMENT, parseReplayScript(SCRIPT, 's.yml'), { boot: QUIET, format })
      expect(result.turns.map((t) => t.changes)).to.deep.equal([[], ['hide bash'], ['show bash']])
      expect(result.turns.map((t) => t.breaks.length)).to.deep.equal([0, 0, 0])
      expect(result.turns[1].toolChanges).to.deep.equal([{ tool: 'bash', kind: 'removed', owner: 'dsh-plugin-shell', handling: 'inert', breaks: false, cost: 0,
        kept: [{ section: 'tool:bash', owner: 'dsh-plugin-shell' }],
      }])
      expect(result.turns[2].toolChanges).to.equal(undefined)
    })
  }

  it('a tools turn needs a list of names in hide or show (CLI_REPLAY_WRONG_TYPE at its line)', () => {
    expect(scriptProblems('turns:\n  - user: hi\n  - tools: { hide: 3 }\n')).to.deep.equal([
      's.yml:3:20: turns[1] (tools): "tools.hide" must be a list of tool names (hide: the agent no longer sees them; show: it sees them again), found a number (3)',
    ])
  })
})
