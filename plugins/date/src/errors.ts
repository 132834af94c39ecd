/**
 * Every error message of `dsh-plugin-date`, made in one place so tests and docs quote the same strings.
 * Each error carries a stable `code` (`DATE_*`) and the `details` it is about. A config problem is a
 * schemastery `ValidationError`, which the schema throws as it is; a deployment's problem keeps its
 * code (the loader calls a schemastery schema itself, as the Standard Schema adapter drops the code).
 * @module
 */
import z from 'schemastery'

/** `timeZone` is not a zone the runtime's `Intl` knows. */
export const unknownTimeZone = (zone: string) =>
  Object.assign(new z.ValidationError(`timeZone ${JSON.stringify(zone)} is not a time zone this runtime knows (use an IANA name such as "UTC" or "Europe/Berlin")`, {}), {
    code: 'DATE_UNKNOWN_TIME_ZONE' as const, details: { zone },
  })

/** The `now` option returned something that is not a valid instant. */
export const invalidNow = (value: string) =>
  Object.assign(new TypeError(`now() returned ${value}; expected a valid Date or a millisecond timestamp`), {
    code: 'DATE_INVALID_NOW' as const, details: { received: value },
  })
