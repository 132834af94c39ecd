import { expect } from 'chai'
import { Context, Logger, type Message } from 'cordis'
import Agents, { type Agent } from 'dsh-agent'
import Presets, { type Config } from 'dsh-presets'
import SystemPrompt from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'

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

/** A booted app: the three services, the shared plugin and (unless `tools: false`) the tools. */
export async function boot(options: { tools?: boolean } = {}): Promise<Context> {
  const app = new Context()
  await app.plugin(SystemPrompt, { includeHarnessIdentity: false, persona: DEPLOYMENT })
  if (options.tools !== false) {
    await app.plugin(ToolRegistry)
    await app.plugin(Tools, {})
  }
  await app.plugin(Agents)
  await app.plugin(Shared)
  return app
}

/** Loads the presets plugin with `config` and resolves to its fiber (to dispose it). */
export async function loadPresets(app: Context, config: Partial<Config>): Promise<{ dispose(): Promise<unknown> }> {
  const fiber = app.plugin(Presets, config)
  await fiber
  return fiber as unknown as { dispose(): Promise<unknown> }
}

/** A plugin context injecting what creating agents needs, resolved once it is active. */
export async function host(app: Context, inject: string[] = ['systemPrompt', 'agents']): Promise<Context> {
  let captured: Context | undefined
  await app.plugin({ name: 'host', inject, apply(ctx: Context) { captured = ctx } })
  expect(captured, 'host plugin was not applied').to.not.equal(undefined)
  return captured!
}

/** Creates an agent through `ctx` and takes one step; resolves to the agent and what the step produced. */
export async function stepAgent(ctx: Context, id: string, preset?: string) {
  const agent = await ctx.agents.create({ id, model: 'test-model', ...preset !== undefined && { preset } })
  return { agent, ...await agent.stepDetailed('hi') }
}

/** The tool names of a step's request. */
export async function toolNames(agent: Agent): Promise<string[]> {
  const { request } = await agent.stepDetailed()
  return (request.tools ?? []).map((tool) => tool.function.name)
}

/** Every log line of `app` from now on, formatted without colours, as `<type> <name>: <text>`. */
export function captureLogs(app: Context): string[] {
  const lines: string[] = []
  app.logger.exporter({
    colors: false,
    export(message: Message) {
      lines.push(`${message.type} ${message.name}: ${Logger.format({ colors: false, export() {} }, message)}`)
    },
  })
  return lines
}

/** Awaits `promise`, fails the test if it resolves, and returns the rejection reason. */
export async function rejection(promise: PromiseLike<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    expect(error).to.be.instanceOf(Error)
    return error as Error
  }
  expect.fail('expected a rejection')
}
