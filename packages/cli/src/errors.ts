/**
 * Every message of `dsh-prompt`, made in one place, plus the error type that carries an exit code.
 * Tests and docs (`docs/troubleshooting.md`) quote these strings.
 * @module
 */

/** Exit codes: 0 ok, 1 the deployment (or the check) is wrong, 2 a usage error. `diff` adds 1 = differ. */
export const EXIT = { ok: 0, wrong: 1, usage: 2 } as const

/** What kind of failure an error is, as `--json` reports it in `error.kind`. */
export type FailureKind = 'usage' | 'deployment' | 'render' | 'internal'

/** An error the CLI reports as readable lines and an exit code (never with a stack unless `--stack`). */
export class CliError extends Error {
  override name = 'CliError'
  constructor(message: string, readonly kind: FailureKind, readonly exitCode: number, options?: { cause?: unknown }) {
    super(message, options)
  }

  /** True for a `CliError` (also across duplicate copies of this module). */
  static is(error: unknown): error is CliError {
    return error instanceof Error && error.name === 'CliError' && typeof (error as CliError).exitCode === 'number'
  }
}

/** A usage error (exit 2). */
export const usage = (message: string) => new CliError(message, 'usage', EXIT.usage)

// ---- usage ------------------------------------------------------------------------------------

/** `--agent` names an id the file's `agents:` does not declare. */
export const unknownAgent = (id: string, file: string, declared: readonly string[]) =>
  usage(`agent ${JSON.stringify(id)} is not declared in ${file}; declared agents: ${declared.length ? declared.join(', ') : '(none: the file has no agents: section)'}`)

/** `--agent` given twice to `render` or `explain`, which show one agent. */
export const oneAgentOnly = (command: string, first: string, second: string) =>
  `${command} shows one agent, but --agent was given twice (${first}, ${second}); to compare two agents, run "dsh-prompt diff <deployment> --agent ${first} --agent ${second}"`

/** `render --request` on a file without agents. */
export const requestNeedsAgent = (file: string) =>
  usage(`--request needs an agent: ${file} declares none, and a request needs an agent's model (add an agents: section)`)

/** `diff` with neither two files nor one file and two `--agent`. */
export const diffArguments = (files: number, agents: number) =>
  usage(`diff compares two deployment files, or one deployment file with two --agent options (got ${files} ${files === 1 ? 'file' : 'files'} and ${agents} --agent ${agents === 1 ? 'option' : 'options'})`)

/** `check --render-gap` that is not a whole number of milliseconds up to 10 s. */
export const invalidGap = (value: string) =>
  usage(`--render-gap must be a whole number of milliseconds from 0 to 10000, received ${JSON.stringify(value)}`)

/** Appended to commander's own usage messages. */
export const USAGE_HINT = '(run "dsh-prompt --help" or "dsh-prompt <command> --help" for usage)'

// ---- the deployment ---------------------------------------------------------------------------

/** No row provides `systemPrompt` (missing or disabled `dsh-system-prompt`). */
export const noPromptService = () =>
  'no plugin provides the systemPrompt service: add a row "- name: dsh-system-prompt" under plugins:'

/** `agents:` without a row that provides `agents` (`dsh-agent`). */
export const noAgentsService = () =>
  'agents are declared but no plugin provides the agents service: add a row "- name: dsh-agent" under plugins:'

/** `agents.create()` refused an agent (an unknown preset, ...); `message` is its reason. */
export const agentNotCreated = (id: string, message: string) => `agent ${JSON.stringify(id)} could not be created: ${message}`

/** A `toolOrder` (or reserved tool name) problem that only some of the assemblies have. */
export const inAssemblies = (message: string, where: readonly string[]) => `${message} (in the assembly for ${where.join(', ')})`

/** An assembly or render failure of one target; the cause's message follows. */
export const renderFailed = (target: string, cause: unknown) => {
  const message = describeError(cause)
  const valueless = /^prompt variable "\{\{([a-z][a-z0-9_]*)\}\}" has no value/.exec(message)
  return new CliError(`cannot render ${target}: ${message}${valueless ? loopVariableHint(valueless[1]) : ''} (run "dsh-prompt check" to list every problem)`, 'render', EXIT.wrong, { cause })
}

/** Printed after the problem lines of a deployment that failed to load. */
export const loadFailed = (file: string, count: number) =>
  `${file} could not be loaded: ${count} ${count === 1 ? 'problem' : 'problems'}`

/** After two or more problems that start with a YAML syntax error: the later ones often follow from it. */
export const YAML_CASCADE_HINT = '(the problems after the first YAML syntax error often follow from it: fix that one first, then run again)'

// ---- agents: section --------------------------------------------------------------------------

/** The keys an `agents:` row may have. */
export const AGENT_KEYS = ['id', 'model', 'provider', 'cwd', 'preset', 'parent', 'promptChange'] as const

/** `agents:` is not a list. */
export const agentsNotList = () => 'expected a list of agents like "- { id: main, model: deepseek-chat }"'

// These read like schemastery's messages: `$[<index>].<key> ...` (the loader keeps a message that starts with `$`).

/** A key of an agent row that is not one of {@link AGENT_KEYS}. */
export const unknownAgentKey = (index: number, key: string) =>
  `$[${index}].${key} is not a key of an agent (allowed: ${AGENT_KEYS.join(', ')})`

/** An agent id an earlier row already has. */
export const duplicateAgentId = (index: number, id: string, first: number) =>
  `$[${index}].id ${JSON.stringify(id)} is already the id of agents[${first}] (agent ids are unique in the file)`

/** A `parent` that is not an agent listed before the row (agents are created in file order). */
export const parentNotBefore = (index: number, id: string, parent: string) =>
  `$[${index}].parent ${JSON.stringify(parent)} is not an agent listed before ${JSON.stringify(id)} (list parents before their children)`

/** An agent's `cwd` or `provider` that is the empty string (often a `${VAR}` that is set but empty). */
export const emptyAgentValue = (index: number, key: 'cwd' | 'provider') =>
  `$[${index}].${key} is empty, so {{${key}}} would render as nothing (set a value or leave ${key} out; a \${VAR} that is set but empty gives "", \${VAR:-default} falls back to the default)`

/** An agent naming itself as its parent. */
export const ownParent = (index: number, id: string) => `$[${index}].parent names the agent itself (${JSON.stringify(id)})`

// ---- check ------------------------------------------------------------------------------------

/** A registered variable without a value in this agent's assembly, at a place in the text. */
export const valuelessAt = (name: string, line: number, column: number) =>
  `prompt variable "{{${name}}}" has no value for this assembly at line ${line}, column ${column}${loopVariableHint(name)}`

/** How to give the loop variables `cwd` and `provider` a value (they come from the agent's row); empty for others. */
export const loopVariableHint = (name: string) =>
  name === 'cwd' || name === 'provider' ? `; set ${name}: on the agent in agents:` : ''

/** A section or context whose text differs between two renders in a row. */
export const unstableText = (kind: 'section' | 'context', name: string, origin: string, byte: number) =>
  `${kind} ${JSON.stringify(name)} (${origin}) renders differently on two renders in a row (from byte ${byte}): a clock or random value ${kind === 'section'
    ? 'changes the system prompt on every request and defeats the provider\'s prefix cache'
    : 'changes the runtime context on every request, so every request appends a new snapshot message to the conversation (the cached prefix before it survives)'}`

/** Two neighbouring first-party sections whose orders are less than ten apart. */
export const placementsTooClose = (a: { name: string; order: number }, b: { name: string; order: number }) =>
  `first-party sections ${JSON.stringify(a.name)} (order ${a.order}) and ${JSON.stringify(b.name)} (order ${b.order}) are closer than ten apart (keep first-party placements ten apart)`

/** The assembly's `multiple complete prompt sections` message, with where each section comes from. */
export const completeSections = (message: string, origins: readonly string[]) => `${message} (${origins.join('; ')})`

/** A preset `deny` list naming tools no plugin registers (`dsh-presets`' `unresolvedTools`). */
export const unresolvedRestriction = (preset: string, names: readonly string[]) =>
  `preset ${JSON.stringify(preset)} restricts ${names.length === 1 ? 'a tool' : 'tools'} that no plugin registers: ${names.map((n) => JSON.stringify(n)).join(', ')} (such a name restricts nothing)`

/**
 * A preset `allow` list naming tools no plugin registers: the name lets nothing through, and when no
 * allowed name is registered the preset's agents get no tool at all.
 */
export const unresolvedAllow = (preset: string, names: readonly string[], none: boolean) =>
  `preset ${JSON.stringify(preset)} allows ${names.length === 1 ? 'a tool' : 'tools'} that no plugin registers: ${names.map((n) => JSON.stringify(n)).join(', ')} (${none
    ? 'no name of its tools.allow is registered, so its agents get no tool at all'
    : 'such a name allows nothing; its agents get only the registered tools of tools.allow'})`

// ---- helpers ----------------------------------------------------------------------------------

/** An error as one line: its message, prefixed by its name unless that is a plain `Error`. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const name = error.name && !['Error', 'PromptError', 'CliError'].includes(error.name) ? `${error.name}: ` : ''
    return name + error.message.split(/\r?\n/).map((line) => line.trim()).filter(Boolean).join(' ')
  }
  return String(error)
}
