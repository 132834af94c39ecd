import { isAlias, isMap, isPair, isScalar, isSeq, type Document } from 'yaml'
import { envMalformed, envMissing, envTooDeep, type LoaderMessage } from './errors.js'
import { formatKeyPath, keyText, type KeyPath } from './source.js'

/** Where substitution reads variables from: `options.env ?? process.env`. */
export type Environment = Readonly<Record<string, string | undefined>>

/** The result of substituting one string: the new text, or what went wrong. */
export type Substitution =
  | { ok: true; value: string }
  | { ok: false; missing: string }
  | { ok: false; malformed: string }
  | { ok: false; tooDeep: number }

const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([^]*))?$/

/** How deep defaults may nest (`${A:-${B:-...}}`): deeper is refused, so a hostile scalar cannot recurse without end. */
export const DEFAULT_NESTING_LIMIT = 8

/**
 * Substitutes `${NAME}` and `${NAME:-default}` in `text` from `env`; `$${` stands for a literal `${`.
 * `${NAME:-default}` uses the default when the variable is unset or empty; `${NAME}` with the variable
 * unset is a failure naming it. A default may hold references of its own (`${A:-${B}}`), substituted
 * only when the default is used, at most {@link DEFAULT_NESTING_LIMIT} levels deep. Substituted values
 * are never scanned again. Pure.
 */
export function substituteVariables(text: string, env: Environment): Substitution {
  if (!text.includes('${')) return { ok: true, value: text }
  return substituteLevel(text, env, 0)
}

function substituteLevel(text: string, env: Environment, depth: number): Substitution {
  let out = ''
  let index = 0
  while (index < text.length) {
    const open = text.indexOf('${', index)
    if (open < 0) break
    if (open > 0 && text[open - 1] === '$') {
      // `$${` is the escape: one `$` is dropped, the `${` stays literal.
      out += text.slice(index, open - 1) + '${'
      index = open + 2
      continue
    }
    if (depth >= DEFAULT_NESTING_LIMIT) return { ok: false, tooDeep: DEFAULT_NESTING_LIMIT }
    const close = closingBrace(text, open + 2)
    if (close < 0) return { ok: false, malformed: text.slice(open) }
    const match = VARIABLE.exec(text.slice(open + 2, close))
    if (!match) return { ok: false, malformed: text.slice(open, close + 1) }
    const [, name, fallback] = match
    const value = env[name]
    let replacement: string
    if (fallback !== undefined && (value === undefined || value === '')) {
      const inner = substituteLevel(fallback, env, depth + 1)
      if (!inner.ok) return inner
      replacement = inner.value
    } else if (value === undefined) return { ok: false, missing: name }
    else replacement = value
    out += text.slice(index, open) + replacement
    index = close + 1
  }
  return { ok: true, value: out + text.slice(index) }
}

/**
 * The index of the `}` that closes a reference whose body starts at `from`: nested `${` openings (not
 * `$${` escapes) each take one `}` first; a plain `{` is text. `-1` when it is never closed.
 */
function closingBrace(text: string, from: number): number {
  let depth = 0
  for (let i = from; i < text.length; i++) {
    const c = text[i]
    if (c === '}') {
      if (depth === 0) return i
      depth--
    } else if (c === '$' && text[i + 1] === '{' && text[i - 1] !== '$') {
      depth++
      i++
    }
  }
  return -1
}

/** A substitution failure at one scalar, for the problem list. */
export interface SubstitutionFailure extends LoaderMessage {
  node: unknown
  path: KeyPath
}

/**
 * Substitutes every string scalar value under `node` in place (mapping keys are left alone). An alias
 * is followed to its anchor, which is substituted once, where it is first reached (so an anchor written
 * in a row that is not walked, a `disabled: true` one, is substituted through its alias, and a failure
 * there is reported at the alias). Pass the same `done` set to every call on one document, so no scalar
 * is substituted twice. Returns the failures (messages name the key from `path[shownFrom]` on, so a
 * row's failure reads `config.root`); a failing scalar keeps its text.
 */
export function substituteTree(
  node: unknown, path: KeyPath, env: Environment, shownFrom = 0, document?: Document, done: WeakSet<object> = new WeakSet(),
): SubstitutionFailure[] {
  const failures: SubstitutionFailure[] = []
  const walk = (current: unknown, at: KeyPath, shownAt: unknown) => {
    if (isAlias(current)) {
      const target = document ? current.resolve(document) : undefined
      if (target) walk(target, at, current)
    } else if (isScalar(current)) {
      if (typeof current.value !== 'string' || done.has(current)) return
      done.add(current)
      const result = substituteVariables(current.value, env)
      if (result.ok) current.value = result.value
      else {
        const key = formatKeyPath(at.slice(shownFrom))
        const message = 'missing' in result ? envMissing(key, result.missing)
          : 'malformed' in result ? envMalformed(key, result.malformed) : envTooDeep(key, result.tooDeep)
        failures.push({ ...message, node: shownAt ?? current, path: at })
      }
    } else if (isMap(current)) {
      if (done.has(current)) return
      done.add(current)
      for (const pair of current.items) {
        if (isPair(pair)) walk(pair.value, [...at, keyText(pair.key)], undefined)
      }
    } else if (isSeq(current)) {
      if (done.has(current)) return
      done.add(current)
      current.items.forEach((item, index) => walk(item, [...at, index], undefined))
    }
  }
  walk(node, path, undefined)
  return failures
}
