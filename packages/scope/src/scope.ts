import type { Context, Fiber } from 'cordis'
import { appState, kOwner, kScope, type AppState, type ScopeKey, type ScopeRecord } from './state.js'
import { invalidScopeKey, scopeAlreadyActive, scopeDisposed, teardownFailed } from './errors.js'
import { ownEffect } from './effect.js'
import { ScopeRun, throwCollected } from './buckets.js'
import { liveEffects } from './cordis-effects.js'
import { forgetScopeMemos } from './stamped-layers.js'
import { onScoped, type ScopedListenerOptions } from './events.js'
import { checkParent, isKey, keyLabel, nameKey, setScopeParent } from './parents.js'

/** Options of {@link createScope}. */
export interface CreateScopeOptions {
  /** The parent scope's key: this scope's assemblies also see the parent's layers (nearest wins). */
  parent?: ScopeKey
  /** A readable name, used as the owner of the scope's registrations and in messages (default `scope`). */
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

/** What `createScope` returns: a {@link ScopeHandle} with the published `rawDispose`. */
export interface Scope extends ScopeHandle {
  /**
   * The scope's disposer as one function of fixed identity (every read returns the same function), for
   * a composite `ctx.effect` to yield: the scope then ends at that position of the composite's teardown.
   * Calling it is calling `dispose()` (the same promise).
   */
  readonly rawDispose: () => Promise<void>
}

// Cordis calls that create effects: through a scope context they are routed to the scope's own child
// fiber (made on first use), so what they create is owned by the scope, not by the creating plugin.
const ROUTED = ['effect', 'plugin', 'inject', 'provide', 'accessor', 'mixin'] as const

const methods: Record<string, (this: Context, ...args: any[]) => unknown> = {
  on(this: Context, name: string, listener: (...args: any[]) => any, options?: boolean | ScopedListenerOptions) {
    const normalised = typeof options === 'object' ? options : { prepend: !!options }
    if (appState(this).scopedEvents.has(name)) return onScoped(this, name, listener, normalised)
    return lazyContext(this).on(name as never, listener as never, options)
  },
  once(this: Context, name: string, listener: (...args: any[]) => any, options?: boolean | ScopedListenerOptions) {
    const dispose = methods.on.call(this, name, function (this: unknown, ...args: any[]) {
      dispose()
      return listener.apply(this, args)
    }, options) as () => boolean
    return dispose
  },
}
for (const name of ROUTED) {
  methods[name] = function (this: Context, ...args: any[]) {
    const target = lazyContext(this) as unknown as Record<string, (...args: any[]) => unknown>
    return target[name](...args)
  }
}

/**
 * Mints a scope for `key` under `ctx`. The scope is owned by `ctx`'s plugin (disposed with it) and owns
 * everything registered through the returned `ctx` and contexts derived from it: dsh registrations
 * directly (cheaply, without a fiber of its own), and generic Cordis effects (`ctx.effect`, `ctx.on` for
 * ordinary events, `ctx.plugin`, ...) through a child fiber made the first time one is needed.
 * The scope context reads services exactly like `ctx`, so `ctx` should inject what the scope uses.
 */
export function createScope(ctx: Context, key: ScopeKey, options: CreateScopeOptions = {}): Scope {
  if (!isKey(key)) throw invalidScopeKey(key)
  const state = appState(ctx)
  const label = options.label ?? 'scope'
  const existing = state.live.get(key)
  if (existing) throw scopeAlreadyActive(existing.label)
  if (options.parent !== undefined) checkParent(key, options.parent, label)

  const record: ScopeRecord = { key, label, teardowns: new ScopeRun(), disposed: false }
  // Inside a Cordis service method the context may be the service's shadow of the caller's context;
  // the scope belongs to the caller, so start from the use site (as Cordis's own tracing does).
  const creator = (ctx as unknown as Record<symbol, unknown>)[kShadow] ? Object.getPrototypeOf(ctx) as Context : ctx
  record.creator = creator
  const detach = ownEffect(creator, disposeOwned, record)
  const scopeCtx = Object.create(scopeBase(creator), {
    [kScope]: { value: key, enumerable: true },
    [kOwner]: { value: record },
  }) as Context
  nameKey(key, label)
  if (options.parent !== undefined) setScopeParent(undefined, key, options.parent)
  state.live.set(key, record)
  return new Handle(key, scopeCtx, record, detach)
}

/** A scope handle; a class, so a scope costs no closure for its `dispose` (nor for `rawDispose` until read). */
class Handle implements Scope {
  private raw?: () => Promise<void>

  constructor(
    readonly key: ScopeKey,
    readonly ctx: Context,
    private readonly record: ScopeRecord,
    private readonly detach: () => unknown,
  ) {}

  dispose(): Promise<void> {
    // The caller receives the disposal's outcome (a rejection if a teardown threw); detaching from the
    // creator afterwards finds the disposal under way.
    const done = disposeRecord(appState(this.record.creator!), this.record)
    this.record.handedOut = true
    this.detach()
    return done
  }

  get rawDispose(): () => Promise<void> {
    return this.raw ??= () => this.dispose()
  }
}

/**
 * The creator-owned teardown of a scope: runs when the creating plugin (or scope) goes. Nobody awaits it
 * there, so a teardown failure is logged instead of becoming an unhandled rejection, unless the outcome
 * was already handed to a `dispose()` caller.
 */
function disposeOwned(record: ScopeRecord): void {
  const done = disposeRecord(appState(record.creator!), record)
  if (record.handedOut) return
  done.catch((error: unknown) => {
    record.creator!.logger('dsh-scope').warn('%s', teardownFailed(record.label, error).message)
  })
}

const kShadow = Symbol.for('cordis.shadow')
const bases = new WeakMap<Context, Context>()

/**
 * The shared prototype of every scope context minted from `creator`: `creator` extended with the
 * routing methods. Made once per creator, so a scope context itself is one small object.
 */
function scopeBase(creator: Context): Context {
  let base = bases.get(creator)
  if (!base) {
    base = creator.extend({}) as Context
    for (const name in methods) Object.defineProperty(base, name, { value: methods[name], configurable: true, writable: true })
    bases.set(creator, base)
  }
  return base
}

/** The scope's child fiber context, made on first use under the creating context. */
function lazyContext(ctx: Context): Context {
  const record = (ctx as unknown as Record<symbol, ScopeRecord>)[kOwner]
  if (record.disposed) throw scopeDisposed(record.label)
  if (!record.lazy) {
    const fiber = record.creator!.plugin({ name: record.label, apply() {} }) as unknown as Fiber
    record.lazy = { ctx: fiber.ctx.extend({ [kScope]: record.key }) as Context, dispose: () => fiber.dispose() }
    record.teardowns.fiber = fiber
  }
  return record.lazy.ctx
}

/**
 * Ends a scope: its registrations and the child fiber's effects are torn down together, newest first, and
 * synchronously (a disposer that returns a promise is awaited in the result). The effects older than every
 * registration go with the child fiber's own disposal, last. Generic effects fail as Cordis reports them
 * (logged); a registration's teardown failure rejects the result.
 */
function disposeRecord(state: AppState, record: ScopeRecord): Promise<void> {
  if (record.disposing) return record.disposing
  record.disposed = true
  if (state.live.get(record.key) === record) state.live.delete(record.key)
  const errors: unknown[] = []
  const pending: Promise<unknown>[] = []
  const fiber = record.teardowns.fiber
  const effects = fiber ? liveEffects(fiber) : []
  record.teardowns.tearDown(effects, (dispose) => pending.push(disposeEffect(fiber!, dispose)), errors)
  forgetScopeMemos(record.key)
  if (record.lazy) pending.push(record.lazy.dispose())
  const done = Promise.all(pending).then(() => {})
  record.disposing = errors.length ? done.then(() => throwCollected(errors)) : done
  return record.disposing
}

/** Disposes one effect of `fiber` as Cordis's own unload does: a failure is logged on the fiber, never thrown. */
function disposeEffect(fiber: Fiber, dispose: () => unknown): Promise<unknown> {
  const report = (reason: unknown) => { fiber.ctx.logger.error(reason) }
  try {
    return Promise.resolve(dispose()).catch(report)
  } catch (error) {
    report(error)
    return Promise.resolve()
  }
}

/**
 * The label a scope was created with (`undefined` for a key that never had a scope). Labels are kept
 * per process, as parent links are (`parents.ts`): `ctx` is not needed (kept for callers).
 */
export function scopeLabel(_ctx: Context, key: ScopeKey): string | undefined {
  return keyLabel(key)
}

/**
 * Introspection for tests and tooling: live scopes, registrations they still own, scoped listeners and
 * routed event names in `ctx`'s app. Parent links and labels are held weakly and are not counted.
 */
export function scopeStats(ctx: Context): { liveScopes: number; scopeOwned: number; listeners: number; scopedEvents: number } {
  const state = appState(ctx)
  let scopeOwned = 0
  for (const record of state.live.values()) scopeOwned += record.teardowns.size
  let listeners = 0
  for (const byScope of state.listeners.values()) for (const bucket of byScope.values()) listeners += bucket.length
  return { liveScopes: state.live.size, scopeOwned, listeners, scopedEvents: state.scopedEvents.size }
}

/** Whether a live scope exists for `key` in `ctx`'s app. */
export function isScopeActive(ctx: Context, key: ScopeKey): boolean {
  return appState(ctx).live.has(key)
}
