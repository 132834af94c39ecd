/**
 * Every error message of `dsh-agent`, made in one place so tests and docs quote the same strings.
 * Each error keeps its class and message and carries a stable `code` (`AGENT_*`) and the `details`
 * it is about: code that reacts to an error reads those, never the message.
 * @module
 */
import { PromptErrors } from 'dsh-system-prompt/internal'

/** `value` as JSON when it can be written so (`42`, `""`), else described (`a bigint (1)`): never throws. */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return PromptErrors.describe(value)
  }
}

/** `create()` was given an id that is not a non-empty string. */
export const invalidAgentId = (id: unknown) =>
  Object.assign(new TypeError(`agent id must be a non-empty string, received ${shown(id)}`), {
    code: 'AGENT_INVALID_ID' as const, details: { received: id },
  })

/** `create()` was given no model (or not a non-empty string) for agent `id`. */
export const invalidModel = (id: string) =>
  Object.assign(new TypeError(`agent "${id}" needs a model (a non-empty string)`), {
    code: 'AGENT_INVALID_MODEL' as const, details: { id },
  })

/** `create()` was given the id of a live agent. */
export const duplicateAgent = (id: string) =>
  Object.assign(new Error(`agent "${id}" already exists; dispose it first or choose another id`), {
    code: 'AGENT_DUPLICATE_ID' as const, details: { id },
  })

/** `create()` names a preset that is not defined; `known` lists the defined ids (sorted). */
export const unknownPreset = (id: string, known: readonly string[]) =>
  Object.assign(new Error(`unknown preset "${id}"; known presets: ${known.length ? known.join(', ') : '(none)'}`), {
    code: 'AGENT_UNKNOWN_PRESET' as const, details: { preset: id, known },
  })

/** `definePreset()` was given the id of a preset that is already defined. */
export const duplicatePreset = (id: string) =>
  Object.assign(new Error(`preset "${id}" is already defined`), {
    code: 'AGENT_DUPLICATE_PRESET' as const, details: { preset: id },
  })

/** `definePreset()` was given an id that is not a non-empty string. */
export const invalidPresetId = (id: unknown) =>
  Object.assign(new TypeError(`preset id must be a non-empty string, received ${shown(id)}`), {
    code: 'AGENT_INVALID_PRESET_ID' as const, details: { received: id },
  })

/** `create()` was given a `parent` that is neither an agent nor an agent id. */
export const invalidParent = (id: string, parent: unknown) =>
  Object.assign(new TypeError(`agent "${id}" parent must be an agent or an agent's id, received ${PromptErrors.describe(parent)}`), {
    code: 'AGENT_INVALID_PARENT' as const, details: { id },
  })

/** `create()` named a parent agent that does not exist (or is disposed). */
export const unknownParent = (id: string, parent: string) =>
  Object.assign(new Error(`agent "${id}" names parent agent "${parent}", which does not exist`), {
    code: 'AGENT_UNKNOWN_PARENT' as const, details: { id, parent },
  })

/** A `promptChange` other than `append` or `replace` (service config or `create()` option). */
export const invalidPromptChange = (value: unknown) =>
  Object.assign(new TypeError(`promptChange must be "append" or "replace", received ${JSON.stringify(value) ?? String(value)}`), {
    code: 'AGENT_INVALID_PROMPT_CHANGE' as const, details: { received: value },
  })

/** `step()` or `record()` on an agent that has been disposed. */
export const agentDisposed = (id: string) =>
  Object.assign(new Error(`agent "${id}" has been disposed`), {
    code: 'AGENT_DISPOSED' as const, details: { id },
  })

/** `record()` was given a malformed message; `problem` says what is wrong with it. */
export const invalidRecord = (id: string, problem: string) =>
  Object.assign(new TypeError(`agent "${id}" record(): ${problem}`), {
    code: 'AGENT_INVALID_RECORD' as const, details: { id, problem },
  })

/** `step(input)` was given an input that is not a string (or content parts that do not pass their checks: `problem`). */
export const invalidInput = (id: string, problem?: string) =>
  Object.assign(new TypeError(`agent "${id}" step(input): ${problem === undefined ? 'input must be a string when given' : `input parts: ${problem}`}`), {
    code: 'AGENT_INVALID_INPUT' as const, details: problem === undefined ? { id } : { id, problem },
  })

/** `step(..., { cacheRules })` names rules the reuse report does not model. */
export const unknownCacheRules = (id: string, rules: unknown, known: readonly string[]) =>
  Object.assign(new TypeError(`agent "${id}" step(): unknown cacheRules ${JSON.stringify(String(rules))}; known: ${known.join(', ')}`), {
    code: 'AGENT_UNKNOWN_CACHE_RULES' as const, details: { id, rules: String(rules), known },
  })

/** A step's assembly did not settle within its bound (`timeout`, or the service's `stepTimeout`). */
export const stepTimedOut = (id: string, ms: number, listeners: readonly string[]) =>
  Object.assign(new Error(`agent "${id}" step(): the assembly did not finish within ${ms} ms; ${listeners.length
    ? `the system-prompt/assemble listener${listeners.length > 1 ? 's' : ''} of ${listeners.map((name) => JSON.stringify(name)).join(', ')} ${listeners.length > 1 ? 'have' : 'has'} not returned`
    : 'no assemble listener runs, so a tool or text provider is holding it'} (raise the bound with the step's timeout option or the agents service's stepTimeout)`), {
    code: 'AGENT_STEP_TIMEOUT' as const, details: { id, ms, listeners: [...listeners] },
  })

/** A step `timeout` (or `stepTimeout`) that is not a number of milliseconds. */
export const invalidStepTimeout = (id: string, received: unknown) =>
  Object.assign(new TypeError(`agent "${id}" step(): timeout must be a number of milliseconds, 0 or more (0: no bound), received ${shown(received)}`), {
    code: 'AGENT_INVALID_STEP_TIMEOUT' as const, details: { id, received },
  })

// ---- the ledger (`exportLedger`, `readLedger`, `agents.restore()`, `FileLedgerStore`) ----------------
// Each names the line it is about (`details.line`, counted from 1; line 1 is the header). Nothing is
// restored when one is thrown.

/** The prefix of every ledger refusal: `ledger line <n>: `. */
const atLine = (line: number) => `ledger line ${line}: `

/** Line 1 is missing or is not a header of a ledger format this version reads. */
export const ledgerBadHeader = (problem: string) =>
  Object.assign(new Error(`${atLine(1)}not a dsh ledger header: ${problem}`), {
    code: 'AGENT_LEDGER_BAD_HEADER' as const, details: { line: 1, problem },
  })

/** A line that is not JSON (before the last line; a bad last line is {@link ledgerCutShort}). */
export const ledgerNotJson = (line: number, problem: string) =>
  Object.assign(new Error(`${atLine(line)}not JSON (${problem})`), {
    code: 'AGENT_LEDGER_NOT_JSON' as const, details: { line, problem },
  })

/** The last line is incomplete: no line break after it, or not complete JSON (a crash during a write). */
export const ledgerCutShort = (line: number) =>
  Object.assign(new Error(`${atLine(line)}the last line is cut short (an interrupted write leaves this: drop the line, e.g. with new FileLedgerStore(path, { dropCutShortLine: true }), and the conversation resumes from the line before)`), {
    code: 'AGENT_LEDGER_CUT_SHORT' as const, details: { line },
  })

/** A line's hash is not the hash of its fields and the previous line's hash. */
export const ledgerHashMismatch = (line: number) =>
  Object.assign(new Error(`${atLine(line)}the hash does not match: this line was changed, or a line before it was removed or moved`), {
    code: 'AGENT_LEDGER_HASH_MISMATCH' as const, details: { line },
  })

/** An entry line whose fields are not those the ledger writes (an unknown key, a role that does not fit its source, ...). */
export const ledgerBadLine = (line: number, problem: string) =>
  Object.assign(new Error(`${atLine(line)}${problem}`), {
    code: 'AGENT_LEDGER_BAD_LINE' as const, details: { line, problem },
  })

/** `record()` refused the reply or tool result of a line (its problem is `record()`'s own). */
export const ledgerInvalidEntry = (line: number, cause: { details?: { problem?: string }; message: string }) => {
  const problem = cause.details?.problem ?? cause.message
  return Object.assign(new TypeError(`${atLine(line)}the entry cannot be recorded: ${problem}`, { cause }), {
    code: 'AGENT_LEDGER_INVALID_ENTRY' as const, details: { line, problem },
  })
}

/** The ledger ends before the head hash the caller kept: lines at its end are missing. */
export const ledgerMissingLines = (line: number, head: string) =>
  Object.assign(new Error(`${atLine(line)}missing: the ledger ends at line ${line - 1} and no line has the expected head hash ${head.slice(0, 12)}…, so its last lines were lost`), {
    code: 'AGENT_LEDGER_MISSING_LINES' as const, details: { line, head },
  })

/** `LedgerStore.append()` was given a line with a line break in it (a ledger line is one line of JSON). */
export const ledgerLineBreak = (index: number) =>
  Object.assign(new TypeError(`ledger store append(): line ${index + 1} of the lines given contains a line break (each line must be one line of JSON)`), {
    code: 'AGENT_LEDGER_LINE_BREAK' as const, details: { index },
  })

/** `new LedgerWriter(agent, store, { stored })` with a count the agent's record cannot have. */
export const ledgerInvalidStored = (id: string, stored: unknown, most: number) =>
  Object.assign(new TypeError(`ledger writer for agent "${id}": stored must be the number of ledger lines already in the store, from 0 to ${most} (the header and one line per entry), received ${shown(stored)}`), {
    code: 'AGENT_LEDGER_INVALID_STORED' as const, details: { id, stored, most },
  })

/** A hash-valid line that is not written as the ledger writes it (keys out of order, a value the record would keep otherwise). */
export const ledgerNotCanonical = (line: number, problem: string) =>
  Object.assign(new Error(`${atLine(line)}not in the ledger's canonical form: ${problem} (a writer would chain its next line to a different hash; export the ledger again from an agent, or repair the line and its chain)`), {
    code: 'AGENT_LEDGER_NOT_CANONICAL' as const, details: { line, problem },
  })

/** An empty line (a ledger line is never empty; a trailing blank line is often an editor's or a tool's). */
export const ledgerBlankLine = (line: number, last: boolean) =>
  Object.assign(new Error(`${atLine(line)}the line is blank${last ? ' (a blank line after the last line: remove it, or read the file with new FileLedgerStore(path, { dropCutShortLine: true }), which cuts it off)' : ' (remove it; the hash chain goes on past it)'}`), {
    code: 'AGENT_LEDGER_BLANK_LINE' as const, details: { line, last },
  })

/** `new LedgerWriter(agent, store)` on a restored agent without `{ stored }`: it would write a second header and chain. */
export const ledgerWriterNeedsStored = (id: string, restored: number) =>
  Object.assign(new TypeError(`ledger writer for agent "${id}": the agent was restored from ${restored} ledger lines; pass { stored: ${restored} } to append to the store it came from, or { stored: 0 } to start a new store with the whole ledger`), {
    code: 'AGENT_LEDGER_WRITER_NEEDS_STORED' as const, details: { id, restored },
  })

/** A second `LedgerWriter` for one agent and one store (two writers would append two chains to one ledger). */
export const ledgerWriterExists = (id: string, store: string) =>
  Object.assign(new Error(`ledger writer for agent "${id}": ${store} has a writer for this agent already (two writers would append two chains to one ledger); keep using the first`), {
    code: 'AGENT_LEDGER_WRITER_EXISTS' as const, details: { id, store },
  })

/** Before a writer's first append, the store did not end where the writer's chain does (nothing is appended). */
export const ledgerStoreMismatch = (id: string, expected: { lines: number; head: string }, found: { lines: number; head: string }) => {
  const end = (at: { lines: number; head: string }) => at.lines ? `${at.lines} ${at.lines === 1 ? 'line' : 'lines'} ending with hash ${at.head.slice(0, 12)}…` : 'no line'
  return Object.assign(new Error(`ledger writer for agent "${id}": the store holds ${end(found)}, but the writer's chain expects ${end(expected)}; a line appended now would start a second chain, so nothing was appended (a wrong { stored }, or another writer appended to this store)`), {
    code: 'AGENT_LEDGER_STORE_MISMATCH' as const, details: { id, expected, found },
  })
}

/** An `agent/step` listener threw or rejected; the step stays complete (the failure is logged, not thrown). */
export const stepListenerFailed = (id: string, plugin: string, cause: unknown) =>
  Object.assign(new Error(`agent "${id}": agent/step listener of plugin "${plugin}" failed: ${PromptErrors.messageOf(cause)} (the step is recorded and its request returned)`, { cause }), {
    code: 'AGENT_STEP_LISTENER_FAILED' as const, details: { id, plugin },
  })

export const sessionStartListenerFailed = (id: string, plugin: string, cause: unknown) =>
  Object.assign(new Error(`agent "${id}": agent/session-start listener of plugin "${plugin}" failed: ${PromptErrors.messageOf(cause)} (the agent is created and its session started)`, { cause }), {
    code: 'AGENT_SESSION_START_LISTENER_FAILED' as const, details: { id, plugin },
  })

/** An `agent/resume` listener (or the `onResume` callback of `agents.restore()`) threw; the step goes on (the failure is logged, not thrown). */
export const resumeListenerFailed = (id: string, plugin: string, cause: unknown) =>
  Object.assign(new Error(`agent "${id}": agent/resume listener of plugin "${plugin}" failed: ${PromptErrors.messageOf(cause)} (the resume is decided and the step goes on)`, { cause }), {
    code: 'AGENT_RESUME_LISTENER_FAILED' as const, details: { id, plugin },
  })

/** `agents.restore(ledger, { resume })` with a policy that is not one of the resume policies. */
export const invalidResumePolicy = (value: unknown) =>
  Object.assign(new TypeError(`restore(): resume must be "authoritative" or "new-epoch", received ${JSON.stringify(value) ?? String(value)}`), {
    code: 'AGENT_INVALID_RESUME_POLICY' as const, details: { received: value },
  })

/** An `agent/usage` listener threw; the reply stays recorded (the failure is logged, not thrown). */
export const usageListenerFailed = (id: string, plugin: string, cause: unknown) =>
  Object.assign(new Error(`agent "${id}": agent/usage listener of plugin "${plugin}" failed: ${PromptErrors.messageOf(cause)} (the reply is recorded)`, { cause }), {
    code: 'AGENT_USAGE_LISTENER_FAILED' as const, details: { id, plugin },
  })

// ---- context budgets ------------------------------------------------------------------------------

/** `create()` (or an `agents:` row) was given a `profile` override that cannot be a model profile. */
export const invalidProfile = (id: string, key: string, reason: string) =>
  Object.assign(new TypeError(`agent "${id}": profile${key ? `.${key}` : ''}: ${reason}`), {
    code: 'AGENT_INVALID_PROFILE' as const, details: { id, key, reason },
  })

/** `agent.fork()` before the agent sent any request of the format: a fork repeats the latest request, so there must be one. */
export const forkWithoutRequest = (id: string, kind: string, format: string) =>
  Object.assign(new Error(`agent "${id}" fork("${kind}"): no ${format} request to fork from yet (call step() with format "${format}" first)`), {
    code: 'AGENT_FORK_NO_REQUEST' as const, details: { id, kind, format },
  })

/** `agent.fork()` was given options it cannot use (`problem` says which). */
export const invalidFork = (id: string, problem: string) =>
  Object.assign(new TypeError(`agent "${id}" fork(): ${problem}`), {
    code: 'AGENT_INVALID_FORK' as const, details: { id, problem },
  })

/**
 * A reply recorded into a fork whose tools are inert calls tools: the fork declares the parent's tools
 * only so its request repeats the parent's, and refuses the calls (`calls`: their names and ids).
 */
export const forkToolRefused = (id: string, kind: string, calls: readonly { id: string; name: string }[]) =>
  Object.assign(new Error(`agent "${id}" fork("${kind}"): its tools are inert, and the reply calls ${calls.map((call) => `"${call.name}" (${call.id})`).join(', ')}` + ' (a fork answers in text; run tools in the agent itself)'), {
    code: 'AGENT_FORK_TOOL_REFUSED' as const, details: { id, kind, calls },
  })

/** `agents.create({ start })` was given a start it cannot use (`problem` says which: an unknown value, no parent, another model or policy). */
export const invalidStart = (id: string, problem: string) =>
  Object.assign(new TypeError(`agent "${id}" start: ${problem}`), {
    code: 'AGENT_INVALID_START' as const, details: { id, problem },
  })

/** `agents.create({ start: 'parent' })` under a parent that has sent no request yet: there is no request to start from. */
export const startWithoutRequest = (id: string, parent: string) =>
  Object.assign(new Error(`agent "${id}" start "parent": parent agent "${parent}" has sent no request yet (step the parent first, or start the child "live" or "fresh")`), {
    code: 'AGENT_START_NO_REQUEST' as const, details: { id, parent },
  })

/** An agent's `toolChange` option (or the `agents` service's) is not a policy: `key` names the kind (`toolChange.removed`) or the option. */
export const invalidToolChange = (id: string | undefined, key: string, received: unknown) =>
  Object.assign(new TypeError(`${id === undefined ? '' : `agent "${id}": `}${key} must be ${key === 'toolChange' ? '"default", "immediate", "epoch" or an object of kinds (removed, added, edited, reordered)' : 'one of the choices of its kind (docs/sessions.md)'}, received ${shown(received)}`), {
    code: 'AGENT_INVALID_TOOL_CHANGE' as const, details: { ...(id === undefined ? {} : { id }), key, received },
  })

/**
 * A reply called a tool the agent declares but cannot run now: removed (its plugin disposed, or a
 * restriction hides it) and kept declared so the cache holds, or announced and not declared yet.
 */
export const toolUnavailable = (id: string, call: { id: string; name: string }, owner: string | null, reason: 'removed' | 'not-yet-declared') =>
  Object.assign(new Error(`agent "${id}": tool "${call.name}" (call ${call.id}) is unavailable: ${reason === 'removed' ? `it was removed${owner ? ` (its owner ${owner} is gone or hides it)` : ''} and stays listed only until the next epoch` : `it is announced and will be declared at the next epoch${owner ? ` (owner ${owner})` : ''}`}; do not call it again`), {
    code: 'AGENT_TOOL_UNAVAILABLE' as const, details: { id, call: call.id, tool: call.name, owner, reason },
  })

/** `agent.compactionSource()`, `planCompaction()` or `compact()` got options it cannot use (`problem` says which). */
export const invalidCompaction = (id: string, problem: string) =>
  Object.assign(new TypeError(`agent "${id}" compaction: ${problem}`), {
    code: 'AGENT_INVALID_COMPACTION' as const, details: { id, problem },
  })

/** A compaction that would summarise nothing: the kept tail starts at (or before) the first turn of the epoch. */
export const nothingToCompact = (id: string, keepTurns: number, turns: number) =>
  Object.assign(new Error(`agent "${id}" compaction: keeping the last ${keepTurns} ${keepTurns === 1 ? 'turn' : 'turns'} keeps the whole epoch (${turns} ${turns === 1 ? 'turn' : 'turns'}): there is nothing to summarise (keep fewer turns, or step on first)`), {
    code: 'AGENT_NOTHING_TO_COMPACT' as const, details: { id, keepTurns, turns },
  })

/** `plan.apply()` after the record changed since `planCompaction()` (a step, a reply, another compaction). */
export const compactionStale = (id: string, planned: number, now: number) =>
  Object.assign(new Error(`agent "${id}" compaction: the plan was made for a record of ${planned} ${planned === 1 ? 'entry' : 'entries'}, which has changed since (now ${now}); plan again`), {
    code: 'AGENT_COMPACTION_STALE' as const, details: { id, planned, now },
  })

/** An agent's `wire` options that are not of their shape; `key` names the one at fault (`promptUpdates.claude-x`, `prices.claude.read`). */
export const invalidWire = (id: string, key: string, reason: string) =>
  Object.assign(new TypeError(`agent "${id}": wire${key ? `.${key}` : ''}: ${reason}`), {
    code: 'AGENT_INVALID_WIRE' as const, details: { id, key, reason },
  })
