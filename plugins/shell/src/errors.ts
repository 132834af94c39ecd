/**
 * Every error message of `dsh-plugin-shell`, made in one place so tests and docs quote the same strings.
 * @module
 */

/** `defaultTimeoutMs` is larger than `maxTimeoutMs`. */
export const timeoutAboveMax = (defaultMs: number, maxMs: number) =>
  `defaultTimeoutMs (${defaultMs}) must not exceed maxTimeoutMs (${maxMs})`

/** A text override was set to an empty or blank string. */
export const emptyText = (key: 'description' | 'guidance') =>
  `${key} must not be empty (leave it out to keep the built-in text${key === 'guidance' ? ', or set includeGuidance: false to send the schema alone' : ''})`
