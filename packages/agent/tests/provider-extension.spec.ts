import { expect } from 'chai'
import type { Context } from 'cordis'
import type { Agent } from 'dsh-agent'
import { bootApp, thrown, tool } from 'dsh-testing'
import { buildRequest, cacheStream, normalizeUsage, registerProvider, registerWireFormat, WireSession } from 'dsh-wire'
import { echoFamily } from './extension/echo-provider.js'
import { linesFormat } from './extension/lines-format.js'

// Issue 19: a format and a provider family added in test code alone (a file each, plus the two
// registry lines below) give bodies, reports and usage through the normal API.

describe('dsh-agent: a wire format and a provider family added from outside the packages', () => {
  let harness: Context
  let agent: Agent
  const disposers: (() => void)[] = []
  before(() => {
    disposers.push(registerWireFormat(linesFormat), registerProvider(echoFamily))
  })
  after(() => {
    for (const dispose of disposers.reverse()) dispose()
  })
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: 'Be terse and exact.' }, tools: true, agents: true }))
    harness.tools.register(tool('read'))
    agent = await harness.agents.create({ id: 'liner', model: 'line-1', provider: 'echo' })
  })

  it('a step in the new format returns its body, byte for byte the JSON of its request', async () => {
    const step = await agent.stepDetailed('Hello there.', { format: 'lines' })
    expect(step.request.prompt).to.include('Be terse and exact.')
    expect(step.request.tools?.map((t) => t.name)).to.deep.equal(['read'])
    expect(step.request.lines.at(-1)).to.deep.equal({ speaker: 'user', text: 'Hello there.' })
    expect(step.body).to.equal(JSON.stringify(step.request))
    expect(buildRequest('lines', { record: agent.conversation, tools: step.assembly.tools, model: 'line-1', promptChange: 'append' })).to.deep.equal(step.request)
  })

  it('step by step, its bodies equal a plain lowering of the whole record through the module (sent entries, the opening split off)', async () => {
    for (const [i, text] of ['one', 'two', 'three'].entries()) {
      const step = await agent.stepDetailed(text, { format: 'lines' })
      const sent = agent.conversation.filter((item) => item.source !== 'system-prompt' || item === agent.conversation[0])
      const plain = linesFormat.body({ record: agent.conversation, tools: step.assembly.tools, model: 'line-1', promptChange: 'append' }, sent[0], sent.slice(1).flatMap((item) => [...linesFormat.lower(item, () => undefined)]))
      expect(step.body, `step ${i}`).to.equal(JSON.stringify(plain))
      agent.record({ role: 'assistant', content: `reply ${i}` })
    }
  })

  it('the reuse report follows the agent\'s family: its tokenizer, its unit (E1) and its limit', async () => {
    const first = await agent.stepDetailed('one two three four five six seven', { format: 'lines' })
    expect(first.report).to.include({ format: 'lines', provider: 'echo', tokenizer: 'words', turn: 1 })
    expect(first.report.requestBytes).to.equal(cacheStream('lines', first.request).bytes)
    agent.record({ role: 'assistant', content: 'eight nine ten eleven' })
    const second = await agent.stepDetailed('twelve', { format: 'lines' })
    expect(second.report.reusableBytes).to.equal(first.report.requestBytes)
    expect(second.report.reusableTokens).to.equal(first.report.requestTokens)
    expect(second.report.predictedCachedTokens).to.equal(Math.floor(second.report.reusableTokens / 10) * 10)
    if (second.report.predictedCachedTokens < second.report.reusableTokens) expect(second.report.limit).to.equal('unit granularity: whole 10-token tens (E1)')
  })

  it('the family\'s usage shape reads through normalizeUsage and agent.record, and its mismatch words explain the report', async () => {
    expect(normalizeUsage('echo', { in: 40, hit: 30, out: 5 })).to.deep.equal({ inputTokens: 40, cachedReadTokens: 30, cacheWriteTokens: null, outputTokens: 5 })
    await agent.stepDetailed('a b c d e f g h i j k l', { format: 'lines' })
    agent.record({ role: 'assistant', content: 'ok' })
    const { report } = await agent.stepDetailed('m', { format: 'lines' })
    agent.record({ role: 'assistant', content: 'done' }, { usage: { in: report.requestTokens, hit: report.predictedCachedTokens + 3, out: 1 }, format: 'echo' })
    expect(report.reportedCachedTokens).to.equal(report.predictedCachedTokens + 3)
    expect(report.mismatch).to.equal('unit granularity: echo serves whole tens (E1)')
    expect(agent.conversation.at(-1)!.usage).to.deep.equal({ inputTokens: report.requestTokens, cachedReadTokens: report.predictedCachedTokens + 3, cacheWriteTokens: null, outputTokens: 1 })
  })

  it('cacheRules names the new family for a built-in format too, and a second registration of a name is refused', async () => {
    const { report } = await agent.stepDetailed('Hi.', { format: 'openai-chat', cacheRules: 'echo' })
    expect(report).to.include({ format: 'openai-chat', provider: 'echo', tokenizer: 'words' })
    expect(thrown(() => registerWireFormat(linesFormat))).to.include({ code: 'WIRE_DUPLICATE_FORMAT' })
    expect(thrown(() => registerProvider(echoFamily))).to.include({ code: 'WIRE_DUPLICATE_PROVIDER' })
  })

  it('once disposed, the format is unknown again (WIRE_UNKNOWN_FORMAT) and the family too (AGENT_UNKNOWN_CACHE_RULES)', async () => {
    const again = [registerWireFormat({ ...linesFormat, name: 'lines-2' as 'lines' }), registerProvider({ ...echoFamily, name: 'echo-2' as 'echo' })]
    expect(new WireSession('lines-2' as 'lines').build({ record: [], tools: [], model: 'm', promptChange: 'append' }).body).to.equal('{"model":"m","lines":[]}')
    for (const dispose of again) dispose()
    expect(thrown(() => new WireSession('lines-2' as 'lines'))).to.include({ code: 'WIRE_UNKNOWN_FORMAT' })
    const error = await agent.stepDetailed('x', { cacheRules: 'echo-2' as 'echo' }).catch((e: unknown) => e)
    expect(error).to.include({ code: 'AGENT_UNKNOWN_CACHE_RULES' })
  })
})
