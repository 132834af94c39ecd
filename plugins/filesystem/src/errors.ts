/**
 * Every error message of `dsh-plugin-filesystem`, made in one place so tests and docs quote the same strings.
 * @module
 */

const quoted = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(', ')
const plural = (names: readonly string[]) => (names.length === 1 ? 'tool' : 'tools')

/** `tools` names something that is not a filesystem tool. */
export const unknownTools = (names: readonly string[], known: readonly string[]) =>
  `tools lists unknown ${plural(names)} ${quoted(names)}; known tools: ${known.join(', ')}`

/** `tools` names a tool twice. */
export const repeatedTool = (name: string) => `tools lists ${JSON.stringify(name)} more than once`

/** `tools` is empty. */
export const noTools = () => 'tools must list at least one tool (to offer none, do not load the plugin)'

/** `overrides` has a key that is not a filesystem tool. */
export const unknownOverride = (names: readonly string[], known: readonly string[]) =>
  `overrides names unknown ${plural(names)} ${quoted(names)}; known tools: ${known.join(', ')}`

/** `overrides` has a key for a tool the config does not offer. */
export const overrideNotOffered = (names: readonly string[], offered: readonly string[]) =>
  `overrides names ${quoted(names)}, which ${names.length === 1 ? 'is' : 'are'} not in tools (${offered.join(', ')})`

/** An override text is empty or blank. */
export const emptyOverride = (tool: string, key: 'description' | 'guidance') =>
  `overrides.${tool}.${key} must not be empty (leave it out to keep the built-in text${key === 'guidance' ? ', or set includeGuidance: false to send the schemas alone' : ''})`

/** An override sets neither text (often a misspelt key, which the schema drops). */
export const idleOverride = (tool: string) =>
  `overrides.${tool} sets neither description nor guidance`
