/**
 * The plugin's configuration: whether prompt content is recorded, and (for a harness that keeps its
 * own) the tracer and meter providers to use instead of the global ones.
 * @module
 */
import Schema from 'schemastery'
import type { MeterProvider, TracerProvider } from '@opentelemetry/api'

/** The configuration as the plugin reads it. */
export interface Config {
  /**
   * Record the system prompt (`gen_ai.system_instructions`) and the request's messages
   * (`gen_ai.input.messages`) on each span. Off by default: prompts and conversations may hold
   * personal data, and the conventions make content capture opt-in.
   */
  content: boolean
  /** The tracer provider (default: the global one, `trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider
  /** The meter provider (default: the global one, `metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider
}

/** What a deployment row may write (every field optional). */
export type ConfigInput = Partial<Config>

/** The schema: `content` defaults to `false`; the providers are objects given in code, never in YAML. */
export const Config: Schema<ConfigInput, Config> = Schema.object({
  content: Schema.boolean().default(false).description('Record the system prompt and the messages on each span (off: no content leaves the process).'),
  tracerProvider: Schema.any().description('An OpenTelemetry TracerProvider (default: the global one).'),
  meterProvider: Schema.any().description('An OpenTelemetry MeterProvider (default: the global one).'),
}).default({} as never /* every key has its own default */) as unknown as Schema<ConfigInput, Config>
