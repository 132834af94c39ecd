/**
 * `assembleContextFor(agent, signal)`: the `AssembleContext` that assembles what `agent` is sent, as the
 * published `dsh-system-prompt` README tells plugins to build it (`agent` is never set without `scope`).
 * @module
 */
import type { AssembleContext } from 'dsh-system-prompt'
import type { Agent } from './agent.js'

/**
 * The context `agent.step()` assembles with: `{ scope: agent, agent }` (an agent is its own scope key),
 * plus `signal` when one is given (the request's control, not kept beyond the assembly). Hand it to
 * `ctx.systemPrompt.assemble()` to see the agent's scoped sections, tools and variables (`{{model}}`,
 * `{{cwd}}`, …) outside a step.
 */
export function assembleContextFor(agent: Agent, signal?: AbortSignal): AssembleContext {
  return signal === undefined ? { scope: agent.key, agent } : { scope: agent.key, agent, signal }
}
