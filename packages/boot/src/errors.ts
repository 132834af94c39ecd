/**
 * Every message of `dsh-boot`, made in one place so tests and docs quote the same strings: the problems
 * of a deployment file's agents (`bootDeployment`, the `agents:` section). Each is a `{ code, message,
 * details }` message that becomes one problem of the load, placed at its key in the file; the one thrown
 * (`noAgentsServiceError`) is that message as an Error with the same code and details. The codes keep the `AGENT_` prefix they had when the boot lived in `dsh-agent`, so code and docs
 * that react to them are unchanged.
 * @module
 */
import { LoaderErrors } from 'dsh-loader'

/** An error as one line, as the messages below quote a cause. */
const describeError = (error: unknown): string => LoaderErrors.describeError(error)

/** No row provides `systemPrompt` (missing or disabled `dsh-system-prompt`). */
export const noPromptService = () => ({
  code: 'AGENT_NO_PROMPT_SERVICE' as const,
  message: 'no plugin provides the systemPrompt service: add a row "- name: dsh-system-prompt" under plugins:',
  details: {},
})

/** `agents:` (or `createAgent()`) without a row that provides `agents` (`dsh-agent`). */
export const noAgentsService = () => ({
  code: 'AGENT_NO_AGENTS_SERVICE' as const,
  message: 'agents are declared but no plugin provides the agents service: add a row "- name: dsh-agent" under plugins:',
  details: {},
})

/** `createAgent()` of a booted deployment without the agents service: {@link noAgentsService}, thrown. */
export const noAgentsServiceError = () => Object.assign(new Error(noAgentsService().message), noAgentsService())

/** `agents.create()` refused an agent of `agents:` (an unknown preset, ...): the problem takes the refusal's code. */
export const agentNotCreated = (id: string, cause: unknown) => ({
  code: LoaderErrors.codeOf(cause) ?? 'AGENT_NOT_CREATED',
  message: `agent ${JSON.stringify(id)} could not be created: ${describeError(cause)}`,
  details: { agent: id, reason: describeError(cause) },
})

/** A `toolOrder` (or reserved tool name) problem that only some of the assemblies have; it keeps the cause's code. */
export const inAssemblies = (cause: { code: string; message: string; details: object }, where: readonly string[]) =>
  ({ code: cause.code, message: `${cause.message} (in the assembly for ${where.join(', ')})`, details: { ...cause.details, where } })

/** The keys an `agents:` row may have. */
export const AGENT_KEYS = ['id', 'model', 'provider', 'cwd', 'preset', 'parent', 'start', 'promptChange', 'profile', 'toolChange', 'wire'] as const

/** `agents:` is not a list. */
export const agentsNotList = () =>
  ({ code: 'AGENT_ROWS_NOT_LIST' as const, message: 'expected a list of agents like "- { id: main, model: deepseek-chat }"', details: {} })

// These read like schemastery's messages: `$[<index>].<key> ...` (the loader keeps a message that starts with `$`).

/** A row of `agents:` its schema refuses; `path` is inside the row, `error` is schemastery's (its `$.path ` prefix dropped). */
export const invalidAgentRow = (index: number, path: ReadonlyArray<string | number>, error: unknown) => {
  const issue = (error instanceof Error ? error.message : String(error)).replace(/^\$\S*\s/, '')
  return {
    code: LoaderErrors.codeOf(error) ?? 'AGENT_INVALID_ROW',
    message: `$[${index}]${path.map((key) => typeof key === 'number' ? `[${key}]` : `.${key}`).join('')} ${issue}`,
    details: { index, path, issue },
  }
}

/** A key of an agent row that is not one of {@link AGENT_KEYS}. */
export const unknownAgentKey = (index: number, key: string) =>
  ({ code: 'AGENT_UNKNOWN_ROW_KEY' as const, message: `$[${index}].${key} is not a key of an agent (allowed: ${AGENT_KEYS.join(', ')})`, details: { index, key, allowed: AGENT_KEYS } })

/** An agent id an earlier row already has. */
export const duplicateAgentId = (index: number, id: string, first: number) => ({
  code: 'AGENT_DUPLICATE_ROW_ID' as const,
  message: `$[${index}].id ${JSON.stringify(id)} is already the id of agents[${first}] (agent ids are unique in the file)`,
  details: { index, id, first },
})

/** A `parent` that is not an agent listed before the row (agents are created in file order). */
export const parentNotBefore = (index: number, id: string, parent: string) => ({
  code: 'AGENT_PARENT_NOT_BEFORE' as const,
  message: `$[${index}].parent ${JSON.stringify(parent)} is not an agent listed before ${JSON.stringify(id)} (list parents before their children)`,
  details: { index, id, parent },
})

/** An agent's `cwd` or `provider` that is the empty string (often a `${VAR}` that is set but empty). */
export const emptyAgentValue = (index: number, key: 'cwd' | 'provider') => ({
  code: 'AGENT_EMPTY_ROW_VALUE' as const,
  message: `$[${index}].${key} is empty, so {{${key}}} would render as nothing (set a value or leave ${key} out; a \${VAR} that is set but empty gives "", \${VAR:-default} falls back to the default)`,
  details: { index, key },
})

/** A `start` on a row without `parent`: how a sub-agent starts is measured against its parent, so a top-level agent has none. */
export const startWithoutParent = (index: number, id: string, start: string) => ({
  code: 'AGENT_START_WITHOUT_PARENT' as const,
  message: `$[${index}].start ${JSON.stringify(start)} needs a parent: set parent to the id of an agent listed before ${JSON.stringify(id)}, or leave start out`,
  details: { index, id, start },
})

/**
 * `start: parent` on a row: the agents of `agents:` are created when the deployment loads, before any
 * request, so there is no latest request of the parent to start from.
 */
export const startParentOnRow = (index: number, id: string, parent: string) => ({
  code: 'AGENT_START_PARENT_ON_ROW' as const,
  message: `$[${index}].start "parent" cannot start ${JSON.stringify(id)} from ${JSON.stringify(parent)}'s latest request: the agents of agents: are created when the deployment loads, before ${JSON.stringify(parent)} has sent one (use start "live" or "fresh" here, or create the sub-agent with agents.create({ parent, start: "parent" }) once its parent has sent a request)`,
  details: { index, id, parent },
})

/** An agent naming itself as its parent. */
export const ownParent = (index: number, id: string) =>
  ({ code: 'AGENT_OWN_PARENT' as const, message: `$[${index}].parent names the agent itself (${JSON.stringify(id)})`, details: { index, id } })
