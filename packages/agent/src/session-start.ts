/**
 * `agent/session-start`, the published lifecycle event: `({ agent, source })`, once per agent before its
 * first step. `agents.create()` emits it with `source: 'startup'` once the agent and its scope exist;
 * `agents.restore()` emits `'resume'` instead, once the ledger's entries are back in the record. Like
 * the published event it is scope-filtered: a listener registered through a scope's context (an agent's
 * `ctx`, a preset's, or a plugin loaded through one) hears only agents in that scope or below it; any
 * other listener hears every agent. A notification: every admitted listener runs, and one that throws or
 * rejects is reported as `AGENT_SESSION_START_LISTENER_FAILED`, naming its plugin, without undoing the
 * creation.
 * @module
 */
import type { Context } from 'cordis'
import { ownerName, scopeChain, scopeOf } from 'dsh-scope'
import type { Agent } from './agent.js'
import { sessionStartListenerFailed } from './errors.js'

/** Why a session began: `startup` for a created agent, `resume` for a restored one (`clear`, `compact`: published, never emitted by dsh). */
export type SessionStartSource = 'startup' | 'resume' | 'clear' | 'compact'

/** What `agent/session-start` listeners receive. */
export interface SessionStartPayload {
  readonly agent: Agent
  readonly source: SessionStartSource
}

declare module 'cordis' {
  interface Events {
    /** An agent's session began, once before its first step (`startup`: created; `resume`: restored from a ledger). */
    'agent/session-start'(payload: SessionStartPayload): void
  }
}

/** A Cordis listener as its events service keeps it (`ctx.events._hooks[name]`: Cordis 4.0.0-rc.10). */
interface Hook {
  readonly ctx: Context
  readonly callback: (...args: unknown[]) => unknown
}

/** Calls every admitted `agent/session-start` listener of `ctx`'s app; `report` gets each listener's failure. */
export function emitSessionStart(ctx: Context, agent: Agent, source: SessionStartSource, report: (error: Error) => void): void {
  const payload: SessionStartPayload = Object.freeze({ agent, source })
  const hooks = (ctx.events as unknown as { _hooks?: Record<string, Hook[] | undefined> })._hooks
  const chain = new Set<unknown>(scopeChain(ctx, agent.key))
  for (const hook of [...(hooks?.['agent/session-start'] ?? [])]) {
    const scope = scopeOf(hook.ctx)
    if (scope !== undefined && !chain.has(scope)) continue
    const failed = (error: unknown) => report(sessionStartListenerFailed(agent.id, ownerName(hook.ctx), error))
    try {
      const returned = Reflect.apply(hook.callback, null, [payload])
      if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') Promise.resolve(returned).catch(failed)
    } catch (error) {
      failed(error)
    }
  }
}
