import { expect } from 'chai'
import type { Context } from 'cordis'
import type { Agent, StepResult } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'
import { BREAK_CAUSES, cacheStream, type WireFormat } from 'dsh-wire'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(120)

describe('dsh-agent: the reuse report of every step (R-CACHE-2)', () => {
  let harness: Context
  let agent: Agent
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: `Persona for {{model}}. ${LONG}` }, tools: true, agents: true }))
    harness.tools.register(tool('read'))
    harness.systemPrompt.variable('mood', () => mood)
    harness.systemPrompt.section({ name: 'style', order: 10, text: 'Mood: {{mood}}.' })
    agent = await harness.agents.create({ id: 'coder', model: 'gpt-5' })
  })
  let mood = 'calm'
  afterEach(() => { mood = 'calm' })

  it('the first request reuses nothing; the next one reuses the whole previous request', async () => {
    const first = (await agent.stepDetailed('Hi.')).report
    expect(first).to.include({ format: 'openai-chat', provider: 'openai', turn: 1, reusableBytes: 0, reusableTokens: 0, predictedCachedTokens: 0, tokenizer: 'o200k_base' })
    expect(first.breaks).to.deep.equal([])
    agent.record({ role: 'assistant', content: 'Hello.' })
    const second = await agent.stepDetailed('More.')
    const previousBytes = first.requestBytes
    expect(second.report.turn).to.equal(2)
    expect(second.report.reusableBytes).to.equal(previousBytes)
    expect(second.report.requestBytes).to.equal(cacheStream('openai-chat', second.request).bytes)
    expect(second.report.requestBytes).to.be.greaterThan(previousBytes)
    expect(second.report.reusableTokens).to.equal(first.requestTokens)
    expect(second.report.breaks).to.deep.equal([])
  })

  it('OpenAI: predicts 1,024 tokens and whole 128-token steps of the shared prefix', async () => {
    await agent.stepDetailed('Hi.')
    const { report } = await agent.stepDetailed('More.')
    expect(report.reusableTokens).to.be.greaterThan(1024)
    expect(report.predictedCachedTokens).to.equal(1024 + Math.floor((report.reusableTokens - 1024) / 128) * 128)
  })

  it('a variable that changes breaks the prefix under replace, naming the section, its owner and the variable', async () => {
    const replacing = await harness.agents.create({ id: 'r', model: 'gpt-5', promptChange: 'replace' })
    await replacing.stepDetailed('Hi.')
    mood = 'stern'
    const { report } = await replacing.stepDetailed('Again.')
    expect(report.reusableBytes).to.be.lessThan(report.requestBytes)
    expect(report.breaks).to.have.length(1)
    expect(report.breaks[0]).to.deep.include({ message: 0, section: 'style', kind: 'section', owner: 'host', layer: 'global' })
    expect(report.breaks[0].cause).to.equal('variable value changed ({{mood}}) in section "style"')
  })

  it('the tokenizer label says estimate while the request holds a text whose count cut an unbroken run (issue 20), and budget.exact follows it', async () => {
    const plain = await agent.stepDetailed('Hi.')
    expect([plain.report.tokenizer, plain.budget.exact]).to.deep.equal(['o200k_base', true])
    agent.record({ role: 'assistant', content: 'Hello.' })
    const run = await agent.stepDetailed('x'.repeat(2000))
    expect(run.report.tokenizer).to.equal('o200k_base, estimate')
    expect(run.budget.exact).to.equal(false)
    agent.record({ role: 'assistant', content: 'Long.' })
    // The run is still in the request, counted at the step before: the label carries.
    expect((await agent.stepDetailed('More.')).report.tokenizer).to.equal('o200k_base, estimate')
  })

  it('under append the same change keeps the prefix: the new version is appended', async () => {
    await agent.stepDetailed('Hi.')
    mood = 'stern'
    const { report } = await agent.stepDetailed('Again.')
    expect(report.breaks).to.deep.equal([])
  })

  it('anthropic: a tool added breaks before the system prompt, because tools are hashed first', async () => {
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    harness.tools.register(tool('grep'))
    const { report } = await agent.stepDetailed('Again.', { format: 'anthropic' })
    expect(report.provider).to.equal('anthropic')
    expect(report.tokenizer).to.match(/^estimate/)
    expect(report.breaks[0]).to.deep.include({ message: null, section: 'grep', kind: 'tool', owner: 'host' })
    expect(report.breaks[0].cause).to.equal('tool added: "grep"')
  })

  it('a tool removed names the plugin that registered it, though its registration is gone (toolChange immediate)', async () => {
    const agent = await harness.agents.create({ id: 'immediate', model: 'gpt-5', toolChange: 'immediate' })
    const lender = await harness.plugin({ name: 'lender', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(tool('borrowed')) } })
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    await lender.dispose()
    const { report } = await agent.stepDetailed('Again.', { format: 'anthropic' })
    expect(report.breaks[0]).to.deep.include({ section: 'borrowed', kind: 'tool', owner: 'lender', layer: 'global', cause: 'tool removed: "borrowed"' })
  })

  it('a section removed, a section added and a model change each say so', async () => {
    const replacing = await harness.agents.create({ id: 'r', model: 'gpt-5', promptChange: 'replace' })
    await replacing.stepDetailed('Hi.')
    const extra = harness.systemPrompt.section({ name: 'extra', order: 5, text: 'Extra.' })
    expect((await replacing.stepDetailed('a')).report.breaks[0].cause).to.equal('section added: "extra"')
    extra()
    expect((await replacing.stepDetailed('b')).report.breaks[0].cause).to.equal('section removed: "extra"')
  })

  it('a system prompt cleared under append says so, in every format, wherever its bytes stood', async () => {
    for (const format of ['openai-chat', 'anthropic', 'gemini', 'openai-responses'] as const) {
      const { host } = await bootApp({ systemPrompt: { persona: 'Persona.' }, tools: true, agents: true })
      host.tools.register(tool('read'))
      const clearing = await host.agents.create({ id: `x-${format}`, model: 'gpt-5' })
      await clearing.stepDetailed('Hi.', { format })
      clearing.record({ role: 'assistant', content: 'Hello.' })
      host.on('system-prompt/assemble', (assembly, _c, next) => next({ ...assembly, sections: [] }))
      const { report } = await clearing.stepDetailed('Again.', { format })
      expect(report.breaks, format).to.have.length(1)
      expect(report.breaks[0].cause, format).to.equal('system prompt replaced: the instructions were cleared, so earlier versions are no longer sent')
    }
  })

  it('every cause starts with one of the classes of R-CACHE-6', async () => {
    const replacing = await harness.agents.create({ id: 'r', model: 'gpt-5', promptChange: 'replace' })
    await replacing.stepDetailed('Hi.')
    mood = 'odd'
    const { report } = await replacing.stepDetailed('x')
    expect(BREAK_CAUSES.some((cause) => report.breaks[0].cause.startsWith(cause))).to.equal(true)
  })

  it('deepseek rules for an agent whose provider is deepseek: whole 64-token units', async () => {
    const deep = await harness.agents.create({ id: 'd', model: 'deepseek-chat', provider: 'deepseek' })
    await deep.stepDetailed('Hi.')
    const { report } = await deep.stepDetailed('More.')
    expect(report.provider).to.equal('deepseek')
    expect(report.tokenizer).to.equal('deepseek-v3')
    expect(report.predictedCachedTokens).to.equal(Math.floor(report.reusableTokens / 64) * 64)
  })

  it('xai and moonshot rules for agents whose provider is xai or moonshot: whole 128-token blocks, whole 256-token chunks', async () => {
    for (const [provider, unit] of [['xai', 128], ['moonshot', 256]] as const) {
      const other = await harness.agents.create({ id: provider, model: 'm', provider })
      await other.stepDetailed('Hi.')
      const { report } = await other.stepDetailed('More.')
      expect(report.provider).to.equal(provider)
      expect(report.tokenizer).to.match(/^estimate \(o200k_base/)
      expect(report.predictedCachedTokens).to.equal(Math.floor(report.reusableTokens / unit) * unit)
    }
  })

  it('vllm and sglang rules for agents whose provider is a self-hosted engine: whole 16-token blocks, any token; a usage without cached tokens names the flag', async () => {
    for (const [provider, unit, flag] of [['vllm', 16, '--enable-prompt-tokens-details'], ['sglang', 1, '--enable-cache-report']] as const) {
      const engine = await harness.agents.create({ id: provider, model: 'Qwen/Qwen3-8B', provider })
      await engine.stepDetailed('Hi.')
      engine.record({ role: 'assistant', content: 'Hello.' }, { usage: { prompt_tokens: 1200, completion_tokens: 3 } })
      const { report } = await engine.stepDetailed('More.')
      expect(report.provider).to.equal(provider)
      expect(report.tokenizer).to.equal('estimate (o200k_base; the served model\'s tokenizer is not installed)')
      expect(report.predictedCachedTokens).to.equal(Math.floor(Math.min(report.reusableTokens, report.requestTokens - 1) / unit) * unit)
      engine.record({ role: 'assistant', content: 'Fine.' }, { usage: { prompt_tokens: 1300, completion_tokens: 2 } })
      expect(report.mismatch).to.include(flag)
    }
  })

  it('qwen rules: implicit on openai-chat (the shared prefix), explicit on anthropic, where the breakpoints are its cache markers', async () => {
    const qwen = await harness.agents.create({ id: 'q', model: 'qwen3-max', provider: 'qwen' })
    await qwen.stepDetailed('Hi.')
    const implicit = (await qwen.stepDetailed('More.')).report
    expect(implicit).to.include({ provider: 'qwen', predictedCachedTokens: implicit.reusableTokens })
    await qwen.stepDetailed('Unmarked.', { format: 'anthropic', breakpoints: false })
    qwen.record({ role: 'assistant', content: 'Hello.' })
    const marked = (await qwen.stepDetailed('Marked.', { format: 'anthropic' })).report
    expect(marked).to.include({ provider: 'qwen', predictedCachedTokens: 0, limit: 'no earlier request wrote a cache entry (Q2)' })
    expect(marked.reusableTokens).to.be.greaterThan(1024)
    qwen.record({ role: 'assistant', content: 'Hello again.' })
    const read = (await qwen.stepDetailed('More.', { format: 'anthropic' })).report
    expect(read.predictedCachedTokens).to.be.greaterThan(1024)
  })

  it('anthropic: the second request reads what the first one wrote at its breakpoints', async () => {
    const claude = await harness.agents.create({ id: 'c', model: 'claude-sonnet-4-5' })
    const first = (await claude.stepDetailed('Hi.', { format: 'anthropic' })).report
    expect(first.predictedCachedTokens).to.equal(0)
    claude.record({ role: 'assistant', content: 'Hello.' })
    const second = (await claude.stepDetailed('More.', { format: 'anthropic' })).report
    expect(second.predictedCachedTokens).to.be.greaterThan(1024)
    expect(second.predictedCachedTokens).to.be.at.most(second.reusableTokens)
  })

  it('says why the rules serve less than the shared prefix: a minimum, or every entry expired (limit)', async () => {
    const small = await bootApp({ systemPrompt: { persona: 'Short.' }, agents: true })
    const brief = await small.host.agents.create({ id: 'b', model: 'gpt-5' })
    await brief.stepDetailed('Hi.')
    const tiny = (await brief.stepDetailed('More.')).report
    expect(tiny).to.include({ predictedCachedTokens: 0, limit: 'below the minimum: OpenAI caches a prompt from 1024 tokens (O1)' })
    const claude = await harness.agents.create({ id: 'c', model: 'claude-sonnet-4-5' })
    await claude.stepDetailed('Hi.', { format: 'anthropic' })
    const realNow = Date.now
    const later = realNow() + 6 * 60_000
    Date.now = () => later
    try {
      const { report } = await claude.stepDetailed('More.', { format: 'anthropic' })
      expect(report.breaks).to.deep.equal([])
      expect(report).to.include({ predictedCachedTokens: 0, limit: 'every cache entry within the shared prefix has expired (A4)' })
    } finally {
      Date.now = realNow
    }
    expect((await agent.stepDetailed('x')).report).to.not.have.property('limit')
    const second = (await agent.stepDetailed('y')).report
    if (second.predictedCachedTokens < second.reusableTokens) expect(second.limit).to.equal('unit granularity: whole 128-token increments after the first 1024 (O2)')
    else expect(second).to.not.have.property('limit')
  })

  it('record(reply, { usage }) adds what the provider reported, and the likely reason when it differs', async () => {
    await agent.stepDetailed('Hi.')
    const step = await agent.stepDetailed('More.')
    agent.record({ role: 'assistant', content: 'ok' }, { usage: { inputTokens: 2000, cachedReadTokens: step.report.predictedCachedTokens, cacheWriteTokens: null, outputTokens: 3 } })
    expect(step.report.reportedCachedTokens).to.equal(step.report.predictedCachedTokens)
    expect(step.report).to.not.have.property('mismatch')
    const next = await agent.stepDetailed('Again.')
    agent.record({ role: 'assistant', content: 'ok' }, { usage: { inputTokens: 2000, cachedReadTokens: null, cacheWriteTokens: null, outputTokens: 3 } })
    expect(next.report.reportedCachedTokens).to.equal(null)
    expect(next.report.mismatch).to.match(/^not reported/)
    const third = await agent.stepDetailed('Once more.')
    agent.record({ role: 'assistant', content: 'ok' }, { usage: { inputTokens: 2000, cachedReadTokens: 0, cacheWriteTokens: null, outputTokens: 3 } })
    expect(third.report.mismatch).to.match(/^cache miss/)
  })

  it('emits agent/step with the agent and the result', async () => {
    const seen: Array<[string, number]> = []
    harness.on('agent/step', (who: Agent, result: StepResult<WireFormat>) => { seen.push([who.id, result.report.turn]) })
    await agent.stepDetailed('Hi.')
    await agent.step('Again.')
    expect(seen).to.deep.equal([['coder', 1], ['coder', 2]])
  })

  it('refuses rules it does not know', async () => {
    const error = await agent.stepDetailed('x', { cacheRules: 'cohere' as never }).catch((e: unknown) => e)
    expect(error).to.include({ code: 'AGENT_UNKNOWN_CACHE_RULES' })
    expect(agent.conversation).to.deep.equal([])
  })
})
