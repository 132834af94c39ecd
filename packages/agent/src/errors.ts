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

/** `step(input)` was given an input that is not a string. */
export const invalidInput = (id: string) =>
  Object.assign(new TypeError(`agent "${id}" step(input): input must be a string when given`), {
    code: 'AGENT_INVALID_INPUT' as const, details: { id },
  })
