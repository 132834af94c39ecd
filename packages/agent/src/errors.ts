/**
 * Every error message of `dsh-agent`, made in one place so tests and docs quote the same strings.
 * @module
 */

export const invalidAgentId = (id: unknown) =>
  new TypeError(`agent id must be a non-empty string, received ${JSON.stringify(id) ?? String(id)}`)

export const invalidModel = (id: string) =>
  new TypeError(`agent "${id}" needs a model (a non-empty string)`)

export const duplicateAgent = (id: string) =>
  new Error(`agent "${id}" already exists; dispose it first or choose another id`)

export const unknownPreset = (id: string, known: readonly string[]) =>
  new Error(`unknown preset "${id}"; known presets: ${known.length ? known.join(', ') : '(none)'}`)

export const duplicatePreset = (id: string) =>
  new Error(`preset "${id}" is already defined`)

export const invalidPresetId = (id: unknown) =>
  new TypeError(`preset id must be a non-empty string, received ${JSON.stringify(id) ?? String(id)}`)

export const unknownParent = (id: string, parent: string) =>
  new Error(`agent "${id}" names parent agent "${parent}", which does not exist`)

export const invalidPromptChange = (value: unknown) =>
  new TypeError(`promptChange must be "append" or "replace", received ${JSON.stringify(value) ?? String(value)}`)

export const agentDisposed = (id: string) =>
  new Error(`agent "${id}" has been disposed`)

export const invalidRecord = (id: string, problem: string) =>
  new TypeError(`agent "${id}" record(): ${problem}`)

export const invalidInput = (id: string) =>
  new TypeError(`agent "${id}" step(input): input must be a string when given`)
