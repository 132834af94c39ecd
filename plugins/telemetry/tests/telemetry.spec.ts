import { expect } from 'chai'
import type { Context } from 'cordis'
import * as Conventions from '@opentelemetry/semantic-conventions/incubating'
import type { TracerProvider } from '@opentelemetry/api'
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, type ReadableSpan, type Sampler } from '@opentelemetry/sdk-trace-base'
import TelemetryPlugin, { Dsh, GenAi, GenAiValues, type ConfigInput } from 'dsh-plugin-telemetry'
import { bootApp } from 'dsh-testing'
import { tokenCounter } from 'dsh-wire'
import { memorySdk, type MemorySdk } from './otel.js'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(80)
/** Every name the conventions' package defines (attributes, metrics, values): what a `gen_ai.*` name must be one of. */
const CONVENTION_NAMES: ReadonlySet<string> = new Set(Object.values(Conventions as Record<string, unknown>).filter((value): value is string => typeof value === 'string'))
const USAGE = { inputTokens: 1200, cachedReadTokens: 1024, cacheWriteTokens: 64, outputTokens: 30 }

describe('dsh-plugin-telemetry: spans and metrics through an in-memory OpenTelemetry SDK (issue 23, item 5)', () => {
  let harness: Context
  let sdk: MemorySdk
  let mood: string
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, agents: true }))
    mood = 'calm'
    harness.systemPrompt.variable('mood', () => mood)
    harness.systemPrompt.section({ name: 'style', order: 10, text: 'Mood: {{mood}}.' })
    sdk = memorySdk()
  })

  const load = (config: ConfigInput = {}) => harness.plugin(TelemetryPlugin, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, ...config })
  const only = (spans: ReadableSpan[]) => {
    expect(spans).to.have.length(1)
    return spans[0]
  }

  it('writes each GenAI name exactly as the semantic conventions package defines it', () => {
    expect(GenAi).to.deep.equal({
      operationName: Conventions.ATTR_GEN_AI_OPERATION_NAME,
      providerName: Conventions.ATTR_GEN_AI_PROVIDER_NAME,
      requestModel: Conventions.ATTR_GEN_AI_REQUEST_MODEL,
      conversationId: Conventions.ATTR_GEN_AI_CONVERSATION_ID,
      agentId: Conventions.ATTR_GEN_AI_AGENT_ID,
      inputTokens: Conventions.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      outputTokens: Conventions.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      cacheReadInputTokens: Conventions.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      cacheCreationInputTokens: Conventions.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
      systemInstructions: Conventions.ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
      inputMessages: Conventions.ATTR_GEN_AI_INPUT_MESSAGES,
      tokenType: Conventions.ATTR_GEN_AI_TOKEN_TYPE,
      tokenUsage: Conventions.METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
    })
    expect(GenAiValues).to.deep.equal({
      chat: Conventions.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      input: Conventions.GEN_AI_TOKEN_TYPE_VALUE_INPUT,
      output: Conventions.GEN_AI_TOKEN_TYPE_VALUE_OUTPUT,
    })
  })

  it('a step and the usage recorded with its reply make one client span "chat <model>" with the conventions\' usage attributes (input tokens inclusive of cached ones) and dsh\'s predictions', async () => {
    await load()
    const agent = await harness.agents.create({ id: 'main', model: 'gpt-5' })
    const step = await agent.stepDetailed('Hi.')
    expect(sdk.spans()).to.deep.equal([]) // open until the reply's usage comes
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    const span = only(sdk.spans())
    expect(span.name).to.equal('chat gpt-5')
    expect(span.kind).to.equal(2 /* SpanKind.CLIENT */)
    expect(span.attributes).to.deep.include({
      [Conventions.ATTR_GEN_AI_OPERATION_NAME]: Conventions.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      [Conventions.ATTR_GEN_AI_PROVIDER_NAME]: Conventions.GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
      [Conventions.ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-5',
      [Conventions.ATTR_GEN_AI_CONVERSATION_ID]: 'main',
      [Conventions.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 1200,
      [Conventions.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 30,
      [Conventions.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 1024,
      [Conventions.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: 64,
      [Dsh.requestKind]: 'main',
      [Dsh.requestTokens]: step.report.requestTokens,
      [Dsh.predictedTokens]: step.report.predictedCachedTokens,
      [Dsh.reusableTokens]: 0,
      [Dsh.reportedTokens]: 1024,
      [Dsh.budgetAdvice]: step.budget.advice,
      [Dsh.breakCount]: 0,
    })
  })

  it('names every gen_ai.* attribute and metric it writes from the conventions\' own constants', async () => {
    await load({ content: true })
    const agent = await harness.agents.create({ id: 'main', model: 'claude-sonnet-4-5' })
    await agent.step('Hi.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    await agent.fork({ kind: 'title', instruction: 'Title this.', format: 'anthropic' })
    const names = [
      ...sdk.spans().flatMap((span) => [...Object.keys(span.attributes), ...span.events.flatMap((event) => Object.keys(event.attributes ?? {}))]),
      ...(await sdk.points()).flatMap((point) => [point.metric, ...Object.keys(point.attributes)]),
    ]
    const genAi = [...new Set(names.filter((name) => name.startsWith('gen_ai.')))]
    expect(genAi).to.have.length.above(10)
    expect(genAi.filter((name) => !CONVENTION_NAMES.has(name))).to.deep.equal([])
    expect(names.filter((name) => !name.startsWith('gen_ai.') && !name.startsWith('dsh.'))).to.deep.equal([])
  })

  it('records the two cache metrics and the conventions\' token usage by token type, per provider and model', async () => {
    await load()
    const agent = await harness.agents.create({ id: 'main', model: 'gemini-2.5-pro' })
    await agent.step('Hi.', { format: 'gemini' })
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    const common = { [Conventions.ATTR_GEN_AI_OPERATION_NAME]: 'chat', [Conventions.ATTR_GEN_AI_PROVIDER_NAME]: Conventions.GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI, [Conventions.ATTR_GEN_AI_REQUEST_MODEL]: 'gemini-2.5-pro' }
    expect(await sdk.points()).to.deep.equal([
      { metric: Conventions.METRIC_GEN_AI_CLIENT_TOKEN_USAGE, attributes: { ...common, [Conventions.ATTR_GEN_AI_TOKEN_TYPE]: 'input' }, sum: 1200, count: 1 },
      { metric: Conventions.METRIC_GEN_AI_CLIENT_TOKEN_USAGE, attributes: { ...common, [Conventions.ATTR_GEN_AI_TOKEN_TYPE]: 'output' }, sum: 30, count: 1 },
      { metric: Dsh.cacheReadUsage, attributes: common, sum: 1024, count: 1 },
      { metric: Dsh.cacheWriteUsage, attributes: common, sum: 64, count: 1 },
    ])
  })

  it('names the section, owner, layer and cause of the first break of the prefix', async () => {
    await load()
    const agent = await harness.agents.create({ id: 'main', model: 'gpt-5', promptChange: 'replace' })
    await agent.step('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    mood = 'tense'
    const step = await agent.stepDetailed('Again.')
    agent.record({ role: 'assistant', content: 'Hello again.' }, { usage: USAGE })
    const [first, second] = sdk.spans()
    expect(first.attributes[Dsh.breakCount]).to.equal(0)
    const broke = step.report.breaks[0]
    expect(broke.section).to.equal('style')
    expect(second.attributes).to.deep.include({
      [Dsh.breakCount]: step.report.breaks.length,
      [Dsh.breakSection]: 'style',
      [Dsh.breakKind]: broke.kind,
      [Dsh.breakOwner]: broke.owner,
      [Dsh.breakLayer]: broke.layer,
      [Dsh.breakCause]: broke.cause,
      [Dsh.reusableTokens]: step.report.reusableTokens,
    })
  })

  it('a fork is a span of its own, of kind fork, ended at once, and leaves the agent\'s open span open', async () => {
    await load()
    const agent = await harness.agents.create({ id: 'main', model: 'gpt-5' })
    await agent.step('Hi.')
    const fork = await agent.fork({ kind: 'compact', instruction: 'Summarise the conversation.' })
    const span = only(sdk.spans())
    expect(span.attributes).to.deep.include({ [Dsh.requestKind]: 'fork', [Dsh.forkKind]: 'compact', [Dsh.predictedTokens]: fork.report.predictedCachedTokens })
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    expect(sdk.spans().map((ended) => ended.attributes[Dsh.requestKind])).to.deep.equal(['fork', 'main'])
  })

  it('a sub-agent\'s request is of kind subagent', async () => {
    await load()
    const lead = await harness.agents.create({ id: 'lead', model: 'gpt-5' })
    const helper = await harness.agents.create({ id: 'helper', model: 'deepseek-chat', provider: 'deepseek', parent: lead })
    await helper.step('Look this up.')
    helper.record({ role: 'assistant', content: 'Found.' }, { usage: USAGE })
    expect(only(sdk.spans()).attributes).to.deep.include({ [Dsh.requestKind]: 'subagent', [Conventions.ATTR_GEN_AI_PROVIDER_NAME]: Conventions.GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK, [Conventions.ATTR_GEN_AI_AGENT_ID]: 'helper' })
  })

  it('a step whose reply brings no usage is ended, without usage attributes, by the agent\'s next step', async () => {
    await load()
    const agent = await harness.agents.create({ id: 'main', model: 'gpt-5' })
    await agent.step('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' })
    expect(sdk.spans()).to.deep.equal([])
    await agent.step('Again.')
    const span = only(sdk.spans())
    expect(span.attributes[Dsh.turn]).to.equal(1)
    expect(span.attributes).to.not.have.property(Conventions.ATTR_GEN_AI_USAGE_INPUT_TOKENS)
  })

  it('ends the open spans when the plugin is disposed', async () => {
    const fiber = await load()
    const agent = await harness.agents.create({ id: 'main', model: 'gpt-5' })
    await agent.step('Hi.')
    await fiber.dispose()
    expect(only(sdk.spans()).attributes[Dsh.requestKind]).to.equal('main')
  })

  it('gives a span nobody records (not sampled) nothing beyond its start attributes: no report figures, content, part events or usage', async () => {
    // The SDK's own tracer, its spans counted on their way out: which of a span's costly calls the plugin makes.
    const counted = (sampler: Sampler) => {
      const calls: string[] = []
      const sdkProvider = new BasicTracerProvider({ sampler })
      const provider: TracerProvider = {
        getTracer(...args) {
          const tracer = sdkProvider.getTracer(...args)
          return Object.assign(Object.create(tracer) as typeof tracer, {
            startSpan: (...start: Parameters<typeof tracer.startSpan>) => new Proxy(tracer.startSpan(...start), {
              get(span, key) {
                if (key === 'addEvent' || key === 'setAttributes') calls.push(key)
                const value = Reflect.get(span, key) as unknown
                return typeof value === 'function' ? value.bind(span) : value
              },
            }),
          })
        },
      }
      return { calls, provider }
    }
    const run = async (sampler: Sampler) => {
      const { calls, provider } = counted(sampler)
      const fiber = await harness.plugin(TelemetryPlugin, { tracerProvider: provider, meterProvider: sdk.meterProvider, content: true })
      const agent = await harness.agents.create({ id: `main-${sampler.toString()}`, model: 'gpt-5' })
      await agent.step('Hi.')
      agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
      await fiber.dispose()
      return calls
    }
    expect(await run(new AlwaysOffSampler())).to.deep.equal([])
    expect(await run(new AlwaysOnSampler())).to.include.members(['setAttributes', 'addEvent']).and.have.length.above(2)
  })

  it('adds one event per prompt part, with its owner, layer, hash and tokens', async () => {
    await load()
    const agent = await harness.agents.create({ id: 'main', model: 'gpt-5' })
    const step = await agent.stepDetailed('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    const events = only(sdk.spans()).events
    expect(events.map((event) => event.name)).to.deep.equal(step.rendered.sections.map(() => Dsh.partEvent).concat(step.rendered.contexts.map(() => Dsh.partEvent)))
    const style = events.find((event) => event.attributes?.[Dsh.partName] === 'style')
    expect(style?.attributes).to.deep.include({ [Dsh.partType]: 'section', [Dsh.partOwner]: 'host', [Dsh.partLayer]: 'global', [Dsh.partTokens]: (await tokenCounter(step.report.provider)).count('Mood: calm.') })
    expect(style?.attributes?.[Dsh.partHash]).to.match(/^[0-9a-f]{16}$/)
  })

  it('records no prompt content unless the deployment opts in', async () => {
    await load()
    const agent = await harness.agents.create({ id: 'main', model: 'gpt-5' })
    await agent.step('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    const attributes = only(sdk.spans()).attributes
    expect(attributes).to.not.have.property(Conventions.ATTR_GEN_AI_SYSTEM_INSTRUCTIONS)
    expect(attributes).to.not.have.property(Conventions.ATTR_GEN_AI_INPUT_MESSAGES)
  })

  it('with content: true, puts the system prompt in gen_ai.system_instructions and the messages after it in gen_ai.input.messages', async () => {
    await load({ content: true })
    const agent = await harness.agents.create({ id: 'main', model: 'gpt-5' })
    const step = await agent.stepDetailed('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: USAGE })
    const attributes = only(sdk.spans()).attributes
    expect(JSON.parse(String(attributes[Conventions.ATTR_GEN_AI_SYSTEM_INSTRUCTIONS]))).to.deep.equal([{ type: 'text', content: step.system }])
    const messages = JSON.parse(String(attributes[Conventions.ATTR_GEN_AI_INPUT_MESSAGES])) as { role: string }[]
    expect(messages.at(-1)).to.deep.equal({ role: 'user', parts: [{ type: 'text', content: 'Hi.' }] })
    expect(messages.map((message) => message.role)).to.not.include('system')
  })

  it('adds the provider\'s own miss reason, its class and whether it agrees with dsh\'s break (the diagnostics bridge), and the request\'s cost', async () => {
    await load()
    const agent = await harness.agents.create({ id: 'main', model: 'claude-opus-4-8', wire: { diagnostics: true, prices: { claude: { input: 5, cacheRead: 0.5 } } } })
    await agent.step('Hi.', { format: 'anthropic' })
    const reply = (id: string, diagnostics: object | null) => ({
      id, type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hello.' }],
      usage: { input_tokens: 100, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0, output_tokens: 3 }, diagnostics,
    }) as never
    agent.record(reply('msg_1', null), { format: 'anthropic' })
    mood = 'curious'
    const step = await agent.stepDetailed('Again.', { format: 'anthropic' })
    agent.record(reply('msg_2', { cache_miss_reason: { type: 'system_changed', cache_missed_input_tokens: 900 } }), { format: 'anthropic' })
    const [, second] = sdk.spans()
    // Under append the changed section is a new version at the tail (a mid-conversation system message):
    // dsh saw no break, so the provider's system_changed is a miss on an unbroken prefix, unexplained.
    expect(step.report.breaks).to.deep.equal([])
    expect(second.attributes).to.deep.include({
      [Dsh.providerMissReason]: 'system_changed', [Dsh.providerMissClass]: 'system', [Dsh.providerMissVerdict]: 'unexplained', [Dsh.providerMissTokens]: 900,
      [Dsh.promptUpdate]: 'system-message',
    })
    // 100 uncached at 5, 2000 read at 0.5, per million tokens.
    expect(second.attributes[Dsh.cost]).to.be.closeTo(0.0015, 1e-12)
    expect(second.attributes[Dsh.conversationCost]).to.be.closeTo(0.003, 1e-12)
  })
})
