/**
 * The agent fields as the published `dsh-agent` shapes them, for plugins written against it:
 * `agent.session` (`{ id, header: { cwd, model, provider } }`) and `agent.options` (`{ id, model,
 * provider, cwd, preset }`). They are read-only views, not copies: every field is a getter over the
 * agent's own field (`agent.id`, `agent.cwd`, `agent.model`, …), so there is one source of truth. Each
 * agent has one of each, made at its first read.
 * @module
 */

/** What the views read: the agent's own fields. */
export interface AgentFacts {
  readonly id: string
  readonly model: string
  readonly provider?: string
  readonly cwd?: string
  readonly preset?: string
}

/** The published `agent.session.header`: the facts a session was started with. */
export interface PublishedSessionHeader {
  readonly cwd: string | undefined
  readonly model: string
  readonly provider: string | undefined
}

/** The published `agent.session`: `id` is the agent's id (one identity for agent and session). */
export interface PublishedSession {
  readonly id: string
  readonly header: PublishedSessionHeader
}

/** The published `agent.options`: the route and facts the agent was created with. */
export interface PublishedAgentOptions {
  readonly id: string
  readonly model: string
  readonly provider: string | undefined
  readonly cwd: string | undefined
  readonly preset: string | undefined
}

const sessions = new WeakMap<AgentFacts, PublishedSession>()
const options = new WeakMap<AgentFacts, PublishedAgentOptions>()

/** `agent.session`: frozen getters over `agent`'s fields. */
export function sessionView(agent: AgentFacts): PublishedSession {
  let view = sessions.get(agent)
  if (!view) {
    const header = Object.freeze({
      get cwd() { return agent.cwd },
      get model() { return agent.model },
      get provider() { return agent.provider },
    })
    sessions.set(agent, view = Object.freeze({ get id() { return agent.id }, header }))
  }
  return view
}

/** `agent.options`: frozen getters over `agent`'s fields. */
export function optionsView(agent: AgentFacts): PublishedAgentOptions {
  let view = options.get(agent)
  if (!view) {
    options.set(agent, view = Object.freeze({
      get id() { return agent.id },
      get model() { return agent.model },
      get provider() { return agent.provider },
      get cwd() { return agent.cwd },
      get preset() { return agent.preset },
    }))
  }
  return view
}
