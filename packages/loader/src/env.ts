import { isMap, isPair, isScalar, isSeq } from 'yaml'
import { envMalformed, envMissing, type LoaderMessage } from './errors.js'
import { formatKeyPath, keyText, type KeyPath } from './source.js'

/** Where substitution reads variables from: `options.env ?? process.env`. */
export type Environment = Readonly<Record<string, string | undefined>>

/** The result of substituting one string: the new text, or what went wrong. */
export type Substitution =
  | { ok: true; value: string }
  | { ok: false; missing: string }
  | { ok: false; malformed: string }

const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([^]*))?$/

/**
 * Substitutes `${NAME}` and `${NAME:-default}` in `text` from `env`; `$${` stands for a literal `${`.
 * `${NAME:-default}` uses the default when the variable is unset or empty; `${NAME}` with the variable
 * unset is a failure naming it. Substituted values are never scanned again. Pure.
 */
export function substituteVariables(text: string, env: Environment): Substitution {
  if (!text.includes('${')) return { ok: true, value: text }
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
    const close = text.indexOf('}', open + 2)
    if (close < 0) return { ok: false, malformed: text.slice(open) }
    const match = VARIABLE.exec(text.slice(open + 2, close))
    if (!match) return { ok: false, malformed: text.slice(open, close + 1) }
    const [, name, fallback] = match
    const value = env[name]
    let replacement: string
    if (fallback !== undefined) replacement = value === undefined || value === '' ? fallback : value
    else if (value === undefined) return { ok: false, missing: name }
    else replacement = value
    out += text.slice(index, open) + replacement
    index = close + 1
  }
  return { ok: true, value: out + text.slice(index) }
}

/** A substitution failure at one scalar, for the problem list. */
export interface SubstitutionFailure extends LoaderMessage {
  node: unknown
  path: KeyPath
}

/**
 * Substitutes every string scalar value under `node` in place (mapping keys are left alone; aliases
 * are followed through their anchors, which are substituted where they are written).
 * Returns the failures (messages name the key from `path[shownFrom]` on, so a row's failure reads
 * `config.root`); a failing scalar keeps its text.
 */
export function substituteTree(node: unknown, path: KeyPath, env: Environment, shownFrom = 0): SubstitutionFailure[] {
  const failures: SubstitutionFailure[] = []
  const walk = (current: unknown, at: KeyPath) => {
    if (isScalar(current)) {
      if (typeof current.value !== 'string') return
      const result = substituteVariables(current.value, env)
      if (result.ok) current.value = result.value
      else {
        const key = formatKeyPath(at.slice(shownFrom))
        const message = 'missing' in result ? envMissing(key, result.missing) : envMalformed(key, result.malformed)
        failures.push({ ...message, node: current, path: at })
      }
    } else if (isMap(current)) {
      for (const pair of current.items) {
        if (isPair(pair)) walk(pair.value, [...at, keyText(pair.key)])
      }
    } else if (isSeq(current)) {
      current.items.forEach((item, index) => walk(item, [...at, index]))
    }
  }
  walk(node, path)
  return failures
}
