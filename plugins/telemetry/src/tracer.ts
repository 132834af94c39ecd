/**
 * The spans and metrics of one app's agents. A step opens a `chat {model}` client span; the usage
 * recorded with its reply (`agent/usage`) adds the token figures, records the metrics and ends it, so
 * the span lasts as long as the provider call the harness made in between. A step whose reply brings
 * no usage has its span ended by the agent's next step (or when the plugin stops). A fork's span ends
 * at once: a fork's reply is recorded in the fork, which reports no usage to the agent.
 * @module
 */
import type { Histogram, Span, Tracer } from '@opentelemetry/api'
import type { Agent, StepResult } from 'dsh-agent'
import { scopeLabel, type ScopeKey } from 'dsh-scope'
import { tokenCounter, type Usage, type WireFormat } from 'dsh-wire'
import type { Config } from './config.js'
import type { OpenTelemetryApi } from './load.js'
import { providerName, stepAttributes, usageAttributes } from './attributes.js'
import { contentAttributes } from './content.js'
import { Dsh, GenAi, GenAiValues } from './names.js'
import { PartMeter } from './parts.js'

/** The tracer and meter scope the plugin reports under. */
export const INSTRUMENTATION_SCOPE = 'dsh-plugin-telemetry'

/** The open span of an agent's latest step, with that step's result. */
interface OpenStep {
  span: Span
  result: StepResult<WireFormat>
}

/** Spans and metrics for every agent of one app. */
export class StepTracer {
  private readonly tracer: Tracer
  private readonly tokens: Histogram
  private readonly cacheRead: Histogram
  private readonly cacheWrite: Histogram
  private readonly open = new Map<Agent, OpenStep>()
  private readonly parts = new PartMeter()

  constructor(private readonly api: OpenTelemetryApi, private readonly config: Config) {
    this.tracer = (config.tracerProvider ?? api.trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE)
    const meter = (config.meterProvider ?? api.metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE)
    this.tokens = meter.createHistogram(GenAi.tokenUsage, { unit: '{token}', description: 'Number of input and output tokens used.' })
    this.cacheRead = meter.createHistogram(Dsh.cacheReadUsage, { unit: '{token}', description: 'Input tokens the provider served from its prompt cache.' })
    this.cacheWrite = meter.createHistogram(Dsh.cacheWriteUsage, { unit: '{token}', description: 'Input tokens the provider wrote to its prompt cache.' })
  }

  /**
   * Opens the span of a step (ending the agent's previous one), with its parts as events when the span
   * is recorded; a fork's span ends at once.
   */
  async step(agent: Agent, result: StepResult<WireFormat>): Promise<void> {
    const span = this.tracer.startSpan(`${GenAiValues.chat} ${agent.model}`, { kind: this.api.SpanKind.CLIENT, attributes: stepAttributes(agent, result) })
    if (!result.side) {
      this.open.get(agent)?.span.end()
      this.open.set(agent, { span, result })
    }
    // A span nobody records (no SDK registered, or not sampled) gets no content and no part events:
    // they are the step's costly attributes (the messages as JSON, a hash and a count per part).
    if (!span.isRecording()) {
      if (result.side) span.end()
      return
    }
    if (this.config.content) span.setAttributes(contentAttributes(agent, result))
    // The report counted with this counter already: it is loaded, and this resolves at once.
    const counter = await tokenCounter(result.report.provider)
    // A layer is named as the cache report names one: `global`, or the label its scope was created with.
    const layerOf = (scope: ScopeKey | undefined) => scope === undefined ? 'global' : scopeLabel(agent.ctx, scope) ?? 'scope'
    for (const event of this.parts.events(result.rendered, counter, layerOf)) span.addEvent(Dsh.partEvent, event)
    if (result.side) span.end()
  }

  /** Adds the reply's usage to the open span of `agent`'s latest step, records the metrics and ends the span. */
  usage(agent: Agent, usage: Usage): void {
    const open = this.open.get(agent)
    if (!open) return
    this.open.delete(agent)
    const { span, result } = open
    span.setAttributes(usageAttributes(usage, result.report))
    const metric = {
      [GenAi.operationName]: GenAiValues.chat,
      [GenAi.providerName]: providerName(agent.provider ?? result.report.provider),
      [GenAi.requestModel]: agent.model,
    }
    if (usage.inputTokens !== null) this.tokens.record(usage.inputTokens, { ...metric, [GenAi.tokenType]: GenAiValues.input })
    if (usage.outputTokens !== null) this.tokens.record(usage.outputTokens, { ...metric, [GenAi.tokenType]: GenAiValues.output })
    if (usage.cachedReadTokens !== null) this.cacheRead.record(usage.cachedReadTokens, metric)
    if (usage.cacheWriteTokens !== null) this.cacheWrite.record(usage.cacheWriteTokens, metric)
    span.end()
  }

  /** Ends the open spans (the plugin is stopping). */
  close(): void {
    for (const { span } of this.open.values()) span.end()
    this.open.clear()
  }
}
