/**
 * Every error message of `dsh-tools`, made in one place so tests and docs quote the same strings.
 * Each error keeps its class and message and carries a stable `code` (`TOOLS_*`) and the `details`
 * it is about: code that reacts to an error reads those, never the message.
 * @module
 */

import { TOOL_NAME } from './names.js'

/** The tool-name rule (the OpenAI-compatible function-name rule), as quoted in messages. */
export const TOOL_NAME_RULE = String(TOOL_NAME)

/** `register()` was given a name that is not a valid model-facing function name. */
export const invalidToolName = (name: unknown) =>
  Object.assign(new TypeError(`invalid tool name ${JSON.stringify(String(name))} (must match ${TOOL_NAME_RULE})`), {
    code: 'TOOLS_INVALID_NAME' as const, details: { received: name },
  })

/** `register()` was given a description that is not a string. */
export const invalidDescription = (name: string) =>
  Object.assign(new TypeError(`tool "${name}" description must be a string`), {
    code: 'TOOLS_INVALID_DESCRIPTION' as const, details: { name },
  })

/** `register()` was given parameters that are not a JSON Schema of an object; `problem` says why. */
export const invalidParameters = (name: string, problem: string) =>
  Object.assign(new TypeError(`tool "${name}" parameters are not a valid JSON Schema object: ${problem}`), {
    code: 'TOOLS_INVALID_PARAMETERS' as const, details: { name, problem },
  })

/** A second tool of the same name in the global layer (a narrower scope may shadow it instead). */
export const duplicateGlobalTool = (name: string) =>
  Object.assign(new Error(`tool "${name}" is already registered (register the second one through a narrower scope to shadow it there)`), {
    code: 'TOOLS_DUPLICATE_GLOBAL' as const, details: { name },
  })

/** A second tool of the same name in one scope's layer. */
export const duplicateScopedTool = (name: string) =>
  Object.assign(new Error(`tool "${name}" is already registered in this scope`), {
    code: 'TOOLS_DUPLICATE_SCOPED' as const, details: { name },
  })

/** Guidance without an explicit order for a tool whose `tool:<name>` section has no named placement. */
export const guidanceWithoutOrder = (name: string) =>
  Object.assign(new Error(`tool "${name}" guidance needs an order: "tool:${name}" is not a named placement, so pass guidance as { text, order }`), {
    code: 'TOOLS_GUIDANCE_WITHOUT_ORDER' as const, details: { name },
  })

/** Guidance that is neither a string nor `{ text, order? }`. */
export const invalidGuidance = (name: string) =>
  Object.assign(new TypeError(`tool "${name}" guidance must be a string or { text: string, order?: number }`), {
    code: 'TOOLS_INVALID_GUIDANCE' as const, details: { name },
  })

/** `restrict()` through an untagged (global) context. */
export const restrictNeedsScope = () =>
  Object.assign(new Error('tools.restrict() needs a scoped context (an agent\'s or a preset\'s ctx): a restriction through a global context would hide tools from every agent'), {
    code: 'TOOLS_RESTRICT_NEEDS_SCOPE' as const, details: {},
  })

/** `restrict()` was given a restriction of the wrong shape; `problem` completes the sentence. */
export const invalidRestriction = (problem: string) =>
  Object.assign(new TypeError(`tools.restrict() ${problem}`), {
    code: 'TOOLS_INVALID_RESTRICTION' as const, details: { problem },
  })

/** `restrict()` names tools the scope does not inherit; `known` lists those it does (sorted). */
export const unknownRestrictedTools = (names: readonly string[], known: readonly string[]) =>
  Object.assign(new Error(`tools.restrict() names unknown ${names.length === 1 ? 'tool' : 'tools'} ${names.map((n) => JSON.stringify(n)).join(', ')}; known tools: ${known.length ? known.join(', ') : '(none)'}`), {
    code: 'TOOLS_UNKNOWN_RESTRICTED' as const, details: { names, known },
  })

/** A `tools/change` listener threw; the registration (or disposal) it was told about stands. A warning. */
export const changeListenerFailed = (event: { action: string; kind: string; name?: string }, cause: unknown) => ({
  code: 'TOOLS_CHANGE_LISTENER_FAILED' as const,
  message: `a tools/change listener failed on ${event.action} of ${event.kind}${event.name ? ` "${event.name}"` : ''}: ${cause instanceof Error ? cause.message : String(cause)}`,
  details: { action: event.action, kind: event.kind, ...(event.name ? { name: event.name } : {}) },
})
