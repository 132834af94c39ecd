/**
 * The agent's notifications (`agent/step`, `agent/usage`, `agent/session-start`): every admitted
 * listener runs, each on its own. Cordis's `emit` stops at the first listener that throws and hands the
 * error to the emitter, so one failing exporter would make `step()` or `record()` reject after the
 * agent's state changed; here a listener that throws or rejects is reported (its plugin named) and the
 * others still run.
 * @module
 */
import type { Context, Events } from 'cordis'
import { ownerName } from 'dsh-scope'

/** A Cordis listener as its events service keeps it (`ctx.events._hooks[name]`: Cordis 4.0.0-rc.10). */
interface Hook {
  readonly ctx: Context
  readonly callback: (...args: unknown[]) => unknown
}

/** How one notification treats its listeners. */
export interface Notification {
  /** Whether the listener registered through `listener` hears this one (all by default). */
  readonly admits?: (listener: Context) => boolean
  /** The coded failure of the listener of `plugin` that threw or rejected `error`. */
  readonly failure: (plugin: string, error: unknown) => Error
  /** Where each failure goes (a warning on the agent's logger). */
  readonly report: (error: Error) => void
}

/**
 * Calls every admitted `name` listener of `ctx`'s app with `args`, each on its own (see the module
 * comment). `events` is the app's events service when the caller keeps it (a step does: reading
 * `ctx.events` wraps it in a new tracing proxy each time, `untraced.ts`).
 */
export function notify<K extends keyof Events & string>(ctx: Context, name: K, args: Parameters<Events[K]>, { admits, failure, report }: Notification, events: object = ctx.events): void {
  const hooks = (events as { _hooks?: Record<string, Hook[] | undefined> })._hooks
  if (!hooks) {
    // Not the Cordis this was written for: its own emit, with the failure reported all the same.
    try {
      ;(ctx.emit as (name: string, ...rest: unknown[]) => void)(name, ...args)
    } catch (error) {
      report(failure('(unknown)', error))
    }
    return
  }
  // As `ctx.emit(name, ...args)` calls them: the name comes first, so there is no `thisArg` and no
  // Cordis filter; `admits` is the notification's own.
  for (const hook of [...(hooks[name] ?? [])]) {
    if (admits && !admits(hook.ctx)) continue
    const failed = (error: unknown) => report(failure(ownerName(hook.ctx), error))
    try {
      const returned = Reflect.apply(hook.callback, null, args)
      if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') Promise.resolve(returned).catch(failed)
    } catch (error) {
      failed(error)
    }
  }
}
