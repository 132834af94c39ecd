/**
 * Capturing what an asynchronous call rejects with, so a test can assert on the error itself.
 * @module
 */
import { expectedRejection } from './errors.js'
import { asError, type ErrorClass } from './thrown.js'

/**
 * Awaits `subject` (a promise, or a function returning one, whose synchronous throw counts as a
 * rejection) and returns the rejection reason. Throws (failing the test) when it resolves, or when the
 * reason is not an instance of `type` (default `Error`).
 */
export async function rejection<E extends Error = Error>(
  subject: PromiseLike<unknown> | (() => unknown),
  type?: ErrorClass<E>,
): Promise<E> {
  let value: unknown
  try {
    value = await (typeof subject === 'function' ? subject() : subject)
  } catch (error) {
    return asError(error, type ?? (Error as unknown as ErrorClass<E>))
  }
  throw expectedRejection(value)
}
