import { expect } from 'chai'
import { longestEncoded as encoderSpy } from 'dsh-testing'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bootDeployment } from 'dsh-boot'
import { MAX_PIECE } from 'dsh-wire'
import { replayDeployment } from '../src/commands/replay.js'
import { explain } from '../src/explanation.js'
import { parseReplayScript } from '../src/replay-script.js'
import { loadTokenizer } from '../src/tokens.js'
import { pickTarget, viewOf } from '../src/view.js'
import { fixture, QUIET } from './helpers.js'

// Issue 20, item 1: a tool result or a section holding one long unbroken run (minified code, base64, a
// hex dump) made every count quadratic: a step, render, explain and replay took minutes. The tests count
// the work, never the time: the longest text gpt-tokenizer's encoder is handed at once.

/** The longest text handed to gpt-tokenizer's encoder while `body` runs; one far over the bound fails at once. */
const longestEncoded = (body: () => unknown) => encoderSpy(body, 16 * MAX_PIECE)

const RUN = 'q'.repeat(256 * 1024)

describe('dsh-prompt: token counts of texts with a long unbroken run', () => {
  it('replay of a 256 KB tool result hands the encoder only bounded pieces, and reports its tokens', async () => {
    const script = parseReplayScript([
      'turns:',
      '  - user: Dump it.',
      '  - assistant:',
      '    tool_calls:',
      '      - { name: bash, arguments: { command: cat blob } }',
      `  - tool: { name: bash, result: ${RUN} }`,
      '  - assistant: Done.',
    ].join('\n'), 'blob.yml')
    let tokens = 0
    const longest = await longestEncoded(async () => {
      const result = await replayDeployment(fixture('replay-deployment.yml'), script, { boot: QUIET })
      tokens = result.turns.at(-1)!.requestTokens
    })
    expect(longest).to.be.at.most(MAX_PIECE)
    expect(tokens).to.be.greaterThan(RUN.length / 16)
  })

  it('explain of a persona holding a 256 KB run hands the encoder only bounded pieces (the agent\'s step included)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-run-'))
    const file = join(dir, 'deployment.yml')
    writeFileSync(file, [
      'plugins:',
      '  - name: dsh-system-prompt',
      `    config: { includeHarnessIdentity: false, persona: ${RUN} }`,
      '  - name: dsh-tools',
      '  - name: dsh-agent',
      'agents:',
      '  - { id: main, model: gpt-4o }',
    ].join('\n'))
    const booted = await bootDeployment(file, { ...QUIET, })
    try {
      let tokens = 0
      const longest = await longestEncoded(async () => {
        const view = await viewOf(booted, pickTarget(booted, 'main'))
        tokens = explain(booted, view, await loadTokenizer()).totals.all.tokens
      })
      expect(longest).to.be.at.most(MAX_PIECE)
      expect(tokens).to.be.greaterThan(RUN.length / 16)
      // The count had to cut the run: explain names the section whose count is an estimate.
      const view = await viewOf(booted, pickTarget(booted, 'main'))
      expect(explain(booted, view, await loadTokenizer()).estimatedTokens).to.deep.equal(['section "deployment:persona"'])
    } finally {
      await booted.dispose()
    }
  })
})
