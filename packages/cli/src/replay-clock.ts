/**
 * The clock of a replay: while a replay runs, `Date.now()` reads a clock that starts at a chosen
 * instant, runs on with real time, and jumps forward when the script says `clock: +1d`. Installed
 * before the deployment loads (so a plugin that reads the time at `apply` sees it too) and restored
 * after, also when the replay fails. A deployment file cannot reach it: it is process state the
 * replay owns, not config. `new Date()` without arguments keeps reading the system clock.
 * @module
 */
import { clockBusy } from './errors.js'

/** A replay clock in force. */
export interface ReplayClock {
  /** What `Date.now()` returns now. */
  now(): number
  /** Moves the clock on by `ms` milliseconds. */
  advance(ms: number): void
  /** Puts the system clock back. Idempotent. */
  restore(): void
}

let installed: ReplayClock | undefined

/**
 * Installs a replay clock that starts at `start` (default: the system time now). Throws
 * `CLI_REPLAY_CLOCK_BUSY` while another one is installed: two replays in one process would move
 * each other's clock.
 */
export function installReplayClock(start?: number): ReplayClock {
  if (installed) throw clockBusy()
  // Whatever `Date.now` is at install time (the system clock, or a test's fake) is what it goes back to.
  const previous = Date.now
  const systemNow = () => previous.call(Date)
  let offset = start === undefined ? 0 : start - systemNow()
  const clock: ReplayClock = {
    now: () => systemNow() + offset,
    advance(ms) {
      offset += ms
    },
    restore() {
      if (installed !== clock) return
      Date.now = previous
      installed = undefined
    },
  }
  installed = clock
  Date.now = clock.now
  return clock
}

/** Runs `run` with a replay clock installed, restored when it settles (fulfilled or rejected). */
export async function withReplayClock<T>(start: number | undefined, run: (clock: ReplayClock) => Promise<T>): Promise<T> {
  const clock = installReplayClock(start)
  try {
    return await run(clock)
  } finally {
    clock.restore()
  }
}
