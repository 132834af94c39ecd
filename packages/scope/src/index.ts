/**
 * `dsh-scope`: the scoped registration primitive. Mint a scope context for an identity key, read a
 * context's scope, link scopes into parent chains, dispatch events filtered by scope through a
 * per-scope listener index, and keep layered (global + per-scope) storage.
 * @module
 */
export { createScope, scopeLabel, scopeStats, isScopeActive } from './scope.js'
export { setScopeParent, parentOf, scopeChain } from './parents.js'
export type { CreateScopeOptions, ScopeHandle } from './scope.js'
export { ownEffect, ownerName, ownerScope } from './effect.js'
export { onScoped, defineScopedEvent, listenersFor, scopeIndex, scopedListenerStats } from './events.js'
export type { ScopedListenerOptions, ScopeIndex } from './events.js'
export { ScopedLayers } from './layers.js'
export type { LayeredEntry } from './layers.js'
export { ScopedRegistry } from './registry.js'
export type {
  ChangeHooks, DuplicateHook, EntryDraft, NamedEntry, RegistryChange, RegistryEntry, ScopedRegistryOptions, WarningLogger,
} from './registry.js'
export { kScope, kOwner, GLOBAL, scopeOf } from './state.js'
export type { ScopeKey, ScopedListener, ScopeRecord } from './state.js'
export * as ScopeErrors from './errors.js'
export type { ScopeWarning } from './errors.js'
export { markNoShadow } from './no-shadow.js'
