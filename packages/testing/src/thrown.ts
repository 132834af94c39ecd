/**
 * Capturing what a synchronous call throws, so a test can assert on the error itself.
 * @module
 */
import { expectedThrow, wrongErrorType } from './errors.js'

/** A class of errors (`Error`, `TypeError`, a package's own error class). */
export type ErrorClass<E extends Error> = abstract new (...args: never[]) => E

/** Checks that `value` is an instance of `type` and returns it typed. */
export function asError<E extends Error>(value: unknown, type: ErrorClass<E>): E {
  if (!(value instanceof type)) throw wrongErrorType(type.name, value)
  return value
}

/**
 * Calls `fn` and returns what it threw. Throws (failing the test) when `fn` returns, or when what it
 * threw is not an instance of `type` (default `Error`).
 */
export function thrown<E extends Error = Error>(fn: () => unknown, type?: ErrorClass<E>): E {
  let value: unknown
  try {
    value = fn()
  } catch (error) {
    return asError(error, type ?? (Error as unknown as ErrorClass<E>))
  }
  throw expectedThrow(value)
}
