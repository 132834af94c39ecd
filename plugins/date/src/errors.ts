/**
 * Every error message of `dsh-plugin-date`, made in one place so tests and docs quote the same strings.
 * @module
 */

/** `timeZone` is not a zone the runtime's `Intl` knows. */
export const unknownTimeZone = (zone: string) =>
  `timeZone ${JSON.stringify(zone)} is not a time zone this runtime knows (use an IANA name such as "UTC" or "Europe/Berlin")`

/** The `now` option returned something that is not a valid instant. */
export const invalidNow = (value: string) =>
  new TypeError(`now() returned ${value}; expected a valid Date or a millisecond timestamp`)
