/**
 * Every error message of `dsh-plugin-shell`, made in one place so tests and docs quote the same strings.
 * Each is a config problem: a schemastery `ValidationError` with a stable `code` (`SHELL_*`) and the
 * `details` it is about, thrown by the schema as it is; a deployment's problem keeps its code (the
 * loader calls a schemastery schema itself, as the Standard Schema adapter drops the code).
 * @module
 */
import z from 'schemastery'

/** `defaultTimeoutMs` is larger than `maxTimeoutMs`. */
export const timeoutAboveMax = (defaultMs: number, maxMs: number) =>
  Object.assign(new z.ValidationError(`defaultTimeoutMs (${defaultMs}) must not exceed maxTimeoutMs (${maxMs})`, {}), {
    code: 'SHELL_TIMEOUT_ABOVE_MAX' as const, details: { defaultTimeoutMs: defaultMs, maxTimeoutMs: maxMs },
  })

/** A text override was set to an empty or blank string. */
export const emptyText = (key: 'description' | 'guidance') =>
  Object.assign(new z.ValidationError(`${key} must not be empty (leave it out to keep the built-in text${key === 'guidance' ? ', or set includeGuidance: false to send the schema alone' : ''})`, {}), {
    code: 'SHELL_EMPTY_TEXT' as const, details: { key },
  })
