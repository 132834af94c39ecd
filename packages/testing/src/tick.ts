/**
 * Waiting for pending work (microtasks, timers, asynchronous disposals) to run.
 * @module
 */

/** Resolves after pending microtasks and one macrotask turn, or after `ms` milliseconds. */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
