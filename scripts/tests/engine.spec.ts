// The engine tier (issue 25): dsh's cache predictions checked against a real KV cache. llama.cpp's
// server (built once per machine by scripts/engine/build-llama-server.sh, cached outside the checkout)
// serves a tiny model generated here (dsh-testing's tinyModel: byte-level vocabulary, dsh's chat
// template); the bundled replay script plays through it in the Chat Completions, Responses and
// Anthropic Messages shapes, and every request's predicted cached tokens must equal what the server
// reports. The binary missing is a failure naming the build script, never a skip.
import { expect } from 'chai'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { writeTinyModel } from 'dsh-testing'
import { BREAK_CAUSES, llamaCppFamily, normalizeUsage, registerProvider, type UsageFormat, type WireFormat } from 'dsh-wire'
import { replayDeployment, type ReplayRequest, type ReplayResult } from '../../packages/cli/src/commands/replay.js'
import { readReplayScript } from '../../packages/cli/src/replay-script.js'
import { startLlamaServer, type LlamaServer } from './engine/llama-server.js'

const run = promisify(execFile)
/** Noon, so a replay's own seconds never cross midnight. */
const NOON = Date.UTC(2026, 11, 1, 12)
const QUIET = { logLevel: 'silent' as const, env: {} }
/** The replay's longest request is 21,666 tokens (one byte, one token). */
const CONTEXT = 32_768

/** Where each shape goes, its usage shape, and how its body asks for one token of reply. */
const SHAPES: Record<string, { path: string; usage: UsageFormat; short: Record<string, number> }> = {
  'openai-chat': { path: '/v1/chat/completions', usage: 'openai-chat', short: { max_tokens: 1 } },
  'openai-responses': { path: '/v1/responses', usage: 'openai-responses', short: { max_output_tokens: 1 } },
  anthropic: { path: '/v1/messages', usage: 'anthropic', short: { max_tokens: 1 } },
}

describe('engine tier: dsh\'s predictions against llama.cpp\'s server and a tiny generated model (issue 25)', function () {
  // Bounded only to catch a hang: the tier takes seconds once the binary is built.
  this.timeout(600_000)
  let dir: string
  let model: string
  let unregister: () => void
  let server: LlamaServer | undefined

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-engine-'))
    model = await writeTinyModel(join(dir, 'tiny.gguf'), { contextLength: CONTEXT })
    unregister = registerProvider(llamaCppFamily({ model }))
  })
  after(() => {
    unregister?.()
    rmSync(dir, { recursive: true, force: true })
  })
  // A fresh server for each test: its one slot starts empty, as the replay's first request predicts.
  beforeEach(async () => { server = await startLlamaServer(model, CONTEXT) })
  afterEach(async () => { await server?.stop() })

  const send = (extra: Record<string, unknown> = {}) => async (request: ReplayRequest) => {
    const shape = SHAPES[request.format]
    const answer = await server!.post(shape.path, { ...JSON.parse(request.body), ...shape.short, ...extra })
    return { usage: answer.usage, shape: shape.usage }
  }
  const replay = async (format: WireFormat, extra?: Record<string, unknown>): Promise<ReplayResult> =>
    replayDeployment('examples/coding-agent/deployment.yml', await readReplayScript('examples/coding-agent/replay.yml'), {
      format, policy: 'replace', cacheRules: 'llama.cpp', start: NOON, boot: QUIET, send: send(extra),
    })

  for (const format of Object.keys(SHAPES) as WireFormat[]) {
    it(`${format}: the coding-agent replay's 44 requests, each predicted exactly as the server reports it, no mismatch; the three breaks under replace lower the server's reuse`, async () => {
      const result = await replay(format)
      expect(result.turns).to.have.length(44)
      expect(result.turns[0].tokenizer).to.equal('tiny.gguf vocabulary')
      expect(result.turns.map((t) => [t.turn, t.reportedCachedTokens])).to.deep.equal(result.turns.map((t) => [t.turn, t.predictedCachedTokens]))
      expect(result.turns.filter((t) => t.mismatch !== undefined)).to.deep.equal([])
      const broken = result.turns.filter((t) => t.breaks.length)
      // The persona edited, the write tool turned on (its guidance section comes first in the OpenAI shapes), the day rolled over.
      expect(broken.map((t) => t.turn)).to.deep.equal([17, 26, 34])
      expect(broken.every((t) => BREAK_CAUSES.some((cause) => t.breaks[0].cause.startsWith(cause)))).to.equal(true)
      for (const t of broken) expect(t.reportedCachedTokens, `turn ${t.turn}`).to.be.below(result.turns[t.turn - 2].requestTokens)
    })
  }

  it('"cache_prompt": false is a control: that request reuses nothing, its turn names the miss, and the next request is served as predicted again', async () => {
    const CONTROL = 10
    const result = await replayDeployment('examples/coding-agent/deployment.yml', await readReplayScript('examples/coding-agent/replay.yml'), {
      format: 'openai-chat', policy: 'replace', cacheRules: 'llama.cpp', start: NOON, boot: QUIET,
      send: async (request) => send(request.turn === CONTROL ? { cache_prompt: false } : {})(request),
    })
    const control = result.turns[CONTROL - 1]
    expect(control.predictedCachedTokens).to.be.above(10_000)
    expect(control.reportedCachedTokens).to.equal(0)
    expect(control.mismatch).to.match(/^cache miss: /)
    const others = result.turns.filter((t) => t.turn !== CONTROL)
    expect(others.map((t) => t.reportedCachedTokens)).to.deep.equal(others.map((t) => t.predictedCachedTokens))
  })

  it('the harness example\'s engine mode (examples/harness/engine.ts) runs its turns against the server, every prediction equal to the server\'s figure', async () => {
    const { stdout } = await run(process.execPath, ['--conditions=source', '--import', 'tsx/esm', 'examples/harness/engine.ts'], {
      env: { ...process.env, DSH_LLAMA_SERVER: server!.url, DSH_LLAMA_MODEL: model },
    })
    expect(stdout.trim().split('\n').at(-1)).to.equal('ok: 4 requests, every prediction equal to the server\'s figure')
    expect(stdout).to.match(/^request 2: \d+ prompt tokens, predicted (\d+) cached, the server reported \1$/m)
  })

  it('a request the slot holds whole reuses all but its last token (L2), as predicted', async () => {
    const body = { messages: [{ role: 'system', content: 'You answer in one word.' }, { role: 'user', content: 'Hello' }], max_tokens: 1 }
    const first = await server!.post('/v1/chat/completions', body)
    const again = await server!.post('/v1/chat/completions', body)
    const prompt = normalizeUsage('openai-chat', first.usage).inputTokens!
    expect(normalizeUsage('openai-chat', first.usage).cachedReadTokens).to.equal(0)
    expect(normalizeUsage('openai-chat', again.usage).cachedReadTokens).to.equal(prompt - 1)
    expect((again.timings as { cache_n: number }).cache_n).to.equal(prompt - 1)
  })
})
