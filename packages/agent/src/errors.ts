/**
 * Every error message of `dsh-agent`, made in one place so tests and docs quote the same strings.
 * @module
 */

/** `create()` was given an id that is not a non-empty string. */
export const invalidAgentId = (id: unknown) =>
  new TypeError(`agent id must be a non-empty string, received ${JSON.stringify(id) ?? String(id)}`)

/** `create()` was given no model (or not a non-empty string) for agent `id`. */
export const invalidModel = (id: string) =>
  new TypeError(`agent "${id}" needs a model (a non-empty string)`)

/** `create()` was given the id of a live agent. */
export const duplicateAgent = (id: string) =>
  new Error(`agent "${id}" already exists; dispose it first or choose another id`)

/** `create()` names a preset that is not defined; `known` lists the defined ids (sorted). */
export const unknownPreset = (id: string, known: readonly string[]) =>
  new Error(`unknown preset "${id}"; known presets: ${known.length ? known.join(', ') : '(none)'}`)

/** `definePreset()` was given the id of a preset that is already defined. */
export const duplicatePreset = (id: string) =>
  new Error(`preset "${id}" is already defined`)

/** `definePreset()` was given an id that is not a non-empty string. */
export const invalidPresetId = (id: unknown) =>
  new TypeError(`preset id must be a non-empty string, received ${JSON.stringify(id) ?? String(id)}`)

/** `create()` names a parent agent that does not exist (or has been disposed). */
export const unknownParent = (id: string, parent: string) =>
  new Error(`agent "${id}" names parent agent "${parent}", which does not exist`)

/** A `promptChange` other than `append` or `replace` (service config or `create()` option). */
export const invalidPromptChange = (value: unknown) =>
  new TypeError(`promptChange must be "append" or "replace", received ${JSON.stringify(value) ?? String(value)}`)

/** `step()` or `record()` on an agent that has been disposed. */
export const agentDisposed = (id: string) =>
  new Error(`agent "${id}" has been disposed`)

/** `record()` was given a malformed message; `problem` says what is wrong with it. */
export const invalidRecord = (id: string, problem: string) =>
  new TypeError(`agent "${id}" record(): ${problem}`)

/** `step(input)` was given an input that is not a string. */
export const invalidInput = (id: string) =>
  new TypeError(`agent "${id}" step(input): input must be a string when given`)
