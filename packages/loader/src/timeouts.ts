/**
 * How long the loader waits for a plugin: its module's import, its `apply`, its disposal. A wait is
 * raced against a timer that keeps the event loop alive (a plugin that never settles must not let the
 * process end with nothing said), and the timer is cleared as soon as the wait settles.
 * @module
 */

/** The bounds of a load, in milliseconds (`LoadOptions.timeouts`). */
export interface Timeouts {
  /** Importing one row's module, top-level `await` included (default 10 000). */
  import?: number
  /** One row's `apply` (or a service's constructor), until its fiber is active or failed (default 10 000). */
  apply?: number
  /** Disposing one row: its disposers, until its fiber is disposed (default 5 000). */
  dispose?: number
}

/**
 * The defaults: far above what a real plugin takes (a plugin reads files or its config; a slow disk or
 * a cold module cache is a few hundred milliseconds), short enough that a plugin that never settles is
 * reported while someone still waits for the command. Disposing has less to do than starting.
 */
export const DEFAULT_TIMEOUTS: Readonly<Required<Timeouts>> = Object.freeze({ import: 10_000, apply: 10_000, dispose: 5_000 })

/** `timeouts` with every bound filled in from the defaults. */
export function resolveTimeouts(timeouts: Timeouts | undefined): Required<Timeouts> {
  return {
    import: timeouts?.import ?? DEFAULT_TIMEOUTS.import,
    apply: timeouts?.apply ?? DEFAULT_TIMEOUTS.apply,
    dispose: timeouts?.dispose ?? DEFAULT_TIMEOUTS.dispose,
  }
}

/** What a bounded wait gave: the value, the rejection, or nothing within the bound. */
export type Bounded<T> = { settled: true; ok: true; value: T } | { settled: true; ok: false; error: unknown } | { settled: false }

/**
 * Waits for `work` at most `ms` milliseconds. Never rejects: a rejection is returned as `ok: false`, and
 * `work` left behind by the timer has its rejection handled.
 */
export function within<T>(work: PromiseLike<T>, ms: number): Promise<Bounded<T>> {
  return new Promise((resolve) => {
    // Ref'd on purpose: the timer is what keeps the process alive until the verdict.
    const timer = setTimeout(() => resolve({ settled: false }), ms)
    Promise.resolve(work).then(
      (value) => { clearTimeout(timer); resolve({ settled: true, ok: true, value }) },
      (error: unknown) => { clearTimeout(timer); resolve({ settled: true, ok: false, error }) },
    )
  })
}
