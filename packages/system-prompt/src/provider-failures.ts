/**
 * Every provider failure of one assembly, not only the first: an assembly runs every provider, throws
 * the first failure, and this module keeps the others with it (`dsh-prompt check` and
 * `bootDeployment({ check: true })` report them all).
 * @module
 */
import { PromptError } from './errors.js'

/** The codes of a provider's failure (made in `errors.ts`): it threw, or returned the wrong type. */
const PROVIDER_CODES: ReadonlySet<string> = new Set(['PROMPT_PROVIDER_FAILED', 'PROMPT_PROVIDER_RETURNED'])

const laterFailures = new WeakMap<object, readonly PromptError[]>()

/**
 * Every provider failure of one assembly: the one it threw (`error`, the first in order) and those of
 * the providers evaluated after it, so a check can report them all at once (`dsh-prompt check`). An
 * error that is not an assembly's provider failure gives `[]`.
 */
export function providerFailures(error: unknown): PromptError[] {
  if (!(error instanceof PromptError) || !isProviderFailure(error)) return []
  return [error, ...(laterFailures.get(error) ?? [])]
}

/** The first of `failures` (all of one assembly's providers, in order), carrying the others (see {@link providerFailures}). */
export function firstProviderFailure(failures: readonly PromptError[]): PromptError {
  if (failures.length > 1) laterFailures.set(failures[0], failures.slice(1))
  return failures[0]
}

/** Whether `error` is a provider's failure (thrown, or a value of the wrong type). */
export function isProviderFailure(error: unknown): error is PromptError {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && PROVIDER_CODES.has(code)
}

