/**
 * A Cordis service without its tracing proxy. Every read of a service through a context (`ctx.get`,
 * `ctx.events`) wraps it in a new proxy that tells the service which context called (three named
 * closures and a proxy, several microseconds), which only a call that registers something needs. A step
 * reads services to look things up, so it keeps them untraced instead of reading them again.
 * @module
 */

/** Cordis's key for the object behind a traced service (its proxy answers it with the target): Cordis 4.0.0-rc.10. */
const ORIGINAL = Symbol.for('cordis.original')

/** `service` without Cordis's tracing proxy (itself when it has none), for calls that only read. */
export function untraced<T extends object>(service: T | undefined): T | undefined {
  return (service as Record<symbol, T | undefined> | undefined)?.[ORIGINAL] ?? service
}
