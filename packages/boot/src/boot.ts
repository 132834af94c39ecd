/**
 * `bootDeployment`: the one call that boots a deployment file for a harness (and for `dsh-prompt`, which
 * uses it too). A fresh Cordis app with the `LoggerBridge`, the rows of the file through `dsh-loader`,
 * then, from a host plugin that injects the services, the agents of `agents:`.
 * @module
 */
import type { Writable } from 'node:stream'
import { Context } from 'cordis'
import { loadDeployment, LoggerBridge, type Deployment, type LoadOptions, type LogLevel, type Problem } from 'dsh-loader'
import type { SystemPrompt } from 'dsh-system-prompt'
import type { ToolRegistry } from 'dsh-tools'
import type { Agent, Agents, CreateAgentOptions } from 'dsh-agent'
import { afterLoadHook, type AgentSections, type HookState } from './after-load.js'
import { AgentsSection } from './agents-section.js'
import { noAgentsServiceError } from './errors.js'

/** Options of {@link bootDeployment}. */
export interface BootOptions {
  /** The log level of the bridge (default `warn`); `debug` shows the agents' `section=<name> bytes=<n>` lines. */
  logLevel?: LogLevel
  /** Print logged errors with their stack. */
  stack?: boolean
  /** `false` turns log colours off; otherwise they follow the target (TTY, `NO_COLOR`). */
  color?: boolean
  /** Where log lines go (default `process.stderr`). */
  logTarget?: Writable
  /** Variables for `${VAR}` substitution (default `process.env`). */
  env?: NodeJS.ProcessEnv
  /**
   * Keep problems creating agents out of the load and return them in `problems` (what `dsh-prompt
   * check` does to go on with the other agents). Otherwise they fail the load like every other problem.
   */
  lenientAgents?: boolean
  /**
   * Rehearse every agent's first step at boot (`boot-check.ts`): assemble and render once for each
   * agent (or the deployment when it has none) and fail the boot with everything that step would throw
   * (every failing provider, unknown or valueless `{{variables}}`, two complete sections, a failing
   * listener). Default `false`: the boot renders nothing, and such a problem surfaces at the first `step()`.
   */
  check?: boolean
  /** The largest deployment file read, in bytes (default 4 MiB; see `loadDeployment`). */
  maxFileBytes?: number
  /** The most YAML tokens, and double-quoted characters, a deployment file may hold (see `loadDeployment`). */
  maxYamlTokens?: number
  maxDoubleQuotedChars?: number
  /** How long one row's import, apply and disposal may take (see `loadDeployment`'s `timeouts`). */
  timeouts?: LoadOptions['timeouts']
  /** Told as each row is imported and mounted (see `loadDeployment`'s `onRow`). */
  onRow?: LoadOptions['onRow']
}

/** The services of a booted deployment, read through the host context; `agents` and `tools` when a row provides them. */
export interface DeploymentServices {
  readonly systemPrompt: SystemPrompt
  readonly agents?: Agents
  readonly tools?: ToolRegistry
}

/** A loaded deployment with its agents: what a harness needs, and `dispose()` to unload it all. */
export interface BootedDeployment {
  /** The Cordis app everything lives in. */
  readonly app: Context
  /**
   * The host plugin's context. It injects every service in {@link services}; what is registered
   * through it (a section, a runtime context, a listener) lives until {@link dispose}.
   */
  readonly ctx: Context
  /** The loaded file: its rows (`entries`), its `agents:` rows (`sections.agents`), `locate()`. */
  readonly deployment: Deployment<AgentSections>
  readonly services: DeploymentServices
  /** The agents of `agents:` that were created, in file order. */
  readonly agents: readonly Agent[]
  /** Problems creating agents (only with `lenientAgents`; otherwise they fail the boot). */
  readonly problems: readonly Problem[]
  /** A live agent by id: one of `agents:` or one made by {@link createAgent}. */
  agent(id: string): Agent | undefined
  /**
   * Creates an agent in code, owned by the host context (it goes with {@link dispose}, or with its own
   * `dispose()`). Throws `AGENT_NO_AGENTS_SERVICE` when no row provides the `agents` service, and the
   * `AGENT_*` errors of `agents.create()`.
   */
  createAgent(options: CreateAgentOptions): Promise<Agent>
  /** Unloads everything, in the reverse order of the boot: the host (and its agents), the rows, the logger bridge. Idempotent. */
  dispose(): Promise<void>
}

/**
 * Boots the deployment file `file` for a harness: loads every row into a fresh Cordis app, provides the
 * services through a host context and creates the agents of `agents:` in file order. Every problem of
 * the file (and of its agents, and of `toolOrder`) is thrown together as one `DeploymentError`
 * (`code` `LOADER_DEPLOYMENT_FAILED`, `details.problems`); nothing is left loaded when it throws.
 */
export async function bootDeployment(file: string, options: BootOptions = {}): Promise<BootedDeployment> {
  const app = new Context()
  const bridge = app.plugin(LoggerBridge, {
    level: options.logLevel ?? 'warn',
    stack: !!options.stack,
    colors: options.color === false ? false : 'auto',
    target: options.logTarget,
  })
  await bridge
  let loaderCtx: Context | undefined
  const loader = app.plugin({ name: 'dsh-deployment', apply(ctx: Context) { loaderCtx = ctx } })
  await loader
  const state: HookState = { agents: [], problems: [] }
  const unload = async (deployment?: Deployment<AgentSections>) => {
    try {
      await state.fiber?.dispose()
      // Rejects when a row would not unload in time: the loader and the bridge still go.
      await deployment?.dispose()
    } finally {
      await loader.dispose()
      await bridge.dispose()
    }
  }
  let deployment: Deployment<AgentSections>
  try {
    deployment = await loadDeployment(loaderCtx!, file, {
      env: options.env,
      maxFileBytes: options.maxFileBytes,
      ...(options.maxYamlTokens === undefined ? {} : { maxYamlTokens: options.maxYamlTokens }),
      ...(options.maxDoubleQuotedChars === undefined ? {} : { maxDoubleQuotedChars: options.maxDoubleQuotedChars }),
      timeouts: options.timeouts,
      onRow: options.onRow,
      sections: { agents: AgentsSection },
      afterLoad: afterLoadHook(state, !!options.lenientAgents, !!options.check),
    })
  } catch (error) {
    await unload()
    throw error
  }
  return booted(app, state, deployment, once(() => unload(deployment)))
}

/** The result of a clean boot, read from the host context. */
function booted(app: Context, state: HookState, deployment: Deployment<AgentSections>, dispose: () => Promise<void>): BootedDeployment {
  const ctx = state.ctx!
  const agents = ctx.get('agents') ?? undefined
  const services: DeploymentServices = { systemPrompt: ctx.systemPrompt, agents, tools: ctx.get('tools') ?? undefined }
  return {
    app, ctx, deployment, services, dispose,
    agents: state.agents,
    problems: state.problems,
    agent: (id) => agents?.get(id),
    async createAgent(options) {
      if (!agents) throw noAgentsServiceError()
      return agents.create(options)
    },
  }
}

/** `fn` run once; later calls get the first call's promise. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined
  return () => (done ??= fn())
}
