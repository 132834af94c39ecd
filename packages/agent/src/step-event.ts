/**
 * The `agent/step` event, emitted once a step is whole. Cordis's `emit` stops at the first listener
 * that throws and hands the error to the emitter, so a failing metrics exporter made `step()` reject
 * after the step had recorded its entries (and a retry sent the user message twice). Here every
 * listener runs, each on its own: one that throws or rejects is reported as
 * `AGENT_STEP_LISTENER_FAILED`, naming its plugin, and cannot undo the step or make it reject.
 * @module
 */
import type { Context, Events } from 'cordis'
import { ownerName } from 'dsh-scope'
import { stepListenerFailed } from './errors.js'

/** A Cordis listener as its events service keeps it (`ctx.events._hooks[name]`: Cordis 4.0.0-rc.10). */
interface Hook {
  readonly ctx: Context
  readonly callback: (...args: unknown[]) => unknown
}

/** What `agent/step` listeners take (the event is declared with the agent, in `agent.ts`). */
type StepArgs = Parameters<Events['agent/step']>

/** Calls every `agent/step` listener of `ctx`'s app with `(agent, result)`; `report` gets each listener's failure. */
export function emitStep(ctx: Context, agent: StepArgs[0], result: StepArgs[1], report: (error: Error) => void): void {
  const hooks = (ctx.events as unknown as { _hooks?: Record<string, Hook[] | undefined> })._hooks
  if (!hooks) {
    // Not the Cordis this was written for: its own emit, with the failure reported all the same.
    try {
      ctx.emit('agent/step', agent, result)
    } catch (error) {
      report(stepListenerFailed(agent.id, '(unknown)', error))
    }
    return
  }
  // As `ctx.emit('agent/step', agent, result)` calls them: the name comes first, so there is no
  // `thisArg` and no Cordis filter, and every listener of the app hears every agent.
  for (const hook of [...(hooks['agent/step'] ?? [])]) {
    const failed = (error: unknown) => report(stepListenerFailed(agent.id, ownerName(hook.ctx), error))
    try {
      const returned = Reflect.apply(hook.callback, null, [agent, result])
      if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') Promise.resolve(returned).catch(failed)
    } catch (error) {
      failed(error)
    }
  }
}
