/**
 * Every error message of `dsh-agent`, made in one place so tests and docs quote the same strings.
 * Each error keeps its class and message and carries a stable `code` (`AGENT_*`) and the `details`
 * it is about: code that reacts to an error reads those, never the message.
 * @module
 */
import { LoaderErrors } from 'dsh-loader'

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

/** `step(input)` was given an input that is not a string. */
export const invalidInput = (id: string) =>
  Object.assign(new TypeError(`agent "${id}" step(input): input must be a string when given`), {
    code: 'AGENT_INVALID_INPUT' as const, details: { id },
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

// ---- a deployment file's agents (`bootDeployment`, the `agents:` section) ---------------------------
// Not thrown: each is a `{ code, message, details }` message that becomes one problem of the load.

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
export const AGENT_KEYS = ['id', 'model', 'provider', 'cwd', 'preset', 'parent', 'promptChange', 'profile'] as const

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

/** An agent naming itself as its parent. */
export const ownParent = (index: number, id: string) =>
  ({ code: 'AGENT_OWN_PARENT' as const, message: `$[${index}].parent names the agent itself (${JSON.stringify(id)})`, details: { index, id } })

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

// ---- context budgets ------------------------------------------------------------------------------

/** `create()` (or an `agents:` row) was given a `profile` override that cannot be a model profile. */
export const invalidProfile = (id: string, key: string, reason: string) =>
  Object.assign(new TypeError(`agent "${id}": profile${key ? `.${key}` : ''}: ${reason}`), {
    code: 'AGENT_INVALID_PROFILE' as const, details: { id, key, reason },
  })
