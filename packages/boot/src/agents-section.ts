/**
 * The `agents:` section of a deployment file, declared to the loader through `options.sections` (by
 * `bootDeployment`, and by anyone calling `loadDeployment` who wants the same section).
 * Each row is checked with a schemastery schema (every key described); the list as a whole is checked
 * for unknown keys, duplicate ids and parents listed after their children, and every problem of the
 * list is reported at once, each with its own path (`agents[1].preset`).
 * @module
 */
import z from 'schemastery'
import { SUBAGENT_STARTS, ToolChangeSchema, type AgentOptions, type SubagentStart } from 'dsh-agent'
import {
  AGENT_KEYS, agentsNotList, duplicateAgentId, emptyAgentValue, invalidAgentRow, ownParent, parentNotBefore, startParentOnRow, startWithoutParent, unknownAgentKey,
} from './errors.js'

/**
 * One agent as declared in `agents:`: `agents.create()`'s options, the parent named by the id of an
 * agent listed before, and how a sub-agent starts (`live` or `fresh`: `parent` needs a request the
 * parent has not sent when the file loads).
 */
export type AgentSpec = AgentOptions<string> & { start?: SubagentStart }

/** The schemastery schema of one `agents:` row; every key is described for config UIs. */
export const AgentRow: z<AgentSpec> = z.object({
  id: z.string().min(1).required().description('The agent id, unique in the file; `--agent <id>` picks it.'),
  model: z.string().min(1).required().description('The model name sent in requests and offered as `{{model}}`.'),
  provider: z.string().description('Offered as `{{provider}}`.'),
  cwd: z.string().description('The working folder, offered as `{{cwd}}`. `${VAR:-default}` substitution applies.'),
  preset: z.string().description('A preset id defined by a plugin of the deployment (e.g. `dsh-presets`): its scope becomes the agent\'s parent scope.'),
  parent: z.string().description('The id of an agent listed before this one: this agent is its sub-agent and sees its registrations.'),
  start: z.union(SUBAGENT_STARTS as SubagentStart[]).description('With `parent`: how the sub-agent starts (docs/sessions.md). `live` (default): its own scope rendered, sharing the parent\'s routing key; `fresh`: its own routing key under the parent\'s, claiming nothing of the parent\'s cache. `parent` is refused on a row (the parent has sent nothing when the file loads): use `agents.create({ parent, start: \'parent\' })`.'),
  promptChange: z.union(['append', 'replace'] as const).description('How a changed system prompt enters the requests; overrides the `dsh-agent` row\'s setting.'),
  profile: z.object({
    contextWindow: z.natural().min(1).description('Tokens the model attends to, input and output together.'),
    inputCap: z.natural().min(1).description('The most input tokens a request may carry (default: the window, or the table row\'s lower cap).'),
    outputReserve: z.natural().min(1).description('Tokens kept free for the reply when input and output share the window.'),
  }).description('Overrides of the model\'s profile over the bundled table (docs/sessions.md): what the step\'s budget and compaction advice measure against.'),
  toolChange: ToolChangeSchema,
  wire: z.any().description('How the agent\'s requests use the provider\'s own mechanisms (docs/deployment-file.md): `promptUpdates` (capability-table overrides), `diagnostics`, `ttlPlan`, `prices`, `toolAdditions`; checked by `agents.create()` (`AGENT_INVALID_WIRE`).'),
}) as any

/** One issue, in the Standard Schema shape the loader reads, with its stable code (which the problem takes). */
export interface Issue {
  code: string
  message: string
  path: Array<string | number>
}

/** An issue from a message of the catalogue: its code and words, at `path`. */
const issue = ({ code, message }: { code: string; message: string }, path: Array<string | number>): Issue => ({ code, message, path })

/** Validates the `agents:` list: every row's schema issues, unknown keys, duplicate ids, parent order. */
export function validateAgents(value: unknown): { value: AgentSpec[] } | { issues: Issue[] } {
  if (value === undefined || value === null) return { value: [] }
  if (!Array.isArray(value)) return { issues: [issue(agentsNotList(), [])] }
  const issues: Issue[] = []
  const rows: AgentSpec[] = []
  const seen = new Map<string, number>()
  value.forEach((item, index) => {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      for (const key of Object.keys(item)) {
        if (!(AGENT_KEYS as readonly string[]).includes(key)) issues.push(issue(unknownAgentKey(index, key), [index, key]))
      }
    }
    let row: AgentSpec
    try {
      row = AgentRow(item)
    } catch (error) {
      const path = (error as { options?: { path?: Array<string | number> } }).options?.path ?? []
      issues.push(issue(invalidAgentRow(index, path, error), [index, ...path]))
      return
    }
    // schemastery fills an absent object with `{}` and drops unknown keys: a row without `profile` keeps
    // none, and one with a key the schema does not know keeps it, for create() to refuse by name.
    const profile = (item as { profile?: unknown }).profile
    if (profile === undefined) delete row.profile
    else row.profile = profile as AgentSpec['profile']
    if ((item as { wire?: unknown }).wire === undefined) delete row.wire
    for (const key of ['cwd', 'provider'] as const) {
      if (row[key] === '') issues.push(issue(emptyAgentValue(index, key), [index, key]))
    }
    const first = seen.get(row.id)
    if (first !== undefined) issues.push(issue(duplicateAgentId(index, row.id, first), [index, 'id']))
    else seen.set(row.id, index)
    if (row.parent !== undefined) {
      // A parent must be listed before its child: an unknown parent, and any cycle, fail this check at the row that closes it.
      if (row.parent === row.id) issues.push(issue(ownParent(index, row.id), [index, 'parent']))
      else if (!seen.has(row.parent) || seen.get(row.parent)! >= index) issues.push(issue(parentNotBefore(index, row.id, row.parent), [index, 'parent']))
      else if (row.start === 'parent') issues.push(issue(startParentOnRow(index, row.id, row.parent), [index, 'start']))
    } else if (row.start !== undefined) {
      issues.push(issue(startWithoutParent(index, row.id, row.start), [index, 'start']))
    }
    rows.push(row)
  })
  return issues.length ? { issues } : { value: rows }
}

/** The Standard Schema shape of {@link AgentsSection} (typed so the loader knows its output). */
export interface AgentsSchema {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    validate(value: unknown): { value: AgentSpec[] } | { issues: Issue[] }
    readonly types?: { readonly input: unknown; readonly output: AgentSpec[] }
  }
}

/** The `agents:` section as a Standard Schema (what `loadDeployment`'s `options.sections` takes). */
export const AgentsSection: AgentsSchema = {
  '~standard': { version: 1, vendor: 'dsh-agent', validate: validateAgents },
}
