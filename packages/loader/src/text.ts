/**
 * How the loader's messages quote things: an error, a multi-line text, a found value, each as one short
 * line. Pure; the catalogue (`errors.ts`) re-exports them.
 * @module
 */

/** An error as one line: its message, prefixed by its name unless that is plain `Error`. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const name = error.name && error.name !== 'Error' ? `${error.name}: ` : ''
    return name + oneLine(error.message)
  }
  return oneLine(String(error))
}

/** Collapses a multi-line text into one line (problems are one line each). */
export function oneLine(text: string): string {
  return text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean).join(' ')
}

/** A short description of a found value, for "must be X, found Y" messages. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'string') return `a string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  if (typeof value === 'object') return 'a mapping'
  return `a ${typeof value} (${String(value)})`
}
