/**
 * Every error message of `dsh-plugin-filesystem`, made in one place so tests and docs quote the same strings.
 * Each is a config problem: a schemastery `ValidationError` with a stable `code` (`FS_*`) and the
 * `details` it is about, thrown by the schema as it is; a deployment's problem keeps its code (the
 * loader calls a schemastery schema itself, as the Standard Schema adapter drops the code).
 * @module
 */
import z from 'schemastery'

const quoted = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(', ')
const plural = (names: readonly string[]) => (names.length === 1 ? 'tool' : 'tools')

/** `tools` names something that is not a filesystem tool. */
export const unknownTools = (names: readonly string[], known: readonly string[]) =>
  Object.assign(new z.ValidationError(`tools lists unknown ${plural(names)} ${quoted(names)}; known tools: ${known.join(', ')}`, {}), {
    code: 'FS_UNKNOWN_TOOLS' as const, details: { names, known },
  })

/** `tools` names a tool twice. */
export const repeatedTool = (name: string) =>
  Object.assign(new z.ValidationError(`tools lists ${JSON.stringify(name)} more than once`, {}), {
    code: 'FS_REPEATED_TOOL' as const, details: { name },
  })

/** `tools` is empty. */
export const noTools = () =>
  Object.assign(new z.ValidationError('tools must list at least one tool (to offer none, do not load the plugin)', {}), {
    code: 'FS_NO_TOOLS' as const, details: {},
  })

/** `overrides` has a key that is not a filesystem tool. */
export const unknownOverride = (names: readonly string[], known: readonly string[]) =>
  Object.assign(new z.ValidationError(`overrides names unknown ${plural(names)} ${quoted(names)}; known tools: ${known.join(', ')}`, {}), {
    code: 'FS_UNKNOWN_OVERRIDE' as const, details: { names, known },
  })

/** `overrides` has a key for a tool the config does not offer. */
export const overrideNotOffered = (names: readonly string[], offered: readonly string[]) =>
  Object.assign(new z.ValidationError(`overrides names ${quoted(names)}, which ${names.length === 1 ? 'is' : 'are'} not in tools (${offered.join(', ')})`, {}), {
    code: 'FS_OVERRIDE_NOT_OFFERED' as const, details: { names, offered },
  })

/** An override text is empty or blank. */
export const emptyOverride = (tool: string, key: 'description' | 'guidance') =>
  Object.assign(new z.ValidationError(`overrides.${tool}.${key} must not be empty (leave it out to keep the built-in text${key === 'guidance' ? ', or set includeGuidance: false to send the schemas alone' : ''})`, {}), {
    code: 'FS_EMPTY_OVERRIDE' as const, details: { tool, key },
  })

/** An override sets neither text (often a misspelt key, which the schema drops). */
export const idleOverride = (tool: string) =>
  Object.assign(new z.ValidationError(`overrides.${tool} sets neither description nor guidance`, {}), {
    code: 'FS_IDLE_OVERRIDE' as const, details: { tool },
  })
