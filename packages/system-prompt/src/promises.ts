/**
 * The promise plumbing of an assembly: aborting without waiting, settling what nobody awaits, telling an
 * abort apart. Pure.
 * @module
 */

/** Rejects with the signal's reason as soon as it aborts, without waiting for `work` (left to settle quietly). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work
  quiet(work)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Marks `promise`'s rejection as handled (whoever awaits it still gets it) and returns it. */
export function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {})
  return promise
}

/** A provider returned a thenable where text was expected: its eventual rejection must not go unhandled. */
export function settleQuietly(value: unknown): void {
  try {
    const then = (value as { then?: unknown } | null)?.then
    if (typeof then === 'function') then.call(value, undefined, () => {})
  } catch {
    // A hostile `then`: there is nothing to settle.
  }
}

export function isAbort(error: unknown): boolean {
  try {
    return error instanceof Error && error.name === 'AbortError'
  } catch {
    return false
  }
}
