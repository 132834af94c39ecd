import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect } from 'chai'
import { MAX_PENDING_MEASURES, type Agent } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const PROBE = fileURLToPath(new URL('./lazy-counts-probe.ts', import.meta.url))

async function probe(...args: string[]): Promise<{ after: { tokenizers: string[] }; read?: { tokenizers: string[]; requestTokens: number; reported: number } }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx/esm', PROBE, ...args], { cwd: ROOT })
  return JSON.parse(stdout.trim().split('\n').pop()!)
}

const USAGE = { inputTokens: 40, cachedReadTokens: 0, cacheWriteTokens: null, outputTokens: 3 }

/** Three steps of `agent` with a recorded reply between them; `read` reads each step's figures as it comes. */
async function converse(agent: Agent, read: boolean) {
  const steps = []
  for (const input of ['One.', 'Two.', 'Three.']) {
    const step = await agent.stepDetailed(input, { format: 'anthropic' })
    if (read) void step.report.requestTokens
    steps.push(step)
    agent.record({ role: 'assistant', content: `Answer to ${input}` }, { usage: USAGE })
  }
  return steps
}

describe('dsh-agent: token counts are made when first read (R-CACHE-10)', () => {
  it('the first steps of a fresh process load no tokenizer until a count is read, and the count read then is the real one', async () => {
    const quiet = await probe()
    expect(quiet.after.tokenizers, 'tokenizers loaded by two steps that read no count').to.deep.equal([])
    const read = await probe('read')
    expect(read.after.tokenizers).to.deep.equal([])
    expect(read.read!.tokenizers).to.deep.equal(['o200k_base'])
    expect(read.read!.requestTokens).to.be.greaterThan(10)
    expect(read.read!.reported, 'the usage recorded before the report was read').to.equal(0)
  })

  it('memory stays bounded: once MAX_PENDING_MEASURES (64) steps of an agent wait unread, they are measured (the tokenizer loads then)', async () => {
    expect(MAX_PENDING_MEASURES).to.equal(64)
    expect((await probe(String(MAX_PENDING_MEASURES - 2))).after.tokenizers, '64 steps').to.deep.equal([])
    expect((await probe(String(MAX_PENDING_MEASURES - 1))).after.tokenizers, '65 steps').to.deep.equal(['o200k_base'])
  })

  it('reports and budgets read late, newest first, equal those read at each step, reconciled usage included', async () => {
    const { host } = await bootApp({ systemPrompt: { persona: 'Persona for {{model}}.' }, tools: true, agents: true })
    host.tools.register(tool('read', { guidance: 'Read before you edit.' }))
    const eager = await converse(await host.agents.create({ id: 'eager', model: 'claude-sonnet-4', provider: 'anthropic' }), true)
    const late = await converse(await host.agents.create({ id: 'late', model: 'claude-sonnet-4', provider: 'anthropic' }), false)
    const figures = (steps: typeof eager) => steps.map((step) => ({ report: step.report, budget: step.budget }))
    const lateFigures = figures([...late].reverse()).reverse()
    expect(lateFigures).to.deep.equal(figures(eager))
    expect(lateFigures.map((f) => f.report.reportedCachedTokens)).to.deep.equal([0, 0, 0])
    expect(lateFigures[2].report.reusableTokens).to.be.greaterThan(0)
  })

  it('a fork after steps whose figures were never read measures against the latest request', async () => {
    const { host } = await bootApp({ systemPrompt: { persona: 'Persona.' }, tools: true, agents: true })
    const eager = await host.agents.create({ id: 'eager', model: 'gpt-4.1', provider: 'openai' })
    const late = await host.agents.create({ id: 'late', model: 'gpt-4.1', provider: 'openai' })
    for (const agent of [eager, late]) {
      for (const input of ['One.', 'Two.']) {
        const step = await agent.stepDetailed(input)
        if (agent === eager) void step.report
      }
    }
    const fork = async (agent: Agent) => (await agent.fork({ kind: 'compact', instruction: 'Summarise.' })).report
    expect(await fork(late)).to.deep.equal(await fork(eager))
    expect((await fork(late)).reusableBytes).to.be.greaterThan(0)
  })
})
