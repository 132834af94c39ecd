/**
 * Minting scopes for tests: each keyed by a fresh object and labelled for messages.
 * @module
 */
import type { Context } from 'cordis'
import { createScope, type ScopeHandle, type ScopeKey } from 'dsh-scope'

/**
 * A scope minted from `host` (a plugin context injecting the services its registrations use), keyed by
 * a fresh `{ label }` object, with `label` and, when given, the `parent` scope.
 */
export function scope(host: Context, label: string, parent?: ScopeKey): ScopeHandle {
  return createScope(host, { label }, { label, parent })
}
