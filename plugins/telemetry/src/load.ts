/**
 * Finding OpenTelemetry: `@opentelemetry/api` is an optional peer dependency, imported only when the
 * plugin starts. A deployment that does not install it gets `undefined` here, and the plugin then
 * registers nothing (its steps cost what they cost without the plugin).
 * @module
 */
import type * as OpenTelemetry from '@opentelemetry/api'

/** The parts of `@opentelemetry/api` the plugin uses. */
export type OpenTelemetryApi = Pick<typeof OpenTelemetry, 'trace' | 'metrics' | 'SpanKind' | 'SpanStatusCode' | 'createNoopMeter'>

/** How the API module is imported (a parameter so that a test can stand in for a missing install). */
export type ApiImporter = () => Promise<OpenTelemetryApi>

/** The real import of the optional peer. */
export const importApi: ApiImporter = () => import('@opentelemetry/api')

/**
 * The API module, or `undefined` when it cannot be resolved (Node's `ERR_MODULE_NOT_FOUND`, or
 * `MODULE_NOT_FOUND` under a CommonJS loader). Any other failure of the import is thrown: a broken
 * install is not the same as no install.
 */
export async function loadOpenTelemetry(importer: ApiImporter = importApi): Promise<OpenTelemetryApi | undefined> {
  try {
    return await importer()
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return undefined
    throw error
  }
}
