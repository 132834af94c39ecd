import type { Context } from 'cordis'
import type { Agent } from 'dsh-agent'
import Presets, { type Config } from 'dsh-presets'
import { bootApp, type BootedApp } from 'dsh-testing'

// The helpers every package shares (bootApp, captureLogs, rejection) come from `dsh-testing`; these
// set up the deployment the presets are mounted in and read what an agent sends.

/** The deployment persona every agent without a preset persona gets. */
export const DEPLOYMENT = 'You are the deployment\'s assistant.'
/** A shared section every agent's prompt carries (unless a complete persona claims the prompt). */
export const PLAN = 'Plan before you edit.'
/** The shared runtime context's text. */
export const SANDBOX = 'Sandbox: read-only.'
/** The snapshot an agent that sees the runtime context gets. */
export const SNAPSHOT = `Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\n${SANDBOX}`

/** A plugin contributing the shared plan section and the sandbox runtime context. */
export const Shared = {
  name: 'shared',
  inject: ['systemPrompt'],
  apply(ctx: Context) {
    ctx.systemPrompt.section({ name: 'plan:policy', order: ctx.systemPrompt.getSectionOrder('plan:policy'), text: PLAN })
    ctx.systemPrompt.context({ name: 'sandbox:policy', order: ctx.systemPrompt.getContextOrder('sandbox:policy'), text: SANDBOX })
  },
}

/** A plugin registering the tools `bash`, `read` and `write` (or the names it is given). */
export const Tools = {
  name: 'test-tools',
  inject: ['tools'],
  apply(ctx: Context, config: { names?: string[] } = {}) {
    for (const name of config.names ?? ['bash', 'read', 'write']) {
      ctx.tools.register({ name, description: `The ${name} tool.`, parameters: { type: 'object', properties: {} } })
    }
  },
}

/**
 * A booted app: the three services (unless `tools: false`, the tool registry and the tools are left out),
 * the tools and the shared plugin, and a host plugin injecting `systemPrompt` and `agents` (agents are
 * created through it).
 */
export async function boot(options: { tools?: boolean } = {}): Promise<BootedApp> {
  const withTools = options.tools !== false
  const booted = await bootApp({
    systemPrompt: { includeHarnessIdentity: false, persona: DEPLOYMENT },
    tools: withTools,
    agents: true,
    host: { inject: ['systemPrompt', 'agents'] },
  })
  if (withTools) await booted.app.plugin(Tools, {})
  await booted.app.plugin(Shared)
  return booted
}

/** Loads the presets plugin with `config` and resolves to its fiber (to dispose it). */
export async function loadPresets(app: Context, config: Partial<Config>): Promise<{ dispose(): Promise<unknown> }> {
  const fiber = app.plugin(Presets, config)
  await fiber
  return fiber as unknown as { dispose(): Promise<unknown> }
}

/** Creates an agent through `ctx` and takes one step; resolves to the agent and what the step produced. */
export async function stepAgent(ctx: Context, id: string, preset?: string) {
  const agent = await ctx.agents.create({ id, model: 'test-model', ...preset !== undefined && { preset } })
  // The step's request, body and report are accessors of its class: a spread would leave them out.
  return Object.assign(await agent.stepDetailed('hi'), { agent })
}

/** The tool names of a step's request. */
export async function toolNames(agent: Agent): Promise<string[]> {
  const { request } = await agent.stepDetailed()
  return (request.tools ?? []).map((tool) => tool.function.name)
}
