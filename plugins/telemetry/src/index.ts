/**
 * `dsh-plugin-telemetry`: every agent step and fork as an OpenTelemetry span with the GenAI semantic
 * conventions' attributes and dsh's own (`dsh.*`: the predicted cache, the break's section, owner and
 * cause, the request kind, the budget advice, the prompt's parts), and the token and cache metrics.
 * `@opentelemetry/api` is an optional peer: without it the plugin logs one info line and listens to
 * nothing. Default-exports the plugin, so a deployment row can name the package alone.
 * @module
 */
import type { Context } from 'cordis'
import type {} from 'dsh-agent'
import { Config } from './config.js'
import { loadOpenTelemetry, type OpenTelemetryApi } from './load.js'
import { StepTracer } from './tracer.js'

export { Config } from './config.js'
export type { ConfigInput } from './config.js'
export { loadOpenTelemetry, importApi } from './load.js'
export type { ApiImporter, OpenTelemetryApi } from './load.js'
export { Dsh, GenAi, GenAiValues, PROVIDER_NAMES } from './names.js'
export type { RequestKind } from './names.js'
export { INSTRUMENTATION_SCOPE, StepTracer } from './tracer.js'
export { startAttributes, stepAttributes, usageAttributes, requestKind, providerName, conversationId } from './attributes.js'

/** The plugin's name (the logger's, and the owner named in warnings). */
export const name = 'dsh-plugin-telemetry'

/** The info line of a deployment without OpenTelemetry. */
export const ABSENT_MESSAGE = '@opentelemetry/api is not installed: no spans or metrics (install it to trace agent steps)'

/**
 * Traces through `api`, or, when it is `undefined` (OpenTelemetry is not installed), logs
 * {@link ABSENT_MESSAGE} once and registers nothing: steps then cost what they cost without the plugin.
 */
export function applyWith(ctx: Context, config: Config, api: OpenTelemetryApi | undefined): void {
  const logger = ctx.logger(name)
  if (!api) {
    logger.info(ABSENT_MESSAGE)
    return
  }
  const tracer = new StepTracer(api, config)
  ctx.on('agent/step', (agent, result) => tracer.step(agent, result))
  ctx.on('agent/usage', (agent, usage) => tracer.usage(agent, usage))
  ctx.effect(() => () => tracer.close(), 'dsh-plugin-telemetry: end the open spans')
}

/** Imports `@opentelemetry/api` (when installed) and traces every agent's steps through it. */
export async function apply(ctx: Context, config: Config): Promise<void> {
  applyWith(ctx, config, await loadOpenTelemetry())
}

/** The plugin object. */
export const TelemetryPlugin = { name, Config, apply }

export default TelemetryPlugin
