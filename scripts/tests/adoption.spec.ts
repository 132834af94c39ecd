/**
 * What a harness author does first, run as tests so CI runs them and counts them (they come last: the
 * spec globs of `.mocharc.yml` list `scripts/tests` after the packages): the CLI from the repository
 * root, the harness example, and the packaging test (`scripts/packaging-test.mjs`, which prints its
 * steps as it goes).
 */
import { spawn } from 'node:child_process'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'

const REPO = fileURLToPath(new URL('../../', import.meta.url))

/** Yarn as the test run was started with (`yarn test` sets npm_execpath), else the `yarn` on PATH. */
const YARN = process.env.npm_execpath && basename(process.env.npm_execpath) === 'yarn' ? process.env.npm_execpath : 'yarn'

/** Runs a command from the repository root without mocha's `NODE_OPTIONS`; `show` also prints its output live. */
function run(command: string, args: readonly string[], show = false): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { NODE_OPTIONS: _, ...env } = process.env
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; if (show) process.stdout.write(chunk) })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; if (show) process.stderr.write(chunk) })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('adopting dsh: what a harness author runs first', function () {
  this.timeout(10 * 60_000)

  it('yarn dsh-prompt runs the CLI from the repository root, from its TypeScript sources (no build needed)', async () => {
    const result = await run(YARN, ['dsh-prompt', 'check', 'examples/minimal/deployment.yml'])
    expect([result.code, result.stdout, result.stderr]).to.deep.equal([0, 'ok: examples/minimal/deployment.yml: 2 plugins; 1 agent (assistant) assembled, rendered twice and checked: no problem found\n', ''])
  })

  it('yarn harness runs the harness example: six turns, one with a tool call, checked by its mock server, then a long conversation compacted through a fork', async () => {
    const result = await run(YARN, ['harness'])
    expect(result.code, result.stdout + result.stderr).to.equal(0)
    // The epoch's figures count the notes folder's path ({{cwd}}), so they depend on where the repository
    // is checked out: the compaction's lines are matched by shape, and the prediction against the report.
    const lines = result.stdout.trim().split('\n').slice(-12)
    const compacted = /^compacted: 34 messages -> 7 \(30 summarised through a compact fork\); offered stable-opening ([\d,.]+) now \+ ([\d,.]+)\/request; new-opening \1 now \+ \2\/request; chose stable-opening$/
    const epoch = /^ok: epoch 1: stable-opening, predicted ([\d,.]+) now \(\+[\d,.]+\/request\), reported ([\d,.]+)$/
    expect(lines[6]).to.match(compacted)
    expect(lines[11]).to.match(epoch)
    expect(lines.filter((_, i) => i !== 6 && i !== 11)).to.deep.equal([
      'ok: 6 turns, 7 requests, 18 messages in the record (1 system prompt, 3 runtime-context snapshots)',
      'openai-chat: From the notes: - 0.1.0: the first release that installs outside the repository. (2 requests, the answer streamed)',
      ...([['openai-responses', 'cache_hit'], ['anthropic', 'no divergence'], ['gemini', undefined]] as const).map(([format, diagnosis]) =>
        `${format}: From the notes: - 0.1.0: the first release that installs outside the repository. (2 requests, the answer streamed; the reasoning state recorded and sent back${diagnosis ? `; the provider's cache diagnosis (${diagnosis}) agrees with dsh's` : ''})`),
      "ok: 4 formats, 8 requests, every reply recorded through its format's reader (each answer streamed)",
      'after the compaction: What was item 8 again?',
      '  -> Noted: What was item 8 again?',
      'after the compaction: Thanks, that is all.',
      '  -> Noted: Thanks, that is all.',
    ])
    // The re-anchor's predicted cost is under the mock's reported one and within 15% of it (docs/sessions.md):
    // the reported request also carries the next input, and the mock counts the whole JSON body's characters / 4.
    // The gap grows with the checkout's path (measured 9.9% to 10.3% for paths of 6 to 45 characters).
    const [predicted, reported] = epoch.exec(lines[11])!.slice(1).map((figure) => Number(figure.replaceAll(',', '')))
    expect(predicted).to.be.below(reported)
    expect(reported - predicted).to.be.at.most(0.15 * reported)
  })

  it('the packaging test passes: packed, installed outside the workspace, imported, run and type-checked there', async () => {
    const result = await run(process.execPath, ['scripts/packaging-test.mjs'], true)
    expect(result.code, result.stderr).to.equal(0)
    expect(result.stdout).to.match(/\npackaging test passed in [\d.]+ s\n$/)
  })
})
