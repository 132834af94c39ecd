/**
 * Every error message of `dsh-tools`, made in one place so tests and docs quote the same strings.
 * @module
 */

/** The tool-name rule (the OpenAI-compatible function-name rule), as quoted in messages. */
export const TOOL_NAME_RULE = '/^[a-zA-Z0-9_-]{1,64}$/'

export const invalidToolName = (name: unknown) =>
  new TypeError(`invalid tool name ${JSON.stringify(String(name))} (must match ${TOOL_NAME_RULE})`)

export const invalidDescription = (name: string) =>
  new TypeError(`tool "${name}" description must be a string`)

export const invalidParameters = (name: string, problem: string) =>
  new TypeError(`tool "${name}" parameters are not a valid JSON Schema object: ${problem}`)

export const duplicateGlobalTool = (name: string) =>
  new Error(`tool "${name}" is already registered (register the second one through a narrower scope to shadow it there)`)

export const duplicateScopedTool = (name: string) =>
  new Error(`tool "${name}" is already registered in this scope`)

export const guidanceWithoutOrder = (name: string) =>
  new Error(`tool "${name}" guidance needs an order: "tool:${name}" is not a named placement, so pass guidance as { text, order }`)

export const invalidGuidance = (name: string) =>
  new TypeError(`tool "${name}" guidance must be a string or { text: string, order?: number }`)

export const restrictNeedsScope = () =>
  new Error('tools.restrict() needs a scoped context (an agent\'s or a preset\'s ctx): a restriction through a global context would hide tools from every agent')

export const invalidRestriction = (problem: string) =>
  new TypeError(`tools.restrict() ${problem}`)

export const unknownRestrictedTools = (names: readonly string[], known: readonly string[]) =>
  new Error(`tools.restrict() names unknown ${names.length === 1 ? 'tool' : 'tools'} ${names.map((n) => JSON.stringify(n)).join(', ')}; known tools: ${known.length ? known.join(', ') : '(none)'}`)
