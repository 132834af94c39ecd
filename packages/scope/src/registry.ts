import type { Context } from 'cordis'
import { scopeOf, type ScopeKey } from './state.js'
import { ownEffect, ownerName } from './effect.js'
import { StampedLayers } from './stamped-layers.js'

/**
 * What every entry of a {@link ScopedRegistry} carries. `kind` separates name spaces (a section and a
 * variable may share a name); an entry has a `name` (unique per kind within a layer) or is anonymous and
 * gets an `id` from the registry (increasing in registration order, so ids sort entries by age). `owner`
 * and `scope` are filled in from the registering context.
 */
export interface RegistryEntry {
  readonly kind: string
  readonly name?: string
  readonly id?: number
  /** `ownerName()` of the registering context: the plugin's name, or the scope's label. */
  readonly owner: string
  /** The layer: `scopeOf()` of the registering context (`undefined` for the global layer). */
  readonly scope: ScopeKey | undefined
}

/** What a caller passes to {@link ScopedRegistry.register}: an entry without the fields the registry fills in. */
export type EntryDraft<E extends RegistryEntry> = E extends unknown ? Omit<E, 'owner' | 'scope' | 'id'> : never

/** A named entry, as handed to the duplicate hook. */
export type NamedEntry<E extends RegistryEntry> = E & { readonly name: string }

/** A change the registry reports after it happened: `entry` was filed (`register`) or taken out (`dispose`). */
export interface RegistryChange<E extends RegistryEntry> {
  readonly action: 'register' | 'dispose'
  readonly entry: E
}

/** Where a failed change listener is reported: a Cordis `Logger` fits. */
export interface WarningLogger {
  warn(format: string, ...args: unknown[]): void
}

/** The hooks through which a package keeps its own errors, events and warnings. */
export interface DuplicateHook<E extends RegistryEntry> {
  /**
   * The error for a named entry whose kind and name are taken in its layer; `scoped` says whether the
   * layer is a scope's (`false`: the global layer). Thrown before anything is registered.
   */
  onDuplicate(entry: NamedEntry<E>, scoped: boolean): Error
}

/**
 * Change reporting: told after every register and dispose. A throw is a warning, unless `vetoed` is
 * given: then a throw on a registration takes it back and `register()` throws `vetoed`'s error (a
 * disposal cannot be vetoed: its throw stays a warning).
 */
export interface ChangeHooks<E extends RegistryEntry> {
  /** Told after `change` happened (the package emits its change event here). */
  onChange(change: RegistryChange<E>): void
  /** The error `register()` throws when `onChange` threw on the registration of `entry` (it is taken back first). */
  vetoed?(entry: E, error: unknown): Error
  /** The warning when `onChange` threw: its text, or a catalogue warning whose `message` is logged. */
  changeFailed(change: RegistryChange<E>, error: unknown): string | { readonly message: string }
  /** Where that warning goes. */
  logger: WarningLogger
}

/** Options of {@link ScopedRegistry}: the duplicate hook, and optionally the change hooks. */
export type ScopedRegistryOptions<E extends RegistryEntry> =
  DuplicateHook<E> & (ChangeHooks<E> | { onChange?: undefined; changeFailed?: undefined; logger?: undefined; vetoed?: undefined })

/** An attached cleanup and the entry it belongs to (only registrations with `attach` pay for it). */
interface Attached<E> {
  readonly entry: E
  readonly detach: () => void
}

/**
 * The scoped registry every dsh registry is built on: entries filed in a {@link StampedLayers} by the
 * layer of the registering context, owned like any dsh registration (through `ownEffect`: disposed with
 * the registering plugin or scope, last-in first-out with its other effects), each with its disposer.
 *
 * `register(ctx, draft)` fills in `owner` and `scope` (and an `id` for an entry without a name), derives
 * the storage key from kind and name or id, refuses a taken name through `onDuplicate` before anything is
 * registered, files the entry, and reports the change. The disposer (or the owner's end) takes it out
 * and reports that too. A change report cannot veto: if `onChange` throws, `changeFailed`'s warning is
 * logged and the change stands. Read the entries through `layers` (`resolve`, `memo`, `get`, `entries`).
 *
 * How `dsh-system-prompt`'s `PromptCore` uses it (entries: `section`, `context` and `variable` by
 * name; `tools` and `suppress` by id; `PromptRegistry` keeps its views on `registry.layers`):
 *
 * ```ts
 * readonly registry = new ScopedRegistry<Entry, ResolvedView>({
 *   onDuplicate: (entry, scoped) => (scoped ? duplicateScoped : duplicateGlobal)(entry.kind as TextKind | 'variable', entry.name),
 *   onChange: ({ action, entry }) => events.emit('system-prompt/change', changeEvent(entry, action)),
 *   changeFailed: ({ action, entry }, error) => changeListenerFailed(changeEvent(entry, action), error),
 *   logger: ctx.logger('dsh-system-prompt'),
 * })
 * section(ctx, input) { ...validate...; return this.registry.register(ctx, { kind: 'section', name, order, text, complete, interpolate }) }
 * tools(ctx, provider) { return this.registry.register(ctx, { kind: 'tools', provider }) } // gets an id
 * ```
 *
 * How `dsh-tools`' `ToolRegistry` uses it (tools by name, restrictions by id; the guidance section
 * is attached, so it is registered after the duplicate check and removed first):
 *
 * ```ts
 * private readonly registry = new ScopedRegistry<ToolEntry | RestrictionEntry, ToolView>({
 *   onDuplicate: (entry, scoped) => (scoped ? duplicateScopedTool : duplicateGlobalTool)(entry.name),
 *   onChange: ({ action, entry }) => ctx.root.events.emit('tools/change', toolChange(entry, action)),
 *   changeFailed: ({ action, entry }, error) => toolChangeListenerFailed(toolChange(entry, action), error),
 *   logger: ctx.logger('dsh-tools'),
 * })
 * register(tool) { ...; return this.registry.register(this.ctx, { kind: 'tool', name, schema }, section && (() => prompt.section(...))) }
 * restrict(restriction) { ...; return this.registry.register(this.ctx, { kind: 'restriction', allow, deny }) }
 * ```
 * (`ctx.emit(name, event)` and `ctx.root.events.emit(name, event)` reach the same listeners: Cordis
 * filters only by an object passed before the name.)
 */
export class ScopedRegistry<E extends RegistryEntry, M = unknown> {
  /** Every filed entry, by layer; read it for views (`memo(scopeChain(ctx, scope), ...)`, memoising an `M`) and lookups. */
  readonly layers = new StampedLayers<E, M>()
  private ids = 0
  private readonly prefixes = new Map<string, string>()
  /** The one teardown every plain registration shares (a registration costs one closure, its disposer). */
  private readonly unregister = (entry: E): void => { this.remove(entry) }
  private readonly unregisterAttached = (attached: Attached<E>): void => {
    attached.detach()
    this.remove(attached.entry)
  }

  constructor(private readonly options: ScopedRegistryOptions<E>) {}

  /**
   * Registers `draft` in the layer of `ctx`'s scope, owned by `ctx`'s owner, and returns its disposer
   * (idempotent). `draft` becomes the entry: the registry writes `owner`, `scope` and, for an entry
   * without a name, `id` onto it. Throws `onDuplicate`'s error for a taken name, and Cordis's or
   * `dsh-scope`'s error for an inactive owner; a refused registration leaves nothing behind.
   *
   * `attach`, if given, runs after the checks and before the entry is filed; the cleanup it returns runs
   * when the entry goes, before it is taken out (and at once if the registration then fails).
   */
  register(ctx: Context, draft: EntryDraft<E>, attach?: (entry: E) => (() => void) | undefined): () => void {
    const fill = draft as unknown as { -readonly [K in keyof RegistryEntry]: RegistryEntry[K] }
    fill.owner = ownerName(ctx)
    fill.scope = scopeOf(ctx)
    if (fill.name === undefined) fill.id = ++this.ids
    const entry = draft as unknown as E
    const key = this.keyOf(entry)
    // Checked before the effect, so the error carries a full stack and nothing is registered.
    if (entry.name !== undefined && this.layers.has(entry.scope, key)) {
      throw this.options.onDuplicate(entry as NamedEntry<E>, entry.scope !== undefined)
    }
    const detach = attach?.(entry)
    let dispose: () => unknown
    try {
      dispose = detach
        ? ownEffect(ctx, this.unregisterAttached, { entry, detach })
        : ownEffect(ctx, this.unregister, entry)
    } catch (error) {
      detach?.()
      throw error
    }
    this.layers.add(entry.scope, key, entry)
    const veto = this.report('register', entry)
    if (veto !== undefined) {
      // Taken back unreported: its listeners were told of a registration that never stood.
      this.layers.remove(entry.scope, key, entry)
      ;(dispose as () => void)()
      throw veto
    }
    return dispose as () => void
  }

  /**
   * Takes `entry` out if it is still filed and reports the change; `true` when it was filed. This is
   * what an entry's disposer does; prefer the disposer, which also releases the ownership.
   */
  remove(entry: E): boolean {
    if (!this.layers.remove(entry.scope, this.keyOf(entry), entry)) return false
    this.report('dispose', entry)
    return true
  }

  /**
   * The storage key of an entry (or of a kind and name to look up): kinds have separate name spaces,
   * and a name never meets an id. The same key in two layers is shadowing, not a duplicate.
   */
  keyOf(entry: Pick<RegistryEntry, 'kind' | 'name' | 'id'>): string {
    // Each kind gets a short numbered prefix, so no kind, name or id can run into another and keys stay
    // as short as the names they hold.
    let prefix = this.prefixes.get(entry.kind)
    if (prefix === undefined) this.prefixes.set(entry.kind, prefix = `${this.prefixes.size}`)
    return entry.name !== undefined ? prefix + ':' + entry.name : prefix + '#' + entry.id
  }

  /**
   * Reports a change; a throwing `onChange` is logged as the caller's warning, and the change stands,
   * except a registration under a `vetoed` hook: then the error to throw is returned.
   */
  private report(action: RegistryChange<E>['action'], entry: E): Error | undefined {
    const { onChange, changeFailed, logger, vetoed } = this.options
    if (!onChange) return undefined
    const change: RegistryChange<E> = { action, entry }
    try {
      onChange(change)
    } catch (error) {
      if (action === 'register' && vetoed) return vetoed(entry, error)
      const warning = changeFailed(change, error)
      logger.warn('%s', typeof warning === 'string' ? warning : warning.message)
    }
    return undefined
  }
}
