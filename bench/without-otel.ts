/**
 * A second copy of `dsh-plugin-telemetry`, imported in this same process, for which
 * `@opentelemetry/api` does not resolve: what a deployment that never installed OpenTelemetry loads.
 * A module resolve hook answers the copy's `import('@opentelemetry/api')` with Node's own resolution
 * of a package that does not exist (so the plugin sees the real `ERR_MODULE_NOT_FOUND`); the copy is
 * told apart by a query on its URL, so the ordinary import of the plugin still finds the API, and the
 * bench can time both in one run. The hook runs at import time only: a step imports nothing.
 */
import { register } from 'node:module'
import type TelemetryPlugin from 'dsh-plugin-telemetry'

/** The query that marks the copy whose OpenTelemetry is missing. */
const MARK = '?opentelemetry=absent'

register('data:text/javascript,' + encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const api = specifier === '@opentelemetry/api' || specifier.startsWith('@opentelemetry/api/')
  if (api && context.parentURL?.endsWith(${JSON.stringify(MARK)})) return next('@opentelemetry/api-is-not-installed', context)
  return next(specifier, context)
}`))

/** The plugin, from a module instance where `@opentelemetry/api` cannot be resolved. */
export async function telemetryWithoutOpenTelemetry(): Promise<typeof TelemetryPlugin> {
  const module = await import(import.meta.resolve('dsh-plugin-telemetry') + MARK) as { default: typeof TelemetryPlugin }
  return module.default
}
