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

export const nonFiniteOrder = (kind: TextKind, name: string) =>
  new TypeError(`prompt ${kind} "${name}" order must be a finite number`)

export const invalidName = (kind: TextKind | 'variable', name: unknown) =>
  new TypeError(`prompt ${kind} name must be a non-empty string without control characters, received ${describe(name)}`)

export const invalidText = (kind: TextKind, name: string, text: unknown) =>
  new TypeError(`prompt ${kind} "${name}" text must be a string or a function, received ${describe(text)}`)

export const duplicateGlobal = (kind: TextKind | 'variable', name: string) =>
  new Error(`prompt ${kind} "${name}" is already registered (register the second one through a narrower scope to shadow it there)`)

export const duplicateScoped = (kind: TextKind | 'variable', name: string) =>
  new Error(`prompt ${kind} "${name}" is already registered in this scope`)

export const invalidVariableName = (name: unknown) =>
  new TypeError(`invalid prompt variable name ${JSON.stringify(String(name))} (must match ${VARIABLE_NAME_RULE})`)

export const invalidProvider = (what: string, value: unknown) =>
  new TypeError(`${what} must be a function, received ${describe(value)}`)

export const multipleComplete = (names: readonly string[]) =>
  new PromptError(`multiple complete prompt sections are active: ${names.map((n) => JSON.stringify(n)).join(', ')}`)

export const unknownPlacement = (kind: TextKind, name: string, known: readonly string[]) =>
  new Error(`unknown prompt ${kind} placement ${JSON.stringify(name)}; known placements: ${known.join(', ')}`)

// ---- tool order -------------------------------------------------------------------------------

export const toolOrderDuplicate = (name: string) => `toolOrder lists ${JSON.stringify(name)} more than once`

export const toolOrderMissingRest = (rest: string) =>
  `toolOrder must contain the ${JSON.stringify(rest)} rest entry (where unlisted tools are inserted)`

export const toolOrderUnregistered = (missing: readonly string[], known: readonly string[]) =>
  new PromptError(`toolOrder lists unregistered ${missing.length === 1 ? 'tool' : 'tools'} ${missing.map((n) => JSON.stringify(n)).join(', ')}; known tools: ${known.length ? known.join(', ') : '(none)'}`)

export const reservedToolName = (rest: string, owner: string) =>
  new PromptError(`tool provider returned reserved tool name ${JSON.stringify(rest)} (reserved for toolOrder's rest entry)`, owner)

export const duplicateToolName = (name: string, owners: readonly string[]) =>
  new PromptError(`tool ${JSON.stringify(name)} is provided more than once (plugins ${owners.map((o) => JSON.stringify(o)).join(', ')})`, owners[owners.length - 1])

// ---- providers and listeners ------------------------------------------------------------------

export const providerFailed = (what: string, owner: string, cause: unknown) =>
  new PromptError(`${what} of plugin ${JSON.stringify(owner)} failed: ${messageOf(cause)}`, owner, { cause })

export const providerReturned = (what: string, owner: string, expected: string, value: unknown) =>
  new PromptError(`${what} of plugin ${JSON.stringify(owner)} returned ${describe(value)}; expected ${expected}`, owner)

export const listenerFailed = (owner: string, cause: unknown) =>
  new PromptError(`system-prompt/assemble listener of plugin ${JSON.stringify(owner)} failed: ${messageOf(cause)}`, owner, { cause })

export const listenerNextTwice = (owner: string) =>
  new PromptError(`system-prompt/assemble listener of plugin ${JSON.stringify(owner)} called next() more than once`, owner)

export const malformedAssembly = (owner: string, problem: string) =>
  new PromptError(`system-prompt/assemble listener of plugin ${JSON.stringify(owner)} returned a malformed assembly: ${problem}`, owner)

// ---- rendering --------------------------------------------------------------------------------

export const unknownVariable = (kind: TextKind, name: string, owner: string, registered: readonly string[]) =>
  new PromptError(`unknown prompt variable "{{${name}}}" in ${kind} ${JSON.stringify(owner)}; registered variables: ${registered.length ? registered.join(', ') : '(none)'}`, owner)

export const valuelessVariable = (kind: TextKind, name: string, owner: string) =>
  new PromptError(`prompt variable "{{${name}}}" has no value for this assembly (${kind} ${JSON.stringify(owner)})`, owner)

export const malformedGroup = (kind: TextKind, inner: string, owner: string) =>
  new PromptError(`malformed prompt variable reference "{{${inner}}}" in ${kind} ${JSON.stringify(owner)} (variable names match ${VARIABLE_NAME_RULE})`, owner)

export const malformedOpening = (kind: TextKind, snippet: string, owner: string) =>
  new PromptError(`malformed prompt variable reference at ${JSON.stringify(snippet + '…')} in ${kind} ${JSON.stringify(owner)} (references are complete simple {{name}} groups)`, owner)

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
