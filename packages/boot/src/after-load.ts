/**
 * What runs once the deployment's plugins have loaded, inside the loader's `afterLoad` hook: the host
 * plugin that injects the services, the agents of `agents:` (in file order, so parents come first),
 * and the `toolOrder` check of the deployment's assembly and of each agent's.
 * @module
 */
import type { Context, Fiber } from 'cordis'
import { codeOf, detailsOf, parseKeyPath, type Deployment, type LoaderMessage, type Problem, type ProblemInput } from 'dsh-loader'
import SystemPrompt from 'dsh-system-prompt'
import type { Agent, Agents } from 'dsh-agent'
import type { AgentSpec, AgentsSchema } from './agents-section.js'
import { agentNotCreated, inAssemblies, noAgentsService, noPromptService } from './errors.js'
import { checkFirstSteps } from './boot-check.js'

/** A problem reported after loading: always with its code. */
type CodedInput = ProblemInput & { code: string }

/** The sections `bootDeployment` declares to the loader: `agents:`. */
export type AgentSections = { agents: AgentsSchema }

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

const AGENT_KEY_OF_CODE: ReadonlyMap<string, string> = new Map([['AGENT_UNKNOWN_PRESET', 'preset'], ['AGENT_INVALID_PROMPT_CHANGE', 'promptChange'], ['AGENT_INVALID_PROFILE', 'profile'], ['AGENT_INVALID_TOOL_CHANGE', 'toolChange'], ['AGENT_INVALID_WIRE', 'wire'], ['AGENT_INVALID_START', 'start']])

/** The assembly errors reported after loading: an unregistered `toolOrder` name, a provider returning the reserved name. */
const TOOL_ORDER = 'PROMPT_TOOL_ORDER_UNREGISTERED'
const RESERVED = 'PROMPT_RESERVED_TOOL_NAME'

/**
 * Builds the `afterLoad` hook. With `lenient`, problems creating agents are kept in `state.problems`
 * (for `check`, which goes on with the other agents) instead of failing the load; with `check`, each
 * agent's first step is rehearsed once the rest is sound (`boot-check.ts`).
 */
export function afterLoadHook(state: HookState, lenient: boolean, check = false) {
  return async (ctx: Context, deployment: Deployment<AgentSections>): Promise<CodedInput[]> => {
    if (!ctx.get('systemPrompt')) return [{ key: 'plugins', ...noPromptService() }]
    const hasAgents = !!ctx.get('agents')
    const hasTools = !!ctx.get('tools')
    const inject = ['systemPrompt', ...(hasAgents ? ['agents'] : []), ...(hasTools ? ['tools'] : [])]
    state.fiber = ctx.plugin({ name: 'dsh-host', inject, apply(host: Context) { state.ctx = host } })
    await state.fiber
    const host = state.ctx!
    const specs = deployment.sections.agents ?? []
    const problems: CodedInput[] = []
    if (specs.length && !hasAgents) problems.push({ key: 'agents', ...noAgentsService() })
    else if (specs.length) problems.push(...await createAgents(host.get('agents') as Agents, specs, state))
    if (lenient) {
      for (const input of problems.splice(0)) state.problems.push(toProblem(deployment, input))
    }
    problems.push(...await checkToolOrder(host, deployment, state.agents))
    if (check && problems.length === 0) problems.push(...await checkFirstSteps(host, deployment, state.agents))
    return problems
  }
}

/** Creates the agents in file order; an agent whose parent failed is skipped (that failure is reported). */
async function createAgents(agents: Agents, specs: readonly AgentSpec[], state: HookState): Promise<CodedInput[]> {
  const problems: CodedInput[] = []
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
      const key = agentKeyOf(error)
      problems.push({ key: `agents[${index}].${key}`, ...agentNotCreated(spec.id, error) })
    }
  }
  return problems
}

/** The `agents:` key a refusal of `agents.create()` points at, by the refusal's code: `preset`, `promptChange`, `profile.<figure>`, else `id`. */
export function agentKeyOf(error: unknown): string {
  const key = AGENT_KEY_OF_CODE.get(codeOf(error) ?? '') ?? 'id'
  // A profile refusal names the figure at fault (`profile.outputReserve`).
  const figure = detailsOf<{ key: string }>(error, 'AGENT_INVALID_PROFILE')?.key
  return figure ? `${key}.${figure}` : key
}

/**
 * The assembly error the load reports, as `{ code, message, details }`: a `toolOrder` naming an
 * unregistered tool, or a provider returning the reserved name (told apart by code); else `undefined`.
 */
export function loadTimeAssemblyError(error: unknown): LoaderMessage | undefined {
  const code = codeOf(error)
  if (code !== TOOL_ORDER && code !== RESERVED) return undefined
  const { message, details } = error as LoaderMessage
  return { code, message, details }
}

/**
 * Reads the tool check (`systemPrompt.checkTools`, the record every assembly makes) once for the
 * deployment and once for each agent, without running text providers or listeners, and reports a
 * `toolOrder` naming an unregistered tool against the `dsh-system-prompt` row's `config.toolOrder`, and a
 * provider returning the reserved name against its own row. A failing tool provider is left to the commands.
 */
async function checkToolOrder(host: Context, deployment: Deployment<AgentSections>, agents: readonly Agent[]): Promise<CodedInput[]> {
  // The same error in several assemblies is reported once: errors are the same when code and details are.
  const found = new Map<string, { cause: LoaderMessage; where: string[] }>()
  const targets: Array<{ label: string; agent?: Agent }> = [{ label: 'the deployment' }, ...agents.map((agent) => ({ label: `agent ${JSON.stringify(agent.id)}`, agent }))]
  for (const target of targets) {
    let problem: Error | undefined
    try {
      problem = host.systemPrompt.checkTools(target.agent ? { scope: target.agent, agent: target.agent } : {}).problem
    } catch {
      continue
    }
    const cause = loadTimeAssemblyError(problem)
    if (!cause) continue
    const same = `${cause.code} ${JSON.stringify(cause.details)}`
    const item = found.get(same) ?? { cause, where: [] }
    item.where.push(target.label)
    found.set(same, item)
  }
  const promptRow = deployment.entries.find((entry) => entry.plugin === SystemPrompt || entry.name === 'dsh-system-prompt')
  const problems: CodedInput[] = []
  for (const { cause, where } of found.values()) {
    const problem = where.length === targets.length ? cause : inAssemblies(cause, where)
    const missing = detailsOf<{ missing: string[] }>(cause, TOOL_ORDER)?.missing
    if (missing) problems.push({ entry: promptRow?.id, key: promptRow ? toolOrderKey(promptRow.config, missing[0]) : undefined, ...problem })
    else {
      const owner = detailsOf<{ owner: string }>(cause, RESERVED)?.owner
      problems.push({ entry: deployment.entries.find((entry) => entry.fiber.name === owner)?.id, ...problem })
    }
  }
  return problems
}

/** The key of the first unregistered name in `toolOrder` (so the line and column point at it), else of the list. */
function toolOrderKey(config: unknown, name: string | undefined): string {
  const order = (config as { toolOrder?: unknown } | undefined)?.toolOrder
  const index = Array.isArray(order) && name !== undefined ? order.indexOf(name) : -1
  return index < 0 ? 'config.toolOrder' : `config.toolOrder[${index}]`
}

/** A problem made here rather than by the loader (lenient mode), placed in the file like the loader would. */
function toProblem(deployment: Deployment<AgentSections>, input: CodedInput): Problem {
  const position = deployment.locate(input.key ? parseKeyPath(input.key) : [])
  const problem: Problem = { file: deployment.displayFile, code: input.code, message: input.message }
  if (position) {
    problem.line = position.line
    problem.column = position.column
  }
  if (input.key) problem.key = input.key
  return problem
}

