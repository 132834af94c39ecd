/**
 * Cordis plumbing for dsh services whose hot paths are called thousands of times (registrations).
 * @module
 */
import { Service } from 'cordis'

/**
 * Tells Cordis not to build a shadow context and method proxy on every call into `service` (call it in
 * the service's constructor, after `super()`). Methods still see the caller's context as `this.ctx` (the
 * traceable proxy answers `ctx` with the use-site context); what is lost is only resolving *other*
 * services through the service's own injections inside a method, and accessor extensions of the form
 * `<service>.<x>`, which dsh services never use. Measured: a registration costs about a third as much.
 * See `.agents/notes/2026-11-30-registration-cost.md`. A value without a Cordis tracker is left alone;
 * if a Cordis release renames the tracker fields, this degrades to Cordis's default (slower, same results).
 */
export function markNoShadow(service: object): void {
  const tracker = (service as Record<symbol, { noShadow?: boolean } | undefined>)[Service.tracker]
  if (!tracker) return
  tracker.noShadow = true
  delete (tracker as { associate?: string }).associate
}
