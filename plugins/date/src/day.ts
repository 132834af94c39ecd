/**
 * Formatting an instant as the calendar day (`YYYY-MM-DD`) in a time zone. Pure and Cordis-free.
 * @module
 */
import { invalidNow } from './errors.js'

/** Whether the runtime's `Intl` knows `zone` (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** A function formatting instants as `YYYY-MM-DD` in `timeZone` (the formatter is built once). */
export function dayFormatter(timeZone: string): (instant: Date | number) => string {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone, calendar: 'gregory', numberingSystem: 'latn', year: 'numeric', month: '2-digit', day: '2-digit',
  })
  return (instant) => {
    const time = instant instanceof Date ? instant.getTime() : instant
    if (typeof time !== 'number' || !Number.isFinite(time)) throw invalidNow(describe(instant))
    const parts: Record<string, string> = {}
    for (const { type, value } of format.formatToParts(time)) parts[type] = value
    return `${parts.year.padStart(4, '0')}-${parts.month}-${parts.day}`
  }
}

function describe(value: unknown): string {
  if (value instanceof Date) return 'an invalid Date'
  if (typeof value === 'number') return String(value)
  if (value === null) return 'null'
  return typeof value === 'string' ? `a string ${JSON.stringify(value)}` : typeof value
}
