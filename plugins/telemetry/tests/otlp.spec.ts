import { expect } from 'chai'
import type { Context } from 'cordis'
import * as Conventions from '@opentelemetry/semantic-conventions/incubating'
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import TelemetryPlugin, { Dsh, INSTRUMENTATION_SCOPE } from 'dsh-plugin-telemetry'
import { bootApp } from 'dsh-testing'
import { otlpReceiver, type OtlpReceiver } from './otlp-receiver.js'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(80)
const FIRST = { inputTokens: 2100, cachedReadTokens: 0, cacheWriteTokens: 2048, outputTokens: 4 }
const SECOND = { inputTokens: 2150, cachedReadTokens: 2048, cacheWriteTokens: 90, outputTokens: 6 }
const THIRD = { inputTokens: 2190, cachedReadTokens: 0, cacheWriteTokens: 2180, outputTokens: 5 }

describe('dsh-plugin-telemetry end to end: the real OTLP/HTTP exporters to a receiver on 127.0.0.1 (issue 23, item 5)', () => {
  let harness: Context
  let receiver: OtlpReceiver
  let tracerProvider: BasicTracerProvider
  let meterProvider: MeterProvider
  let mood: string
  beforeEach(async () => {
    receiver = await otlpReceiver()
    tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${receiver.origin}/v1/traces` }))] })
    // The reader exports when flushed (its interval is only a bound: the test flushes at once).
    const reader = new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: `${receiver.origin}/v1/metrics` }), exportIntervalMillis: 3_600_000 })
    meterProvider = new MeterProvider({ readers: [reader] })
    ;({ host: harness } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, agents: true }))
    mood = 'calm'
    harness.systemPrompt.variable('mood', () => mood)
    harness.systemPrompt.section({ name: 'style', order: 10, text: 'Mood: {{mood}}.' })
  })
  afterEach(async () => {
    await tracerProvider.shutdown()
    await meterProvider.shutdown()
    await receiver.close()
  })

  it('a deployment\'s three Anthropic steps arrive as OTLP JSON spans and metrics with the GenAI usage (inclusive input, cache read and creation), the conversation and provider, dsh\'s prediction and the break\'s section and owner', async () => {
    await harness.plugin(TelemetryPlugin, { tracerProvider, meterProvider })
    const agent = await harness.agents.create({ id: 'conversation-7', model: 'claude-sonnet-4-5', promptChange: 'replace' })
    await agent.step('Hi.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: FIRST })
    const second = await agent.stepDetailed('Again.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello again.' }, { usage: SECOND })
    mood = 'tense'
    const third = await agent.stepDetailed('Once more.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello once more.' }, { usage: THIRD })
    await tracerProvider.forceFlush()
    await meterProvider.forceFlush()

    expect(receiver.requests.map((request) => request.contentType)).to.satisfy((types: string[]) => types.every((type) => type === 'application/json'))
    // Each span is its own export request, and concurrent requests may arrive in any order.
    const spans = receiver.spans().sort((a, b) => Number(a.attributes[Dsh.turn]) - Number(b.attributes[Dsh.turn]))
    expect(spans.map((span) => span.attributes[Dsh.turn])).to.deep.equal([1, 2, 3])
    const chat = [INSTRUMENTATION_SCOPE, 'chat claude-sonnet-4-5', 3 /* SPAN_KIND_CLIENT in OTLP */]
    expect(spans.map((span) => [span.scope, span.name, span.kind])).to.deep.equal([chat, chat, chat])
    expect(second.report.predictedCachedTokens).to.be.above(0)
    expect(spans[1].attributes).to.deep.include({
      [Conventions.ATTR_GEN_AI_OPERATION_NAME]: 'chat',
      [Conventions.ATTR_GEN_AI_PROVIDER_NAME]: Conventions.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
      [Conventions.ATTR_GEN_AI_REQUEST_MODEL]: 'claude-sonnet-4-5',
      [Conventions.ATTR_GEN_AI_CONVERSATION_ID]: 'conversation-7',
      [Conventions.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 2150,
      [Conventions.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 6,
      [Conventions.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 2048,
      [Conventions.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: 90,
      [Dsh.requestKind]: 'main',
      [Dsh.predictedTokens]: second.report.predictedCachedTokens,
      [Dsh.reportedTokens]: 2048,
      [Dsh.breakCount]: 0,
    })
    const broke = third.report.breaks[0]
    expect(broke).to.include({ section: 'style', owner: 'host' })
    expect(spans[2].attributes).to.deep.include({
      [Conventions.ATTR_GEN_AI_CONVERSATION_ID]: 'conversation-7',
      [Conventions.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 2190,
      [Conventions.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: 2180,
      [Dsh.predictedTokens]: third.report.predictedCachedTokens,
      [Dsh.breakCount]: third.report.breaks.length,
      [Dsh.breakSection]: 'style',
      [Dsh.breakOwner]: 'host',
      [Dsh.breakCause]: broke.cause,
    })
    expect(spans[2].events.find((event) => event.attributes[Dsh.partName] === 'style')?.attributes).to.deep.include({ [Dsh.partType]: 'section', [Dsh.partOwner]: 'host' })

    const common = { [Conventions.ATTR_GEN_AI_OPERATION_NAME]: 'chat', [Conventions.ATTR_GEN_AI_PROVIDER_NAME]: 'anthropic', [Conventions.ATTR_GEN_AI_REQUEST_MODEL]: 'claude-sonnet-4-5' }
    expect(receiver.points()).to.deep.equal([
      { scope: INSTRUMENTATION_SCOPE, metric: Conventions.METRIC_GEN_AI_CLIENT_TOKEN_USAGE, attributes: { ...common, [Conventions.ATTR_GEN_AI_TOKEN_TYPE]: 'input' }, sum: 2100 + 2150 + 2190, count: 3 },
      { scope: INSTRUMENTATION_SCOPE, metric: Conventions.METRIC_GEN_AI_CLIENT_TOKEN_USAGE, attributes: { ...common, [Conventions.ATTR_GEN_AI_TOKEN_TYPE]: 'output' }, sum: 4 + 6 + 5, count: 3 },
      { scope: INSTRUMENTATION_SCOPE, metric: Dsh.cacheReadUsage, attributes: common, sum: 2048, count: 3 },
      { scope: INSTRUMENTATION_SCOPE, metric: Dsh.cacheWriteUsage, attributes: common, sum: 2048 + 90 + 2180, count: 3 },
    ])
  })
})
