/**
 * Loading a deployment file and creating its agents: a fresh Cordis app with the `LoggerBridge`
 * (stderr), the rows of the file through `dsh-loader`, then the agents of `agents:` from a host plugin
 * context that injects the services they need.
 * @module
 */
import type { Writable } from 'node:stream'
import { Context } from 'cordis'
import type { Agent, Agents } from 'dsh-agent'
import { loadDeployment, LoggerBridge, type Deployment, type LogLevel, type Problem } from 'dsh-loader'
import type { SystemPrompt } from 'dsh-system-prompt'
import type { ToolRegistry } from 'dsh-tools'
import { AgentsSection, type AgentSpec } from './agents-section.js'
import { afterLoadHook, type CliSections, type HookState } from './after-load.js'
import { Owners } from './owners.js'

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
   * Keep problems creating agents out of the load and return them in `problems` (what `check` does to
   * go on with the other agents). Otherwise they fail the load like every other problem.
   */
  lenientAgents?: boolean
}

/** A loaded deployment with its agents. */
export interface Booted {
  /** The Cordis app everything lives in. */
  readonly app: Context
  /** The host plugin's context: reads `systemPrompt`, `agents` and `tools` (the last two when provided). */
  readonly ctx: Context
  readonly deployment: Deployment<CliSections>
  readonly prompt: SystemPrompt
  readonly agentsService?: Agents
  readonly tools?: ToolRegistry
  /** The agents of `agents:` that were created, in file order. */
  readonly agents: readonly Agent[]
  /** The `agents:` rows as declared. */
  readonly specs: readonly AgentSpec[]
  /** Problems creating agents (only with `lenientAgents`). */
  readonly problems: readonly Problem[]
  /** Names owners and layers. */
  readonly owners: Owners
  /** Unloads everything. */
  dispose(): Promise<void>
}

/**
 * Loads `file` and creates its agents. Every problem of the file (and the agents, and `toolOrder`) is
 * thrown together as one `DeploymentError`; nothing is left loaded when it throws.
 */
export async function bootDeployment(file: string, options: BootOptions = {}): Promise<Booted> {
  const app = new Context()
  await app.plugin(LoggerBridge, {
    level: options.logLevel ?? 'warn',
    stack: !!options.stack,
    colors: options.color === false ? false : 'auto',
    target: options.logTarget,
  })
  let loaderCtx: Context | undefined
  const loader = app.plugin({ name: 'dsh-prompt-deployment', apply(ctx: Context) { loaderCtx = ctx } })
  await loader
  const state: HookState = { agents: [], problems: [] }
  let deployment: Deployment<CliSections>
  try {
    deployment = await loadDeployment(loaderCtx!, file, {
      env: options.env,
      sections: { agents: AgentsSection },
      afterLoad: afterLoadHook(state, !!options.lenientAgents),
    })
  } catch (error) {
    await state.fiber?.dispose()
    await loader.dispose()
    throw error
  }
  const ctx = state.ctx!
  return {
    app,
    ctx,
    deployment,
    prompt: ctx.systemPrompt,
    agentsService: ctx.get('agents') ?? undefined,
    tools: ctx.get('tools') ?? undefined,
    agents: state.agents,
    specs: deployment.sections.agents ?? [],
    problems: state.problems,
    owners: new Owners(ctx, deployment),
    async dispose() {
      await state.fiber?.dispose()
      await deployment.dispose()
      await loader.dispose()
    },
  }
}
