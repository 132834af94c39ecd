/**
 * What runs once the deployment's plugins have loaded, inside the loader's `afterLoad` hook: the host
 * plugin that injects the services, the agents of `agents:` (in file order, so parents come first),
 * and the `toolOrder` check of the deployment's assembly and of each agent's.
 * @module
 */
import type { Context, Fiber } from 'cordis'
import type { Agent, Agents } from 'dsh-agent'
import { parseKeyPath, type Deployment, type Problem, type ProblemInput } from 'dsh-loader'
import SystemPrompt from 'dsh-system-prompt'
import type { AgentSpec, AgentsSchema } from './agents-section.js'
import { agentNotCreated, describeError, inAssemblies, noAgentsService, noPromptService } from './errors.js'

/** The sections the CLI declares to the loader. */
export type CliSections = { agents: AgentsSchema }

/** What the hook leaves behind for the boot. */
export interface HookState {
  /** The host plugin's fiber (disposed by the boot when the load fails). */
  fiber?: Fiber
  /** The host plugin's context: injects `systemPrompt`, and `agents` and `tools` when provided. */
  ctx?: Context
  /** The agents created, in file order. */
  agents: Agent[]
  /** Agent problems kept out of the load (lenient mode), as full problems. */
  problems: Problem[]
}

const TOOL_ORDER_PREFIX = 'toolOrder lists unregistered tool'
const RESERVED_PREFIX = 'tool provider returned reserved tool name'

/**
 * Builds the `afterLoad` hook. With `lenient`, problems creating agents are kept in `state.problems`
 * (for `check`, which goes on with the other agents) instead of failing the load.
 */
export function afterLoadHook(state: HookState, lenient: boolean) {
  return async (ctx: Context, deployment: Deployment<CliSections>): Promise<ProblemInput[]> => {
    if (!ctx.get('systemPrompt')) return [{ key: 'plugins', message: noPromptService() }]
    const hasAgents = !!ctx.get('agents')
    const hasTools = !!ctx.get('tools')
    const inject = ['systemPrompt', ...(hasAgents ? ['agents'] : []), ...(hasTools ? ['tools'] : [])]
    state.fiber = ctx.plugin({ name: 'dsh-prompt', inject, apply(host: Context) { state.ctx = host } })
    await state.fiber
    const host = state.ctx!
    const specs = deployment.sections.agents ?? []
    const problems: ProblemInput[] = []
    if (specs.length && !hasAgents) problems.push({ key: 'agents', message: noAgentsService() })
    else if (specs.length) problems.push(...await createAgents(host.get('agents') as Agents, specs, state))
    if (lenient) {
      for (const input of problems.splice(0)) state.problems.push(toProblem(deployment, input))
    }
    problems.push(...await checkToolOrder(host, deployment, state.agents))
    return problems
  }
}

/** Creates the agents in file order; an agent whose parent failed is skipped (that failure is reported). */
async function createAgents(agents: Agents, specs: readonly AgentSpec[], state: HookState): Promise<ProblemInput[]> {
  const problems: ProblemInput[] = []
  const failed = new Set<string>()
  for (const [index, spec] of specs.entries()) {
    if (spec.parent !== undefined && failed.has(spec.parent)) {
      failed.add(spec.id)
      continue
    }
    try {
      state.agents.push(await agents.create({ ...spec }))
    } catch (error) {
      failed.add(spec.id)
      const message = describeError(error)
      const key = message.startsWith('unknown preset') ? 'preset' : message.startsWith('promptChange') ? 'promptChange' : 'id'
      problems.push({ key: `agents[${index}].${key}`, message: agentNotCreated(spec.id, message) })
    }
  }
  return problems
}

/**
 * Assembles once for the deployment and once for each agent, and reports a `toolOrder` naming an
 * unregistered tool against the `dsh-system-prompt` row's `config.toolOrder`, and a provider returning
 * the reserved name against its own row. Other assembly failures are left to the commands.
 */
async function checkToolOrder(host: Context, deployment: Deployment<CliSections>, agents: readonly Agent[]): Promise<ProblemInput[]> {
  const found = new Map<string, { where: string[]; culprit?: string }>()
  const targets: Array<{ label: string; agent?: Agent }> = [{ label: 'the deployment' }, ...agents.map((agent) => ({ label: `agent "${agent.id}"`, agent }))]
  for (const target of targets) {
    try {
      await host.systemPrompt.assemble(target.agent ? { scope: target.agent, agent: target.agent } : {})
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (!message.startsWith(TOOL_ORDER_PREFIX) && !message.startsWith(RESERVED_PREFIX)) continue
      const item = found.get(message) ?? { where: [], culprit: (error as { culprit?: string }).culprit }
      item.where.push(target.label)
      found.set(message, item)
    }
  }
  const promptRow = deployment.entries.find((entry) => entry.plugin === SystemPrompt || entry.name === 'dsh-system-prompt')
  const problems: ProblemInput[] = []
  for (const [message, { where, culprit }] of found) {
    const text = where.length === targets.length ? message : inAssemblies(message, where)
    if (message.startsWith(TOOL_ORDER_PREFIX)) problems.push({ entry: promptRow?.id, key: promptRow ? toolOrderKey(promptRow.config, message) : undefined, message: text })
    else problems.push({ entry: deployment.entries.find((entry) => entry.fiber.name === culprit)?.id, message: text })
  }
  return problems
}

/** The key of the first unregistered name in `toolOrder` (so the line and column point at it), else of the list. */
function toolOrderKey(config: unknown, message: string): string {
  const name = /^toolOrder lists unregistered tools? "((?:[^"\\]|\\.)*)"/.exec(message)?.[1]
  const order = (config as { toolOrder?: unknown } | undefined)?.toolOrder
  const index = Array.isArray(order) && name !== undefined ? order.indexOf(name) : -1
  return index < 0 ? 'config.toolOrder' : `config.toolOrder[${index}]`
}

/** A problem made here rather than by the loader (lenient mode), placed in the file like the loader would. */
function toProblem(deployment: Deployment<CliSections>, input: ProblemInput): Problem {
  const position = deployment.locate(input.key ? parseKeyPath(input.key) : [])
  const problem: Problem = { file: deployment.displayFile, code: input.code ?? 'LOADER_CHECK_PROBLEM', message: input.message }
  if (position) {
    problem.line = position.line
    problem.column = position.column
  }
  if (input.key) problem.key = input.key
  return problem
}

