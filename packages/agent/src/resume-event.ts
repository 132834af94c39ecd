/**
 * `agent/resume`: the first step of a restored agent tells what its resume guard found (R-LEDGER-8),
 * before the step's request is returned: first to the restore's `onResume`, then to every `agent/resume`
 * listener. A notification, as `agent/step`: a callback or listener that throws or rejects is reported
 * as `AGENT_RESUME_LISTENER_FAILED` naming its plugin (`onResume` for the callback), and the step goes on.
 * @module
 */
import type { Context } from 'cordis'
import type { Agent } from './agent.js'
import { resumeListenerFailed } from './errors.js'
import { notify } from './notify.js'
import type { ResumeReport } from './resume-guard.js'

declare module 'cordis' {
  interface Events {
    /** The first step of an agent restored from a ledger compared its system prompt with the ledger's (before its request is returned). */
    'agent/resume'(agent: Agent, report: ResumeReport): void
  }
}

/** An `agent/resume` listener. */
export type ResumeListener = (agent: Agent, report: ResumeReport) => void

/** Tells `report` to `onResume` and the `agent/resume` listeners of `ctx`'s app; `warn` gets each failure. */
export function announceResume(ctx: Context, agent: Agent, report: ResumeReport, onResume: ((report: ResumeReport) => void) | undefined, warn: (error: Error) => void): void {
  if (onResume) {
    try {
      const returned = onResume(report) as unknown
      if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') Promise.resolve(returned).catch((error) => warn(resumeListenerFailed(agent.id, 'onResume', error)))
    } catch (error) {
      warn(resumeListenerFailed(agent.id, 'onResume', error))
    }
  }
  notify(ctx, 'agent/resume', [agent, report], { failure: (plugin, error) => resumeListenerFailed(agent.id, plugin, error), report: warn })
}
