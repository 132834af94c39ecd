/**
 * Every error message of `dsh-system-prompt`, made in one place. The strings are part of the contract
 * (`docs/reference/`: R-SP, R-ORDER, R-SCOPE, R-WF, R-RC, R-TOOL, R-RENDER): tests and docs quote them from here.
 * @module
 */

import z from 'schemastery'

/** `section` or `context`: the two kinds of named, ordered text. */
export type TextKind = 'section' | 'context'

/** The variable-name rule: the one definition every check and message uses (R-RENDER-1). */
export const VARIABLE_NAME = /^[a-z][a-z0-9_]*$/

/** Whether `name` can name a prompt variable (matches {@link VARIABLE_NAME}). */
export function isVariableName(name: unknown): name is string {
  return typeof name === 'string' && VARIABLE_NAME.test(name)
}

/** The variable-name rule, as quoted in messages. */
export const VARIABLE_NAME_RULE = String(VARIABLE_NAME)

/** An error of this package: its exact message, a stable `code` and the structured `details` it is about. */
export type CodedError<E extends Error = Error, C extends string = string, D extends object = object> =
  E & { readonly code: C; readonly details: Readonly<D> }

/** Attaches `code` and frozen `details` to `error`: how every factory below makes its error. */
function coded<E extends Error, C extends string, D extends object>(error: E, code: C, details: D): CodedError<E, C, D> {
  return Object.assign(error, { code, details: Object.freeze(details) })
}

/** An error raised while assembling or rendering; `culprit` names the entry or plugin at fault. */
export class PromptError extends Error {
  override name = 'PromptError'
  constructor(message: string, readonly culprit?: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/**
 * Where a template problem is: in an entry of an assembly (`in section "<s>"`, what rendering reports),
 * or at a position of a text being validated (`at line <l>, column <c>`, what `validatePromptTemplate` reports).
 */
export type TemplatePlace = { readonly kind: TextKind; readonly entry: string } | { readonly line: number; readonly column: number }

function placePhrase(place: TemplatePlace): string {
  return 'entry' in place ? `in ${place.kind} ${JSON.stringify(place.entry)}` : `at line ${place.line}, column ${place.column}`
}

function placeError<C extends string, D extends object>(message: string, place: TemplatePlace, code: C, details: D) {
  return coded(new PromptError(message, 'entry' in place ? place.entry : undefined), code, { ...place, ...details })
}

/** A section or context whose `order` is not a finite number (R-ORDER-2). */
export const nonFiniteOrder = (kind: TextKind, name: string) =>
  coded(new TypeError(`prompt ${kind} "${name}" order must be a finite number`), 'PROMPT_NON_FINITE_ORDER', { kind, name })

/** A section, context or variable whose name is not a non-empty string free of control characters. */
export const invalidName = (kind: TextKind | 'variable', name: unknown) =>
  coded(new TypeError(`prompt ${kind} name must be a non-empty string without control characters, received ${describe(name)}`), 'PROMPT_INVALID_NAME', { kind, received: name })

/** A section or context whose `text` is neither a string nor a function. */
export const invalidText = (kind: TextKind, name: string, text: unknown) =>
  coded(new TypeError(`prompt ${kind} "${name}" text must be a string or a function, received ${describe(text)}`), 'PROMPT_INVALID_TEXT', { kind, name, received: text })

/** The volatility classes, in order of increasing change (R-CACHE-8). */
export const VOLATILITIES = ['static', 'conversation', 'daily', 'turn'] as const

/** A `volatility` that is not one of {@link VOLATILITIES}. */
export const invalidVolatility = (kind: TextKind | 'variable', name: string, volatility: unknown) =>
  coded(new TypeError(`prompt ${kind} "${name}" volatility must be one of ${VOLATILITIES.map((v) => JSON.stringify(v)).join(', ')}, received ${describe(volatility)}`), 'PROMPT_INVALID_VOLATILITY', { kind, name, received: volatility })

/** A section's `band` that is not `first` or `last`. */
export const invalidBand = (name: string, band: unknown) =>
  coded(new TypeError(`prompt section "${name}" band must be "first" or "last", received ${describe(band)}`), 'PROMPT_INVALID_BAND', { name, received: band })

/** A section's `tool` (the tool it is shown with) that is not a non-empty string. */
export const invalidSectionTool = (name: string, tool: unknown) =>
  coded(new TypeError(`prompt section "${name}" tool must be a tool name (a non-empty string), received ${describe(tool)}`), 'PROMPT_INVALID_SECTION_TOOL', { name, received: tool })

/** A section's `compaction` that is not `verbatim`, `summary` or `drop`. */
export const invalidSectionCompaction = (name: string, compaction: unknown) =>
  coded(new TypeError(`prompt section "${name}" compaction must be "verbatim", "summary" or "drop", received ${describe(compaction)}`), 'PROMPT_INVALID_SECTION_COMPACTION', { name, received: compaction })

/** A second registration of the same name and kind in the global layer (R-SCOPE-12), with the hint to use a narrower scope. */
export const duplicateGlobal = (kind: TextKind | 'variable', name: string) =>
  coded(new Error(`prompt ${kind} "${name}" is already registered (register the second one through a narrower scope to shadow it there)`), 'PROMPT_ALREADY_REGISTERED', { kind, name })

/** A second registration of the same name and kind in one scope's layer (R-SCOPE-12). */
export const duplicateScoped = (kind: TextKind | 'variable', name: string) =>
  coded(new Error(`prompt ${kind} "${name}" is already registered in this scope`), 'PROMPT_ALREADY_REGISTERED_IN_SCOPE', { kind, name })

/** A variable name that does not match the variable-name rule (R-RENDER-1). */
export const invalidVariableName = (name: unknown) =>
  coded(new TypeError(`invalid prompt variable name ${JSON.stringify(String(name))} (must match ${VARIABLE_NAME_RULE})`), 'PROMPT_INVALID_VARIABLE_NAME', { received: name })

/** A tool or variable provider that is not a function; `what` names the provider. */
export const invalidProvider = (what: string, value: unknown) =>
  coded(new TypeError(`${what} must be a function, received ${describe(value)}`), 'PROMPT_INVALID_PROVIDER', { what, received: value })

/** Two or more effective complete sections in one assembly, names JSON-quoted in assembly order (R-WF-6). */
export const multipleComplete = (names: readonly string[]) =>
  coded(new PromptError(`multiple complete prompt sections are active: ${names.map((n) => JSON.stringify(n)).join(', ')}`), 'PROMPT_MULTIPLE_COMPLETE', { names: [...names] })

/** A tool schema nested deeper than the freeze walk follows. */
export const schemaTooDeep = (limit: number) =>
  coded(new TypeError(`tool schema is nested more than ${limit} levels deep`), 'PROMPT_SCHEMA_TOO_DEEP', { limit })

/** A tool schema with an accessor (getter or setter) property at `path`: it could hand out other values at each read. */
export const schemaAccessor = (path: string) =>
  coded(new TypeError(`it has a getter at ${path} (tool schemas are plain data)`), 'PROMPT_SCHEMA_ACCESSOR', { path })

/** A tool schema that cannot become a JSON request body: `what` is `refers back to itself` or `holds a bigint`. */
export const schemaNotJson = (path: string, what: string) =>
  coded(new TypeError(`it ${what} at ${path} (a request body must be JSON)`), 'PROMPT_SCHEMA_NOT_JSON', { path, what })

/** A tool schema whose keys or properties cannot be read (a Proxy whose traps throw, a revoked Proxy). */
export const schemaUnreadable = (path: string, reason: string) =>
  coded(new TypeError(`it cannot be read at ${path || 'its top level'}: ${reason}`), 'PROMPT_SCHEMA_UNREADABLE', { path })

/** Tool schema `tool` of plugin `owner` could not be deeply frozen; the cause (one of the `schema*` errors) is kept. */
export const toolSchemaUnfreezable = (tool: string, owner: string, cause: unknown) =>
  coded(new PromptError(`tool schema ${JSON.stringify(tool)} of plugin ${JSON.stringify(owner)} cannot be frozen: ${messageOf(cause)}`, owner, { cause }),
    'PROMPT_TOOL_SCHEMA_UNFREEZABLE', { tool, owner, problem: (cause as { code?: unknown } | null)?.code })

/** `validatePromptTemplate(text)` was given something other than a string. */
export const invalidTemplateText = (text: unknown) =>
  coded(new TypeError(`validatePromptTemplate(text) needs the template text as a string, received ${describe(text)}`), 'PROMPT_INVALID_TEMPLATE_TEXT', { received: text })

// ---- tool order -------------------------------------------------------------------------------

/** The load-time `toolOrder` problem of a name (or the rest entry) listed twice (R-SP-9). A config message (schemastery reports it). */
export const toolOrderDuplicate = (name: string) => `toolOrder lists ${JSON.stringify(name)} more than once`

/** The load-time `toolOrder` problem of a list without the rest entry, `[]` included (R-SP-9). A config message. */
export const toolOrderMissingRest = (rest: string) =>
  `toolOrder must contain the ${JSON.stringify(rest)} rest entry (where unlisted tools are inserted)`

/**
 * A `toolOrder` the config schema refuses (a name listed twice, no rest entry: R-SP-9), thrown as the
 * schema's own error with a code, so a deployment's problem keeps `PROMPT_INVALID_TOOL_ORDER`.
 */
export const invalidToolOrder = (order: readonly string[], problem: string) =>
  Object.assign(new z.ValidationError(problem, {}), { code: 'PROMPT_INVALID_TOOL_ORDER' as const, details: { order: [...order], problem } })

/** An assembly whose `toolOrder` lists names no provider knows; singular or plural wording, `(none)` when nothing is known (R-TOOL-3). */
export const toolOrderUnregistered = (missing: readonly string[], known: readonly string[]) =>
  coded(new PromptError(`toolOrder lists unregistered ${missing.length === 1 ? 'tool' : 'tools'} ${missing.map((n) => JSON.stringify(n)).join(', ')}; known tools: ${known.length ? known.join(', ') : '(none)'}`),
    'PROMPT_TOOL_ORDER_UNREGISTERED', { missing: [...missing], known: [...known] })

/** A tool provider that returned the rest entry's reserved name (R-TOOL-5). */
export const reservedToolName = (rest: string, owner: string) =>
  coded(new PromptError(`tool provider returned reserved tool name ${JSON.stringify(rest)} (reserved for toolOrder's rest entry)`, owner), 'PROMPT_RESERVED_TOOL_NAME', { owner })

/** A tool name offered by more than one provider in one assembly; `owners` are the plugins, sorted. */
export const duplicateToolName = (name: string, owners: readonly string[]) =>
  coded(new PromptError(`tool ${JSON.stringify(name)} is provided more than once (plugins ${owners.map((o) => JSON.stringify(o)).join(', ')})`, owners[owners.length - 1]),
    'PROMPT_DUPLICATE_TOOL', { tool: name, owners: [...owners] })

// ---- providers and listeners ------------------------------------------------------------------

/** A provider (`what`) of plugin `owner` threw; the cause is kept. */
export const providerFailed = (what: string, owner: string, cause: unknown) =>
  coded(new PromptError(`${what} of plugin ${JSON.stringify(owner)} failed: ${messageOf(cause)}`, owner, { cause }), 'PROMPT_PROVIDER_FAILED', { what, owner })

/** A provider (`what`) of plugin `owner` returned something other than `expected`. */
export const providerReturned = (what: string, owner: string, expected: string, value: unknown) =>
  coded(new PromptError(`${what} of plugin ${JSON.stringify(owner)} returned ${describe(value)}; expected ${expected}`, owner), 'PROMPT_PROVIDER_RETURNED', { what, owner, expected })

/** A `system-prompt/assemble` listener of plugin `owner` threw or rejected; the cause is kept. */
export const listenerFailed = (owner: string, cause: unknown) =>
  coded(new PromptError(`system-prompt/assemble listener of plugin ${JSON.stringify(owner)} failed: ${messageOf(cause)}`, owner, { cause }), 'PROMPT_LISTENER_FAILED', { owner })

/** A `system-prompt/assemble` listener called `next()` more than once. */
export const listenerNextTwice = (owner: string) =>
  coded(new PromptError(`system-prompt/assemble listener of plugin ${JSON.stringify(owner)} called next() more than once`, owner), 'PROMPT_LISTENER_NEXT_TWICE', { owner })

/** A `system-prompt/assemble` listener returned (or handed on) something that is not a valid assembly. */
export const malformedAssembly = (owner: string, problem: string) =>
  coded(new PromptError(`system-prompt/assemble listener of plugin ${JSON.stringify(owner)} returned a malformed assembly: ${problem}`, owner), 'PROMPT_MALFORMED_ASSEMBLY', { owner, problem })

// ---- rendering --------------------------------------------------------------------------------

/** A reference to a variable that is not registered (R-RENDER-4); `registered` is sorted, `(none)` when empty. */
export const unknownVariable = (place: TemplatePlace, variable: string, registered: readonly string[]) =>
  placeError(`unknown prompt variable "{{${variable}}}" ${placePhrase(place)}; registered variables: ${registered.length ? registered.join(', ') : '(none)'}`,
    place, 'PROMPT_UNKNOWN_VARIABLE', { variable, registered: [...registered] })

/** A reference to a registered variable that has no value in this assembly (R-RENDER-4). */
export const valuelessVariable = (place: TemplatePlace, variable: string) =>
  placeError(`prompt variable "{{${variable}}}" has no value for this assembly ${'entry' in place ? `(${place.kind} ${JSON.stringify(place.entry)})` : placePhrase(place)}`,
    place, 'PROMPT_VALUELESS_VARIABLE', { variable })

/** A complete `{{…}}` group whose inner text is not a variable name (R-RENDER-4). */
export const malformedGroup = (place: TemplatePlace, inner: string) =>
  placeError(`malformed prompt variable reference "{{${inner}}}" ${placePhrase(place)} (variable names match ${VARIABLE_NAME_RULE})`, place, 'PROMPT_MALFORMED_REFERENCE', { inner })

/** A `{{` that opens no complete group while a `}}` follows; `snippet` is the text from that `{{`, at most 16 characters (R-RENDER-4). */
export const malformedOpening = (place: TemplatePlace, snippet: string) =>
  placeError(`malformed prompt variable reference at ${JSON.stringify(snippet + '…')} ${placePhrase(place)} (references are complete simple {{name}} groups)`, place, 'PROMPT_MALFORMED_OPENING', { snippet })

/** A `{{#raw}}` block without its closing `{{/raw}}`. */
export const unterminatedRaw = (place: TemplatePlace) =>
  placeError(`unterminated {{#raw}} block ${placePhrase(place)} (close it with {{/raw}})`, place, 'PROMPT_UNTERMINATED_RAW', {})

// ---- warnings ---------------------------------------------------------------------------------

/** A warning of this package: logged, never thrown; `code` and `details` as for errors. */
export interface PromptWarning<C extends string = string, D extends object = object> {
  readonly code: C
  readonly message: string
  readonly details: Readonly<D>
}

/** A `system-prompt/change` listener threw; the registration (or disposal) it was told about stands. */
export const changeListenerFailed = (event: { action: string; kind: string; name?: string }, cause: unknown): PromptWarning<'PROMPT_CHANGE_LISTENER_FAILED', { action: string; kind: string; name?: string }> => ({
  code: 'PROMPT_CHANGE_LISTENER_FAILED',
  message: `a system-prompt/change listener failed on ${event.action} of ${event.kind}${event.name ? ` "${event.name}"` : ''}: ${messageOf(cause)}`,
  details: Object.freeze({ action: event.action, kind: event.kind, ...(event.name ? { name: event.name } : {}) }),
})

/**
 * A plugin placed a section at an order of the published package's older bands (identity -100, tool
 * guidance 100–199), where dsh has none: it renders between the persona (0) and the policies (500),
 * before the tool guidance it probably meant to join (dsh's is 1000–1999). Logged once per plugin.
 */
export const oldBandOrder = (owner: string, name: string, order: number): PromptWarning<'PROMPT_OLD_BAND_ORDER', { owner: string; name: string; order: number; band: string }> => {
  const band = order === -100 ? 'identity (-100)' : 'tool guidance (100-199)'
  return {
    code: 'PROMPT_OLD_BAND_ORDER',
    message: `plugin ${JSON.stringify(owner)} placed section ${JSON.stringify(name)} at order ${order}, the published package's old ${band} band: in dsh it renders right after the persona, before the policies (500) and the tool guidance (1000-1999); take the order from getSectionOrder() (docs/porting.md)`,
    details: Object.freeze({ owner, name, order, band }),
  }
}

/**
 * Whether a section looks placed by the published package's older bands, which dsh does not use: the
 * identity's -100, or a tool's guidance (`tool:<name>`) at 100–199 (a plugin's own section at 100 is
 * common and fine).
 */
export function isOldBandOrder(name: string, order: number): boolean {
  return order === -100 || (name.startsWith('tool:') && order >= 100 && order <= 199)
}

/**
 * A `system-prompt/change` listener threw on a registration: the registration is taken back and this is
 * thrown to the registering plugin, as the published package does (a disposal cannot be vetoed).
 */
export const changeVetoed = (event: { kind: string; name?: string; owner: string }, cause: unknown) =>
  coded(new PromptError(`a system-prompt/change listener refused the registration of ${event.kind}${event.name ? ` ${JSON.stringify(event.name)}` : ''} by plugin ${JSON.stringify(event.owner)}: ${messageOf(cause)}`, event.owner, { cause }),
    'PROMPT_CHANGE_VETOED', { kind: event.kind, ...(event.name ? { name: event.name } : {}), owner: event.owner })

// ---- helpers ----------------------------------------------------------------------------------

/** A short, safe description of a received value for error messages; never throws, whatever the value (a revoked Proxy, a hostile `then`). */
export function describe(value: unknown): string {
  try {
    if (value === null) return 'null'
    if (Array.isArray(value)) return 'an array'
    if (typeof value === 'string') return `a string ${quoteControls(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
    if (typeof value === 'undefined') return 'undefined'
    if (typeof value === 'symbol') return `a symbol (${quoteless(value.description === undefined ? 'Symbol()' : `Symbol(${value.description})`)})`
    if (typeof value !== 'object' && typeof value !== 'function') return `a ${typeof value} (${String(value)})`
    if (typeof value === 'object' && isThenable(value)) return 'a Promise'
    return typeof value === 'function' ? 'a function' : 'an object'
  } catch {
    return 'an unreadable value (a revoked Proxy?)'
  }
}

/** Whether reading `then` of `value` gives a function; a `then` getter that throws counts as not. */
function isThenable(value: object): boolean {
  try {
    return typeof (value as { then?: unknown }).then === 'function'
  } catch {
    return false
  }
}

/**
 * JSON-quotes `text` and also escapes what JSON leaves raw but a terminal may act on (DEL, the C1
 * controls, line and paragraph separators), so a refused value echoed in a message stays inert.
 */
function quoteControls(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}

/** `text` with its controls escaped as by {@link quoteControls}, without the quotes. */
function quoteless(text: string): string {
  return quoteControls(text).slice(1, -1)
}

/**
 * What a thrown value says, for `… failed: <this>`: an Error's message (its name when the message is
 * empty), a string as it is, a number or boolean as written, anything else described (`undefined was
 * thrown, not an Error`). Never throws, whatever was thrown.
 */
export function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message = String(error.message)
      return message || `${String(error.name) || 'Error'} with no message`
    }
    if (typeof error === 'string') return error
    if (typeof error === 'number' || typeof error === 'boolean' || typeof error === 'bigint') return String(error)
  } catch {
    // A revoked Proxy, a throwing `message` getter: described below.
  }
  return `${describe(error)} was thrown, not an Error`
}

/**
 * An assembly started from inside an assembly of the same scope (a `system-prompt/assemble` listener
 * that assembles or steps again for it), or nested deeper than `limit`: refused before it runs, naming
 * the listener the outer assembly was waiting on.
 */
export const assemblyReentrant = (owner: string, depth: number, limit: number) =>
  coded(new PromptError(
    depth > limit
      ? `an assembly was started from inside ${depth - 1} nested assemblies (more than ${limit}), from the system-prompt/assemble listener of plugin ${JSON.stringify(owner)}: a listener must not assemble or step again for each assembly`
      : `an assembly for the same scope was started from inside its own assembly, by the system-prompt/assemble listener of plugin ${JSON.stringify(owner)}: a listener must not assemble (or step the agent) again for the scope it is assembling, or the assemblies never end`,
    owner,
  ), 'PROMPT_ASSEMBLY_REENTRANT', { owner, depth, limit })

// ---- sizes ------------------------------------------------------------------------------------

/**
 * A section or context that renders to more than `limit` characters (`MAX_RENDERED_CHARS`), checked
 * before the text is built (instead of V8's uncoded `RangeError: Invalid string length`). `variable`:
 * the reference whose value crossed the limit, with how many times the text references it; `null` when
 * the sections (or contexts) joined cross it, `entry` being the one whose text crossed it.
 */
export const textTooLong = (place: { readonly kind: TextKind; readonly entry: string }, limit: number, variable: { name: string; references: number; valueLength: number } | null) =>
  placeError(variable
    ? `${place.kind} ${JSON.stringify(place.entry)} renders to more than ${limit} characters at "{{${variable.name}}}" (its value has ${variable.valueLength} characters and the text references it ${variable.references} times), more than a rendered text may hold`
    : `the ${place.kind === 'section' ? 'system prompt' : 'runtime-context snapshot'} holds more than ${limit} characters once ${place.kind} ${JSON.stringify(place.entry)} is joined to the ${place.kind}s before it, more than a rendered text may hold`,
  place, 'PROMPT_TEXT_TOO_LONG', { variable: variable?.name ?? null, references: variable?.references ?? null, valueLength: variable?.valueLength ?? null, limit })
