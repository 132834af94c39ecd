/**
 * `dsh-scope`: the scoped registration primitive. Mint a scope context for an identity key, read a
 * context's scope, link scopes into parent chains, dispatch events filtered by scope (through a
 * per-scope listener index, or a carrier for Cordis's own dispatch), and keep layered (global +
 * per-scope) storage: dsh's `StampedLayers` with its memo per chain, and the published `ScopedLayers`.
 * @module
 */
export { createScope, scopeLabel, scopeStats, isScopeActive } from './scope.js'
export { setScopeParent, parentOf, scopeChain, bindScopeParent, scopeParentOf, scopeChainOf } from './parents.js'
export type { ScopeParentBinding } from './parents.js'
export type { CreateScopeOptions, Scope, ScopeHandle } from './scope.js'
export { scopeTarget, isScopeCarrier, carrierKeyOf } from './carrier.js'
export type { Scoped } from './carrier.js'
export { ownEffect, ownerName, ownerScope } from './effect.js'
export { onScoped, defineScopedEvent, listenersFor, scopeIndex, scopedListenerStats } from './events.js'
export type { ScopedListenerOptions, ScopeIndex } from './events.js'
export { StampedLayers } from './stamped-layers.js'
export type { LayeredEntry } from './stamped-layers.js'
export { ScopedLayers } from './scoped-layers.js'
export type { LayerEffectOptions, ScopeLayer } from './scoped-layers.js'
export { NamedEntries, AnonymousEntries } from './entries.js'
export { ScopedRegistry } from './registry.js'
export type {
  ChangeHooks, DuplicateHook, EntryDraft, NamedEntry, RegistryChange, RegistryEntry, ScopedRegistryOptions, WarningLogger,
} from './registry.js'
export { kScope, kOwner, GLOBAL, scopeOf } from './state.js'
export type { ScopeKey, ScopedListener, ScopeRecord } from './state.js'
export * as ScopeErrors from './errors.js'
export type { ScopeWarning } from './errors.js'
export { markNoShadow } from './no-shadow.js'
