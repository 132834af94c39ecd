/**
 * Every error message of `dsh-system-prompt`, made in one place. The strings are part of the contract
 * (`SPEC.md` §3–9): tests and docs quote them from here.
 * @module
 */

/** `section` or `context`: the two kinds of named, ordered text. */
export type TextKind = 'section' | 'context'

/** The variable-name rule, as quoted in messages. */
export const VARIABLE_NAME_RULE = '/^[a-z][a-z0-9_]*$/'

/** An error raised while assembling or rendering; `culprit` names the entry or plugin at fault. */
export class PromptError extends Error {
  override name = 'PromptError'
  constructor(message: string, readonly culprit?: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/** A section or context whose `order` is not a finite number (SPEC §4). */
export const nonFiniteOrder = (kind: TextKind, name: string) =>
  new TypeError(`prompt ${kind} "${name}" order must be a finite number`)

/** A section, context or variable whose name is not a non-empty string free of control characters. */
export const invalidName = (kind: TextKind | 'variable', name: unknown) =>
  new TypeError(`prompt ${kind} name must be a non-empty string without control characters, received ${describe(name)}`)

/** A section or context whose `text` is neither a string nor a function. */
export const invalidText = (kind: TextKind, name: string, text: unknown) =>
  new TypeError(`prompt ${kind} "${name}" text must be a string or a function, received ${describe(text)}`)

/** A second registration of the same name and kind in the global layer (SPEC §4), with the hint to use a narrower scope. */
export const duplicateGlobal = (kind: TextKind | 'variable', name: string) =>
  new Error(`prompt ${kind} "${name}" is already registered (register the second one through a narrower scope to shadow it there)`)

/** A second registration of the same name and kind in one scope's layer (SPEC §4). */
export const duplicateScoped = (kind: TextKind | 'variable', name: string) =>
  new Error(`prompt ${kind} "${name}" is already registered in this scope`)

/** A variable name that does not match the variable-name rule (SPEC §9). */
export const invalidVariableName = (name: unknown) =>
  new TypeError(`invalid prompt variable name ${JSON.stringify(String(name))} (must match ${VARIABLE_NAME_RULE})`)

/** A tool or variable provider that is not a function; `what` names the provider. */
export const invalidProvider = (what: string, value: unknown) =>
  new TypeError(`${what} must be a function, received ${describe(value)}`)

/** Two or more effective complete sections in one assembly, names JSON-quoted in assembly order (SPEC §4). */
export const multipleComplete = (names: readonly string[]) =>
  new PromptError(`multiple complete prompt sections are active: ${names.map((n) => JSON.stringify(n)).join(', ')}`)

/** `getSectionOrder()` / `getContextOrder()` was asked for a name the allocation does not hold (SPEC §8). */
export const unknownPlacement = (kind: TextKind, name: string, known: readonly string[]) =>
  new Error(`unknown prompt ${kind} placement ${JSON.stringify(name)}; known placements: ${known.join(', ')}`)

// ---- tool order -------------------------------------------------------------------------------

/** The load-time `toolOrder` problem of a name (or the rest entry) listed twice (SPEC §3.1). */
export const toolOrderDuplicate = (name: string) => `toolOrder lists ${JSON.stringify(name)} more than once`

/** The load-time `toolOrder` problem of a list without the rest entry, `[]` included (SPEC §3.1). */
export const toolOrderMissingRest = (rest: string) =>
  `toolOrder must contain the ${JSON.stringify(rest)} rest entry (where unlisted tools are inserted)`

/** The errors of the SPEC §7 tool check (unregistered `toolOrder` names, the reserved name), told apart from other failures. */
const toolCheckErrors = new WeakSet<Error>()

/** Whether `error` is one of the SPEC §7 tool-check errors (what the after-load check reports). */
export function isToolCheckError(error: unknown): boolean {
  return error instanceof Error && toolCheckErrors.has(error)
}

function toolCheckError(error: PromptError): PromptError {
  toolCheckErrors.add(error)
  return error
}

/** An assembly whose `toolOrder` lists names no provider knows; singular or plural wording, `(none)` when nothing is known (SPEC §7). */
export const toolOrderUnregistered = (missing: readonly string[], known: readonly string[]) =>
  toolCheckError(new PromptError(`toolOrder lists unregistered ${missing.length === 1 ? 'tool' : 'tools'} ${missing.map((n) => JSON.stringify(n)).join(', ')}; known tools: ${known.length ? known.join(', ') : '(none)'}`))

/** A tool provider that returned the rest entry's reserved name (SPEC §7). */
export const reservedToolName = (rest: string, owner: string) =>
  toolCheckError(new PromptError(`tool provider returned reserved tool name ${JSON.stringify(rest)} (reserved for toolOrder's rest entry)`, owner))

/** A tool name offered by more than one provider in one assembly; `owners` are the plugins, sorted. */
export const duplicateToolName = (name: string, owners: readonly string[]) =>
  new PromptError(`tool ${JSON.stringify(name)} is provided more than once (plugins ${owners.map((o) => JSON.stringify(o)).join(', ')})`, owners[owners.length - 1])

// ---- providers and listeners ------------------------------------------------------------------

/** A provider (`what`) of plugin `owner` threw; the cause is kept. */
export const providerFailed = (what: string, owner: string, cause: unknown) =>
  new PromptError(`${what} of plugin ${JSON.stringify(owner)} failed: ${messageOf(cause)}`, owner, { cause })

/** A provider (`what`) of plugin `owner` returned something other than `expected`. */
export const providerReturned = (what: string, owner: string, expected: string, value: unknown) =>
  new PromptError(`${what} of plugin ${JSON.stringify(owner)} returned ${describe(value)}; expected ${expected}`, owner)

/** A `system-prompt/assemble` listener of plugin `owner` threw or rejected; the cause is kept. */
export const listenerFailed = (owner: string, cause: unknown) =>
  new PromptError(`system-prompt/assemble listener of plugin ${JSON.stringify(owner)} failed: ${messageOf(cause)}`, owner, { cause })

/** A `system-prompt/assemble` listener called `next()` more than once. */
export const listenerNextTwice = (owner: string) =>
  new PromptError(`system-prompt/assemble listener of plugin ${JSON.stringify(owner)} called next() more than once`, owner)

/** A `system-prompt/assemble` listener returned (or handed on) something that is not a valid assembly. */
export const malformedAssembly = (owner: string, problem: string) =>
  new PromptError(`system-prompt/assemble listener of plugin ${JSON.stringify(owner)} returned a malformed assembly: ${problem}`, owner)

// ---- rendering --------------------------------------------------------------------------------

/** A reference to a variable that is not registered (SPEC §9); `registered` is sorted, `(none)` when empty. */
export const unknownVariable = (kind: TextKind, name: string, owner: string, registered: readonly string[]) =>
  new PromptError(`unknown prompt variable "{{${name}}}" in ${kind} ${JSON.stringify(owner)}; registered variables: ${registered.length ? registered.join(', ') : '(none)'}`, owner)

/** A reference to a registered variable that has no value in this assembly (SPEC §9). */
export const valuelessVariable = (kind: TextKind, name: string, owner: string) =>
  new PromptError(`prompt variable "{{${name}}}" has no value for this assembly (${kind} ${JSON.stringify(owner)})`, owner)

/** A complete `{{…}}` group whose inner text is not a variable name (SPEC §9). */
export const malformedGroup = (kind: TextKind, inner: string, owner: string) =>
  new PromptError(`malformed prompt variable reference "{{${inner}}}" in ${kind} ${JSON.stringify(owner)} (variable names match ${VARIABLE_NAME_RULE})`, owner)

/** A `{{` that opens no complete group while a `}}` follows; `snippet` is the text from that `{{`, at most 16 characters (SPEC §9). */
export const malformedOpening = (kind: TextKind, snippet: string, owner: string) =>
  new PromptError(`malformed prompt variable reference at ${JSON.stringify(snippet + '…')} in ${kind} ${JSON.stringify(owner)} (references are complete simple {{name}} groups)`, owner)

/** A `{{#raw}}` block without its closing `{{/raw}}`. */
export const unterminatedRaw = (kind: TextKind, owner: string) =>
  new PromptError(`unterminated {{#raw}} block in ${kind} ${JSON.stringify(owner)} (close it with {{/raw}})`, owner)

// ---- helpers ----------------------------------------------------------------------------------

/** A short, safe description of a received value for error messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `a string ${quoteControls(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  if (typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function') return 'a Promise'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'undefined') return 'undefined'
  return `a ${typeof value} (${String(value)})`
}

/**
 * JSON-quotes `text` and also escapes what JSON leaves raw but a terminal may act on (DEL, the C1
 * controls, line and paragraph separators), so a refused value echoed in a message stays inert.
 */
function quoteControls(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
