/**
 * `dsh-store/conformance`: the behaviour every conversation store owes (R-STORE), as plain async
 * checks any test runner calls. `runConformance(factory)` runs them all and reports each; a mocha
 * spec makes one test per case from `conformanceCases`. Each case gets fresh, empty storage from the
 * factory and opens as many instances on it as it needs (two instances play two workers).
 * @module
 */
import { byteLines, CONFORMANCE_CASES, entry, type ConformanceCase, type ConformanceTarget } from './conformance-cases.js'
import type { ConversationStore } from './store.js'

/** Makes fresh storage for one case. */
export type ConformanceFactory = () => Promise<ConformanceTarget>

/** One case's outcome. */
export interface ConformanceResult {
  readonly name: string
  /** `passed`, `failed` (with `error`), or `not-applicable` (the target has no `tear`). */
  readonly outcome: 'passed' | 'failed' | 'not-applicable'
  readonly error?: unknown
}

export type { ConformanceCase, ConformanceTarget }
export { byteLines, entry }
/** Every case, in the order `runConformance` runs them. */
export const conformanceCases: readonly ConformanceCase[] = CONFORMANCE_CASES

/** Runs one case on fresh storage from `factory`, disposing it after; throws the case's failure. */
export async function runCase(check: ConformanceCase, factory: ConformanceFactory): Promise<'passed' | 'not-applicable'> {
  const target = await factory()
  const opened: ConversationStore[] = []
  const tracked: ConformanceTarget = {
    open: async () => {
      const store = await target.open()
      opened.push(store)
      return store
    },
    tear: target.tear?.bind(target),
  }
  try {
    if (check.needsTear && !target.tear) return 'not-applicable'
    await check.run(tracked)
    return 'passed'
  } finally {
    for (const store of opened) await store.close?.()
    await target.dispose?.()
  }
}

/** Runs every case; resolves to each one's outcome (it never throws for a failing case). */
export async function runConformance(factory: ConformanceFactory): Promise<ConformanceResult[]> {
  const results: ConformanceResult[] = []
  for (const check of conformanceCases) {
    try {
      results.push({ name: check.name, outcome: await runCase(check, factory) })
    } catch (error) {
      results.push({ name: check.name, outcome: 'failed', error })
    }
  }
  return results
}
