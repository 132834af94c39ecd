import type { Context } from 'cordis'
import { appState, kScope, type AppState, type ScopeKey } from './state.js'
import { invalidScopeKey, parentAlreadySet, parentCycle, scopeAlreadyActive } from './errors.js'

/** Options of {@link createScope}. */
export interface CreateScopeOptions {
  /** The parent scope's key: this scope's assemblies also see the parent's layers (nearest wins). */
  parent?: ScopeKey
  /** A readable name used as the scope's plugin name and in error messages (default `scope`). */
  label?: string
}

/** A live scope: its context and the way to end it. */
export interface ScopeHandle {
  /** The scope's identity. */
  readonly key: ScopeKey
  /** The scoped context: registrations made through it (or contexts derived from it) belong to the scope. */
  readonly ctx: Context
  /** Disposes the scope and everything registered through it. Idempotent; resolves when all is gone. */
  dispose(): Promise<void>
}

/**
 * Mints a scope for `key` under `ctx`. The scope is a child plugin of `ctx`: disposing `ctx`'s plugin
 * disposes the scope too. Everything registered through the returned `ctx` is owned by the scope.
 */
export function createScope(ctx: Context, key: ScopeKey, options: CreateScopeOptions = {}): ScopeHandle {
  if (typeof key !== 'object' || key === null) throw invalidScopeKey(key)
  const state = appState(ctx)
  const label = options.label ?? 'scope'
  if (state.live.has(key)) throw scopeAlreadyActive(state.live.get(key)!.label)
  if (options.parent !== undefined) checkParent(state, key, options.parent, label)

  const record = { label }
  // A fresh plugin object per scope gives the fiber a readable name without a shared runtime.
  const fiber = ctx.plugin({ name: label, apply() {} }) as unknown as { ctx: Context; dispose(): Promise<void> }
  state.labels.set(key, label)
  if (options.parent !== undefined) state.parents.set(key, options.parent)
  const scopeCtx = fiber.ctx.extend({ [kScope]: key }) as Context
  state.live.set(key, record)
  fiber.ctx.effect(() => () => {
    if (state.live.get(key) === record) state.live.delete(key)
  }, 'dsh-scope')

  let disposing: Promise<void> | undefined
  return {
    key,
    ctx: scopeCtx,
    dispose() {
      disposing ??= Promise.resolve(fiber.dispose()).then(() => {})
      return disposing
    },
  }
}

/** The scope key a context belongs to, or `undefined` for an untagged (global) context. */
export function scopeOf(ctx: Context): ScopeKey | undefined {
  return (ctx as unknown as Record<symbol, ScopeKey | undefined>)[kScope]
}

/** Whether a live scope exists for `key` in `ctx`'s app. */
export function isScopeActive(ctx: Context, key: ScopeKey): boolean {
  return appState(ctx).live.has(key)
}

/**
 * Links `key` to `parent`. A link is set once (setting the same parent again is a no-op) and may
 * never make a scope its own ancestor.
 */
export function setScopeParent(ctx: Context, key: ScopeKey, parent: ScopeKey): void {
  const state = appState(ctx)
  checkParent(state, key, parent, state.labels.get(key) ?? 'scope')
  state.parents.set(key, parent)
}

function checkParent(state: AppState, key: ScopeKey, parent: ScopeKey, label: string): void {
  if (typeof parent !== 'object' || parent === null) throw invalidScopeKey(parent)
  const current = state.parents.get(key)
  if (current === parent) return
  if (current !== undefined) throw parentAlreadySet(label)
  for (let cursor: ScopeKey | undefined = parent; cursor !== undefined; cursor = state.parents.get(cursor)) {
    if (cursor === key) throw parentCycle(label)
  }
}

/** The parent key of `key`, if one was set. */
export function parentOf(ctx: Context, key: ScopeKey): ScopeKey | undefined {
  return appState(ctx).parents.get(key)
}

/**
 * The chain of keys an assembly for `key` sees, nearest first: `[key, parent, grandparent, ...]`.
 * `undefined` gives `[]` (the global layer only). Disposed scopes stay in the chain (their layers are
 * simply empty), so a sub-agent of a disposed agent still sees the preset above it.
 */
export function scopeChain(ctx: Context, key: ScopeKey | undefined): ScopeKey[] {
  const chain: ScopeKey[] = []
  if (key === undefined) return chain
  const parents = appState(ctx).parents
  for (let cursor: ScopeKey | undefined = key; cursor !== undefined; cursor = parents.get(cursor)) {
    chain.push(cursor)
  }
  return chain
}
