/**
 * Every message of `dsh-prompt`, made in one place, plus the error type that carries an exit code.
 * Tests and docs (`docs/troubleshooting.md`) quote these strings. Each error and message carries a
 * stable `code` (`CLI_*`, or the code of the error it reports) and the `details` it is about. Two kinds,
 * one shape each: everything the CLI throws is a {@link CliError} (code, details, kind, exit code),
 * made here; a message that is not thrown (a finding of `check`, a problem of a replay script) is a
 * `{ code, message, details }` object ({@link CliMessage}), and {@link thrown} turns one into a
 * `CliError` when it must be thrown. The CLI decides by codes, never by words.
 * @module
 */
import { codeOf, LoaderErrors, type LoaderMessage } from 'dsh-loader'
import { PromptErrors } from 'dsh-system-prompt/internal'
import { formatCount, formatShare } from './table.js'

/** Exit codes: 0 ok, 1 the deployment (or the check) is wrong, 2 a usage error. `diff` adds 1 = differ. */
export const EXIT = { ok: 0, wrong: 1, usage: 2 } as const

/** What kind of failure an error is, as `--json` reports it in `error.kind`. */
export type FailureKind = 'usage' | 'deployment' | 'render' | 'ledger' | 'internal'

/** A message of the CLI that is not thrown: its words, its stable code and the fields it is about. */
export type CliMessage<C extends string = string, D extends object = object> = LoaderMessage<C, D>

/** An error the CLI reports as readable lines and an exit code (never with a stack unless `--stack`). */
export class CliError<C extends string = string, D extends object = object> extends Error {
  override name = 'CliError'
  constructor(message: string, readonly kind: FailureKind, readonly exitCode: number, readonly code: C, readonly details: D, options?: { cause?: unknown }) {
    super(message, options)
  }

  /** True for a `CliError` (also across duplicate copies of this module). */
  static is(error: unknown): error is CliError {
    return error instanceof Error && error.name === 'CliError' && typeof (error as CliError).exitCode === 'number'
  }
}

/** A message of the catalogue thrown as the CLI's one error shape, a `CliError` of `kind` (exit 2 for usage, else 1). */
export const thrown = <C extends string, D extends object>(message: CliMessage<C, D>, kind: FailureKind) =>
  new CliError(message.message, kind, kind === 'usage' ? EXIT.usage : EXIT.wrong, message.code, message.details)

/** A usage error (exit 2) with its code and details. */
export const usage = <C extends string, D extends object>(message: string, code: C, details: D) =>
  new CliError(message, 'usage', EXIT.usage, code, details)

// ---- usage ------------------------------------------------------------------------------------

/** `--agent` names an id the file's `agents:` does not declare. */
export const unknownAgent = (id: string, file: string, declared: readonly string[]) =>
  usage(`agent ${JSON.stringify(id)} is not declared in ${file}; declared agents: ${declared.length ? declared.join(', ') : '(none: the file has no agents: section)'}`,
    'CLI_UNKNOWN_AGENT' as const, { agent: id, file, declared })

/** `--agent` given twice to `render`, `explain` or `replay`, which show one agent (thrown by the option's parser). */
export const oneAgentOnly = (command: string, first: string, second: string) =>
  usage(`${command} shows one agent, but --agent was given twice (${first}, ${second}); to compare two agents, run "dsh-prompt diff <deployment> --agent ${first} --agent ${second}"`,
    'CLI_ONE_AGENT_ONLY' as const, { command, first, second })

/** `render --request` on a file without agents. */
export const requestNeedsAgent = (file: string) =>
  usage(`--request needs an agent: ${file} declares none, and a request needs an agent's model (add an agents: section)`, 'CLI_REQUEST_NEEDS_AGENT' as const, { file })

/** `render --format` with a name that is not a wire format. */
export const unknownFormat = (format: string, known: readonly string[]) =>
  usage(`--format must be one of ${known.join(', ')}, received ${JSON.stringify(format)}`, 'CLI_UNKNOWN_FORMAT' as const, { format, known })

/** `render --format` without `--request`: only the request body has a format. */
export const formatNeedsRequest = () =>
  usage('--format chooses the shape of the request body: use it together with --request', 'CLI_FORMAT_NEEDS_REQUEST' as const, {})

/** `explain --format` or `diff --format` on a file without agents: only an agent's request has a wire format. */
export const formatNeedsAgent = (file: string) =>
  usage(`--format orders an agent's request as its provider hashes it: ${file} declares no agent, so there is no request (add an agents: section)`, 'CLI_FORMAT_NEEDS_AGENT' as const, { file })

/** `diff` with neither two files nor one file and two `--agent`. */
export const diffArguments = (files: number, agents: number) =>
  usage(`diff compares two deployment files, or one deployment file with two --agent options (got ${files} ${files === 1 ? 'file' : 'files'} and ${agents} --agent ${agents === 1 ? 'option' : 'options'})`,
    'CLI_DIFF_ARGUMENTS' as const, { files, agents })

/** `--html <file>` that cannot be written (a missing folder, no permission, a directory). */
export const htmlNotWritten = (file: string, cause: unknown) =>
  new CliError(`cannot write the page to ${file}: ${describeError(cause)}`, 'usage', EXIT.usage, 'CLI_HTML_NOT_WRITTEN' as const,
    { file, reason: codeOf(cause) ?? null }, { cause })

/** `--max-yaml-tokens` or `--max-quoted-chars` that is not a whole number of at least 1 (thrown by the option's parser). */
export const invalidLimit = (flag: string, value: string) =>
  usage(`${flag} must be a whole number (at least 1), received ${JSON.stringify(value)}`, 'CLI_INVALID_LIMIT' as const, { flag, received: value })

/** `--max-file-size` that is not a whole number of bytes, at least 1 (thrown by the option's parser). */
export const invalidFileSize = (value: string) =>
  usage(`--max-file-size must be a whole number of bytes (at least 1), received ${JSON.stringify(value)}`, 'CLI_INVALID_FILE_SIZE' as const, { received: value })

/** `check --render-gap` that is not a whole number of milliseconds up to 10 s. */
export const invalidGap = (value: string) =>
  usage(`--render-gap must be a whole number of milliseconds from 0 to 10000, received ${JSON.stringify(value)}`, 'CLI_INVALID_GAP' as const, { received: value })

/** The code `--json` gives a usage error that commander reports itself (a missing argument, an unknown option, a value outside an option's choices). */
export const COMMANDER_USAGE = 'CLI_USAGE'

/** Appended to commander's own usage messages. */
export const USAGE_HINT = '(run "dsh-prompt --help" or "dsh-prompt <command> --help" for usage)'

// ---- the deployment ---------------------------------------------------------------------------

/**
 * An assembly or render failure of one target; the cause's message (and code, in `details.cause`)
 * follows. `valueless` is the variable the cause says has no value, for the hint on `cwd` and `provider`.
 */
export const renderFailed = (target: string, cause: unknown, valueless?: string) =>
  new CliError(`cannot render ${target}: ${describeError(cause)}${valueless ? loopVariableHint(valueless) : ''} (run "dsh-prompt check" to list every problem)`,
    'render', EXIT.wrong, 'CLI_RENDER_FAILED' as const, { target, cause: codeOf(cause) }, { cause })

/** Printed after the problem lines of a deployment that failed to load. */
export const loadFailed = (file: string, count: number) =>
  `${file} could not be loaded: ${count} ${count === 1 ? 'problem' : 'problems'}`

/** After two or more problems that start with a YAML syntax error: the later ones often follow from it. */
export const YAML_CASCADE_HINT = '(the problems after the first YAML syntax error often follow from it: fix that one first, then run again)'

/**
 * An assembly of `label` (in the deployment `file`) that did not settle within the bound: only its `system-prompt/assemble`
 * listeners can wait, so it names their plugins (`listeners`, as rows show them); `owner` is the one
 * listener's plugin when there is only one (check places the finding at its row).
 */
export const assemblyTimeout = (label: string, file: string, ms: number, listeners: readonly string[], owner?: string) => {
  const quoted = listeners.map((name) => JSON.stringify(name))
  const who = listeners.length === 1 ? `the system-prompt/assemble listener of ${quoted[0]} has not returned`
    : listeners.length ? `one of the system-prompt/assemble listeners of ${quoted.join(', ')} has not returned` : 'nothing it waits for has settled'
  return new CliError(`the assembly for ${label} (${file}) did not finish within ${ms} ms: ${who} (raise the limit with --timeout <ms>)`,
    'render', EXIT.wrong, 'CLI_ASSEMBLY_TIMEOUT' as const, { target: label, file, wait: 'assembly', ms, listeners, owner })
}

/** Where a late failure or an exit came from: a row (`plugins[1] (id "x"), line 4`), or nothing known. */
const byRow = (row: string | undefined) => (row ? ` by ${row}` : '')

/** `process.exit()` called by a plugin during a command: intercepted, and the command fails. */
export const pluginExit = (exitCode: unknown, row: string | undefined, cause?: unknown) =>
  new CliError(`process.exit(${describeExitCode(exitCode)}) was called${byRow(row) || ' by a plugin of the deployment'} while the command ran; a plugin may not end dsh-prompt, so the command fails`,
    'deployment', EXIT.wrong, 'CLI_PLUGIN_EXIT' as const, { exitCode: typeof exitCode === 'number' ? exitCode : null, row: row ?? null }, { cause })

/** What an intercepted `process.exit()` throws into the plugin that called it (its code unwinds, as it expected to stop). */
export const exitIntercepted = (exitCode: unknown) =>
  new CliError(`process.exit(${describeExitCode(exitCode)}) was called; dsh-prompt does not let a plugin end the process`,
    'deployment', EXIT.wrong, 'CLI_EXIT_INTERCEPTED' as const, { exitCode: typeof exitCode === 'number' ? exitCode : null })

/** An exception nobody caught (a throw in a plugin's timer) while the command ran. */
export const uncaughtException = (error: unknown, row: string | undefined) =>
  new CliError(`an exception nobody caught was thrown${byRow(row)} while the command ran: ${LoaderErrors.describeError(error)}`,
    'deployment', EXIT.wrong, 'CLI_UNCAUGHT_EXCEPTION' as const, { row: row ?? null, cause: codeOf(error) ?? null }, { cause: error })

/** A promise rejection nobody handled while the command ran. */
export const unhandledRejection = (reason: unknown, row: string | undefined) =>
  new CliError(`a promise was rejected${byRow(row)} and nobody handled it while the command ran: ${LoaderErrors.describeError(reason)}`,
    'deployment', EXIT.wrong, 'CLI_UNHANDLED_REJECTION' as const, { row: row ?? null, cause: codeOf(reason) ?? null }, { cause: reason })

/** `--timeout` that is not a whole number of milliseconds from 1 to 2^31 - 1 (thrown by the option's parser). */
export const invalidTimeout = (value: string) =>
  usage(`--timeout must be a whole number of milliseconds from 1 to 2147483647, received ${JSON.stringify(value)}`, 'CLI_INVALID_TIMEOUT' as const, { received: value })

function describeExitCode(code: unknown): string {
  return typeof code === 'number' ? String(code) : code === undefined ? '' : describeError(code)
}

// ---- check ------------------------------------------------------------------------------------

/** An assembly that failed for a reason `check` has no rule for; it keeps the error's code. */
export const assemblyFailed = (error: unknown) =>
  ({ code: codeOf(error) ?? 'CLI_ASSEMBLY_FAILED', message: describeError(error), details: {} })

/** A tool of the assembly whose request JSON cannot be made (a `toJSON` that throws, ...): render would fail sending it. */
export const toolNotSendable = (tool: string, origin: string, cause: unknown) => ({
  code: 'CLI_TOOL_NOT_SENDABLE' as const,
  message: `tool ${JSON.stringify(tool)} (${origin}) cannot be sent: serialising the request body fails: ${describeError(cause)}`,
  details: { tool, origin },
})

/**
 * A tool the providers of `formats` refuse (issue 20): its name breaks their documented pattern, or its
 * parameters are not an object schema. Keeps the wire problem's code (`WIRE_INVALID_TOOL_NAME`,
 * `WIRE_INVALID_TOOL_PARAMETERS`); `what` is the rule it breaks, in words.
 */
export const toolRefused = (code: string, tool: string, origin: string, formats: readonly string[], what: string) => ({
  code,
  message: `tool ${JSON.stringify(tool)} (${origin}) cannot be sent to ${formats.join(', ')}: ${what}`,
  details: { tool, origin, formats: [...formats] },
})

/** A problem of one section's or context's text, after `<kind> "<name>" (<origin>): `; it keeps the problem's code. */
export const inEntry = (kind: 'section' | 'context', name: string, origin: string, problem: { code: string; message: string }) =>
  ({ code: problem.code, message: `${kind} ${JSON.stringify(name)} (${origin}): ${problem.message}`, details: { kind, name, origin } })

/** A registered variable without a value in this agent's assembly, at a place in the text. */
export const valuelessAt = (name: string, line: number, column: number) => ({
  code: 'CLI_VALUELESS_AT' as const,
  message: `prompt variable "{{${name}}}" has no value for this assembly at line ${line}, column ${column}${loopVariableHint(name)}`,
  details: { variable: name, line, column },
})

/** How to give the loop variables `cwd` and `provider` a value (they come from the agent's row); empty for others. */
export const loopVariableHint = (name: string) =>
  name === 'cwd' || name === 'provider' ? `; set ${name}: on the agent in agents:` : ''

/** A section or context whose text differs between two renders in a row. */
/**
 * A warning of `check`: a section declared more volatile renders before a less volatile one, so each
 * change of the first sends everything after it again, uncached (R-CACHE-9).
 */
export const volatileBeforeStable = (
  volatile: { name: string; volatility: string; origin: string }, stable: { name: string; volatility: string }, bytes: number,
) => ({
  code: 'CLI_VOLATILE_BEFORE_STABLE' as const,
  message: `section ${JSON.stringify(volatile.name)} (${volatile.origin}, ${volatile.volatility}) renders before the less volatile section ${JSON.stringify(stable.name)} (${stable.volatility}): each change of it sends the ${bytes} bytes of system prompt after it again, uncached (give it a later order, or a band: 'last')`,
  details: { section: volatile.name, volatility: volatile.volatility, before: stable.name, beforeVolatility: stable.volatility, bytes },
})

export const unstableText = (kind: 'section' | 'context', name: string, origin: string, byte: number) => ({
  code: 'CLI_UNSTABLE_TEXT' as const,
  message: `${kind} ${JSON.stringify(name)} (${origin}) renders differently on two renders in a row (from byte ${byte}): a clock or random value ${kind === 'section'
    ? 'changes the system prompt on every request and defeats the provider\'s prefix cache'
    : 'changes the runtime context on every request, so every request appends a new snapshot message to the conversation (the cached prefix before it survives)'}`,
  details: { kind, name, origin, byte },
})

/** Two neighbouring first-party sections whose orders are less than ten apart. */
export const placementsTooClose = (a: { name: string; order: number }, b: { name: string; order: number }) => ({
  code: 'CLI_PLACEMENTS_TOO_CLOSE' as const,
  message: `first-party sections ${JSON.stringify(a.name)} (order ${a.order}) and ${JSON.stringify(b.name)} (order ${b.order}) are closer than ten apart (keep first-party placements ten apart)`,
  details: { first: { name: a.name, order: a.order }, second: { name: b.name, order: b.order } },
})

/** The assembly's `multiple complete prompt sections` error, with where each section comes from; it keeps the error's code. */
export const completeSections = (cause: { code: string; message: string }, origins: readonly string[]) =>
  ({ code: cause.code, message: `${cause.message} (${origins.join('; ')})`, details: { origins } })

/** A preset `deny` list naming tools no plugin registers (`dsh-presets`' `unresolvedTools`). */
export const unresolvedRestriction = (preset: string, names: readonly string[]) => ({
  code: 'CLI_UNRESOLVED_RESTRICTION' as const,
  message: `preset ${JSON.stringify(preset)} restricts ${names.length === 1 ? 'a tool' : 'tools'} that no plugin registers: ${names.map((n) => JSON.stringify(n)).join(', ')} (such a name restricts nothing)`,
  details: { preset, names },
})

/**
 * A preset `allow` list naming tools no plugin registers: the name lets nothing through, and when no
 * allowed name is registered the preset's agents get no tool at all.
 */
export const unresolvedAllow = (preset: string, names: readonly string[], none: boolean) => ({
  code: 'CLI_UNRESOLVED_ALLOW' as const,
  message: `preset ${JSON.stringify(preset)} allows ${names.length === 1 ? 'a tool' : 'tools'} that no plugin registers: ${names.map((n) => JSON.stringify(n)).join(', ')} (${none
    ? 'no name of its tools.allow is registered, so its agents get no tool at all'
    : 'such a name allows nothing; its agents get only the registered tools of tools.allow'})`,
  details: { preset, names, none },
})

// ---- replay -----------------------------------------------------------------------------------

/** The keys that say what a replay turn is; each turn has exactly one. */
export const REPLAY_KINDS = ['user', 'assistant', 'tool', 'change', 'row', 'clock', 'fork', 'subagent', 'tools', 'compact'] as const

/** One problem of a replay script: where it is (file, line, column, the turn) and what is wrong, with its code. */
export interface ScriptProblem extends CliMessage {
  readonly file: string
  readonly line?: number
  readonly column?: number
  /** The turn at fault, as `turns[3] (tool)`. */
  readonly item?: string
}

/** The script file could not be read. */
export const scriptUnreadable = (reason: string) =>
  ({ code: 'CLI_REPLAY_UNREADABLE' as const, message: `cannot read the replay script: ${reason}`, details: { reason } })

/** A YAML syntax error in the script. */
export const scriptYaml = (reason: string) =>
  ({ code: 'CLI_REPLAY_YAML' as const, message: `YAML syntax error: ${reason}`, details: { reason } })

/** The script's top level is not a mapping with a `turns:` list. */
export const scriptShape = (found: string) =>
  ({ code: 'CLI_REPLAY_SHAPE' as const, message: `a replay script is a mapping with a "turns:" list, found ${found}`, details: { found } })

/** A key the script's top level or a turn does not have. */
export const scriptUnknownKey = (key: string, allowed: readonly string[]) =>
  ({ code: 'CLI_REPLAY_UNKNOWN_KEY' as const, message: `unknown key ${JSON.stringify(key)} (allowed: ${allowed.join(', ')})`, details: { key, allowed } })

/** A turn that is not a mapping, or has none (or several) of the kind keys. */
export const scriptItemKind = (found: string) => ({
  code: 'CLI_REPLAY_ITEM_KIND' as const,
  message: `a turn is a mapping with exactly one of the keys ${REPLAY_KINDS.join(', ')}; found ${found}`,
  details: { found, kinds: REPLAY_KINDS },
})

/** A value of a turn with the wrong type (`key` is its path inside the turn, like `tool.result`). */
export const scriptWrongType = (key: string, expected: string, found: string) =>
  ({ code: 'CLI_REPLAY_WRONG_TYPE' as const, message: `${JSON.stringify(key)} must be ${expected}, found ${found}`, details: { key, expected, found } })

/** A `clock:` value that is not `+<n>d`, `+<n>h` or `+<n>m`. */
export const scriptBadClock = (found: string) => ({
  code: 'CLI_REPLAY_BAD_CLOCK' as const,
  message: `clock must be +<n>d, +<n>h or +<n>m (the clock moves on by a whole number of days, hours or minutes), found ${found}`,
  details: { found },
})

/** An assistant reply with neither text nor tool calls (nothing to record). */
export const scriptEmptyReply = () =>
  ({ code: 'CLI_REPLAY_EMPTY_REPLY' as const, message: 'an assistant reply needs text ("assistant: <text>") or tool_calls', details: {} })

/** A tool call's `arguments` that is neither an object nor the JSON text of one. */
export const scriptBadArguments = (reason: string) =>
  ({ code: 'CLI_REPLAY_BAD_ARGUMENTS' as const, message: `"arguments" must be an object or the JSON text of one: ${reason}`, details: { reason } })

/** A `tool:` result for a tool no earlier assistant reply called. */
export const scriptNoCall = (name: string, called: readonly string[]) => ({
  code: 'CLI_REPLAY_NO_CALL' as const,
  message: `the result of tool ${JSON.stringify(name)} answers no call: no earlier assistant reply called it (called so far: ${called.length ? called.map((n) => JSON.stringify(n)).join(', ') : '(none)'})`,
  details: { name, called },
})

/** A script with problems: each is listed (`details.problems`); nothing was played. */
export const scriptInvalid = (file: string, problems: readonly ScriptProblem[]) =>
  usage(`the replay script ${file} has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}: nothing was played`,
    'CLI_REPLAY_SCRIPT_INVALID' as const, { file, problems })

/** One problem of a script as a line: `file:line:column: turns[3] (tool): message`. */
export function scriptProblemLine(problem: ScriptProblem): string {
  const place = problem.file + (problem.line !== undefined ? `:${problem.line}:${problem.column ?? 1}` : '')
  return `${place}: ${problem.item ? `${problem.item}: ` : ''}${problem.message}`
}

/** `replay` on a file without agents: a replay plays an agent's conversation. */
export const replayNeedsAgent = (file: string) =>
  usage(`replay needs an agent: ${file} declares none (add an agents: section)`, 'CLI_REPLAY_NEEDS_AGENT' as const, { file })

/** A turn that failed while playing (a row change the loader refused, a step that failed); the cause's code is in `details.cause`. */
export const replayTurnFailed = (place: string, item: string, cause: unknown) =>
  new CliError(`${place}: ${item}: ${describeError(cause)}`, 'deployment', EXIT.wrong, 'CLI_REPLAY_TURN_FAILED' as const,
    { place, item, cause: codeOf(cause), problems: (cause as { problems?: unknown }).problems }, { cause })

/** A row change restarted the `agents` service (or the agent's preset), which disposed the agent being replayed. */
export const replayAgentGone = (place: string, item: string, agent: string) =>
  new CliError(`${place}: ${item}: the change disposed agent ${JSON.stringify(agent)} (it restarted a service the agent lives in, so its conversation ended): change a row whose plugin applies the change in place, or one no agent depends on`,
    'deployment', EXIT.wrong, 'CLI_REPLAY_AGENT_GONE' as const, { place, item, agent })

/** `replay --ledger <file>`: the file could not be written. */
export const ledgerUnwritable = (file: string, cause: unknown) =>
  new CliError(`cannot write the ledger ${file}: ${codeOf(cause) === 'ENOENT' ? 'no such folder' : codeOf(cause) === 'EISDIR' ? 'it is a directory' : codeOf(cause) === 'EACCES' ? 'permission denied' : describeError(cause)}`,
    'ledger', EXIT.wrong, 'CLI_REPLAY_LEDGER_UNWRITABLE' as const, { file, cause: codeOf(cause) }, { cause })

/** A replay clock is already installed in this process (two replays at once would move each other's clock). */
export const clockBusy = () =>
  new CliError('a replay clock is already installed in this process: replays run one at a time', 'internal', EXIT.wrong, 'CLI_REPLAY_CLOCK_BUSY' as const, {})

// ---- helpers ----------------------------------------------------------------------------------

/** An error as one line: its message, prefixed by its name unless that is a plain `Error`. */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) {
      const name = error.name && !['Error', 'PromptError', 'CliError'].includes(error.name) ? `${error.name}: ` : ''
      return name + String(error.message).split(/\r?\n/).map((line) => line.trim()).filter(Boolean).join(' ')
    }
  } catch {
    // A revoked Proxy, a throwing `message` getter: described below.
  }
  return PromptErrors.messageOf(error)
}

// ---- history ----------------------------------------------------------------------------------

/** `history` could not read the ledger file (`reason`: no such file, a directory, ...). */
export const ledgerUnreadable = (file: string, cause: unknown) => {
  const code = codeOf(cause)
  const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : describeError(cause)
  return new CliError(`cannot read the ledger ${file}: ${reason}`, 'ledger', EXIT.wrong, 'CLI_LEDGER_UNREADABLE' as const, { file, reason }, { cause })
}

/** `history` refused a ledger: the refusal names the line; the error keeps its code (`AGENT_LEDGER_*`; `CLI_LEDGER_REFUSED` for one without). */
export const ledgerRefused = (file: string, cause: { message: string; details?: { line?: number } }) =>
  new CliError(`${file}: ${cause.message}`, 'ledger', EXIT.wrong, codeOf(cause) ?? 'CLI_LEDGER_REFUSED', { file, line: cause.details?.line ?? null }, { cause })

/** A `tool:` result for a tool whose every call in the last reply has its result already. */
export const scriptCallAnswered = (name: string) => ({
  code: 'CLI_REPLAY_CALL_ANSWERED' as const,
  message: `every call of tool ${JSON.stringify(name)} in the last assistant reply has its result already (a reply that calls a tool twice gets one tool: turn per call, in order)`,
  details: { name },
})

/** Calls of the last reply without a result when the next request (or reply) comes: no provider accepts that conversation. */
export const scriptUnanswered = (calls: readonly string[]) => ({
  code: 'CLI_REPLAY_UNANSWERED_CALL' as const,
  message: `the last assistant reply's ${calls.length === 1 ? 'call' : 'calls'} ${calls.join(', ')} ${calls.length === 1 ? 'has' : 'have'} no result before the next request: every call needs its tool: turn first (providers refuse a conversation with an unanswered call)`,
  details: { calls },
})

// ---- bounded inputs -----------------------------------------------------------------------------

/** A replay script with more turns than `--max-turns` allows (checked before any turn is read). */
export const scriptTooManyTurns = (turns: number, limit: number) => ({
  code: 'CLI_REPLAY_TOO_MANY_TURNS' as const,
  message: `the script has ${turns} turns, more than the limit of ${limit}: each turn may run a step, whose request grows with the turns before it (split the script, or raise the limit with --max-turns <n>)`,
  details: { turns, limit },
})

/**
 * `history` refused to read a ledger file: not a regular file, or over `--max-file-size` (the loader's
 * check, refused before it is opened); the error keeps the loader's code and fields.
 */
export const ledgerNotRead = (file: string, cause: { code: string; message: string; details?: object }) =>
  new CliError(cause.message, 'ledger', EXIT.wrong, cause.code, { file, ...cause.details }, { cause })

// ---- context budgets ----------------------------------------------------------------------------

/**
 * A warning of `check` and `explain`: the system prompt and tools alone take more than `limit` of the
 * agent's input budget (its model profile: `docs/sessions.md`).
 */
export const headOverBudget = (agent: string, share: { profile: string; origin: string; budget: number; headTokens: number; share: number; limit: number; exact: boolean }) => ({
  code: 'CLI_HEAD_OVER_BUDGET' as const,
  message: `the system prompt and tools take ${formatShare(share.share)} of the input budget (${formatCount(share.headTokens)} of ${formatCount(share.budget)} tokens${share.exact ? '' : ', estimated'}, profile ${share.profile}${share.origin === 'default' ? ': the conservative default for a model the table does not know' : ''}), above the ${Math.round(share.limit * 100)}% threshold: every request carries them and compaction cannot shrink them (trim sections or tools, or give the agent's row a profile with its model's real window)`,
  details: { agent, profile: share.profile, origin: share.origin, headTokens: share.headTokens, budget: share.budget, share: share.share, limit: share.limit },
})
