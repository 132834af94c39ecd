/**
 * How the CLI tells errors apart: by their stable `code` and the `details` they carry, never by their
 * message (`codeOf` is the loader's, so there is one definition of "an error's code").
 * @module
 */
import { codeOf } from 'dsh-loader'

export { codeOf }

/** The `details` of `error` when its code is `code` (an empty object if it has none), else `undefined`. */
export function detailsOf<D extends object>(error: unknown, code: string): Partial<D> | undefined {
  if (codeOf(error) !== code) return undefined
  const details = (error as { details?: unknown }).details
  return typeof details === 'object' && details !== null ? details as Partial<D> : {}
}
