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
import { providerName, startAttributes, stepAttributes, usageAttributes } from './attributes.js'
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
  /** Whether the meter records anything (the API's own no-op meter, when no meter provider is registered, does not). */
  private readonly metered: boolean

  constructor(private readonly api: OpenTelemetryApi, private readonly config: Config) {
    this.tracer = (config.tracerProvider ?? api.trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE)
    const meter = (config.meterProvider ?? api.metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE)
    this.tokens = meter.createHistogram(GenAi.tokenUsage, { unit: '{token}', description: 'Number of input and output tokens used.' })
    this.cacheRead = meter.createHistogram(Dsh.cacheReadUsage, { unit: '{token}', description: 'Input tokens the provider served from its prompt cache.' })
    this.cacheWrite = meter.createHistogram(Dsh.cacheWriteUsage, { unit: '{token}', description: 'Input tokens the provider wrote to its prompt cache.' })
    // The API has no proxy meter: a meter got from the no-op provider stays a no-op.
    this.metered = meter !== api.createNoopMeter()
  }

  /**
   * Opens the span of a step (ending the agent's previous one), with its parts as events when the span
   * is recorded; a fork's span ends at once.
   */
  async step(agent: Agent, result: StepResult<WireFormat>): Promise<void> {
    const span = this.tracer.startSpan(`${GenAiValues.chat} ${agent.model}`, { kind: this.api.SpanKind.CLIENT, attributes: startAttributes(agent, result) })
    if (!result.side) {
      this.open.get(agent)?.span.end()
      this.open.set(agent, { span, result })
    }
    // A span nobody records (no SDK registered, or not sampled) reads nothing more of the step: its
    // report is measured on first read (a token count), its content and parts cost a JSON text and a
    // hash and a count per part.
    if (!span.isRecording()) {
      if (result.side) span.end()
      return
    }
    span.setAttributes(stepAttributes(agent, result))
    if (this.config.content) span.setAttributes(contentAttributes(agent, result))
    // The report counted with this counter already: it is loaded, and this resolves at once.
    const counter = await tokenCounter(result.report.provider)
    // A layer is named as the cache report names one: `global`, or the label its scope was created with.
    const layerOf = (scope: ScopeKey | undefined) => scope === undefined ? 'global' : scopeLabel(agent.ctx, scope) ?? 'scope'
    for (const event of this.parts.events(result.rendered, counter, layerOf)) span.addEvent(Dsh.partEvent, event)
    if (result.side) span.end()
  }

  /** Adds the reply's usage to the open span of `agent`'s latest step (when it is recorded), ends the span and records the metrics. */
  usage(agent: Agent, usage: Usage): void {
    const open = this.open.get(agent)
    if (!open) return
    this.open.delete(agent)
    const { span, result } = open
    if (span.isRecording()) span.setAttributes(usageAttributes(usage, result.report))
    span.end()
    if (!this.metered) return
    const metric = {
      [GenAi.operationName]: GenAiValues.chat,
      [GenAi.providerName]: providerName(agent.provider ?? result.report.provider),
      [GenAi.requestModel]: agent.model,
    }
    if (usage.inputTokens !== null) this.tokens.record(usage.inputTokens, { ...metric, [GenAi.tokenType]: GenAiValues.input })
    if (usage.outputTokens !== null) this.tokens.record(usage.outputTokens, { ...metric, [GenAi.tokenType]: GenAiValues.output })
    if (usage.cachedReadTokens !== null) this.cacheRead.record(usage.cachedReadTokens, metric)
    if (usage.cacheWriteTokens !== null) this.cacheWrite.record(usage.cacheWriteTokens, metric)
  }

  /** Ends the open spans (the plugin is stopping). */
  close(): void {
    for (const { span } of this.open.values()) span.end()
    this.open.clear()
  }
}
