/**
 * How the loader's messages quote things: an error (whatever was thrown), a multi-line text, a found
 * value, each as one short line. Pure; the catalogue (`errors.ts`) re-exports them. Never throws.
 * @module
 */

/**
 * An error as one line: its message, prefixed by its name unless that is plain `Error`; an empty
 * message says so (Cordis turns a thrown `undefined` into one). A thrown string is itself, a number or
 * boolean as written; any other value is described (`undefined was thrown, not an Error`). Never throws.
 */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) {
      const name = error.name && error.name !== 'Error' ? `${String(error.name)}: ` : ''
      const message = oneLine(String(error.message))
      return message ? name + message : `${name || 'an '}Error with no message (Cordis turns a thrown undefined into one)`
    }
    if (typeof error === 'string') return oneLine(error)
    if (typeof error === 'number' || typeof error === 'boolean' || typeof error === 'bigint') return String(error)
    return `${thrownValue(error)} was thrown, not an Error`
  } catch {
    return 'an unreadable value (a revoked Proxy?) was thrown, not an Error'
  }
}

function thrownValue(value: unknown): string {
  if (value === undefined || value === null) return String(value)
  if (typeof value === 'symbol') return `a symbol (${oneLine(JSON.stringify(value.toString()).slice(1, -1))})`
  return typeof value === 'function' ? 'a function' : Array.isArray(value) ? 'an array' : 'an object'
}

/**
 * Whether `error` is the TypeError Cordis raises while wrapping a thrown value it cannot convert to a
 * string (a Symbol, a null-prototype object, a revoked Proxy): the value itself is lost by then.
 */
export function lostByCordis(error: unknown): boolean {
  try {
    return error instanceof TypeError && /^\s+at (?:new Error \(<anonymous>\)\n\s+at )?handleError \(.*cordis/m.test(String(error.stack).split('\n').slice(1, 3).join('\n'))
  } catch {
    return false
  }
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
