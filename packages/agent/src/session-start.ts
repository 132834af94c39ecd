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
import { scopeChain, scopeOf } from 'dsh-scope'
import type { Agent } from './agent.js'
import { sessionStartListenerFailed } from './errors.js'
import { notify } from './notify.js'

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

/** Calls every admitted `agent/session-start` listener of `ctx`'s app; `report` gets each listener's failure. */
export function emitSessionStart(ctx: Context, agent: Agent, source: SessionStartSource, report: (error: Error) => void): void {
  const chain = new Set<unknown>(scopeChain(ctx, agent.key))
  notify(ctx, 'agent/session-start', [Object.freeze({ agent, source })], {
    admits: (listener) => {
      const scope = scopeOf(listener)
      return scope === undefined || chain.has(scope)
    },
    failure: (plugin, error) => sessionStartListenerFailed(agent.id, plugin, error),
    report,
  })
}
