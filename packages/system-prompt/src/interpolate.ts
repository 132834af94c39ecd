/**
 * Strict `{{variable}}` interpolation (R-RENDER) on the one template scanner (`template.ts`). Pure and
 * Cordis-free. Variables are replaced by their values (an unknown name, or a name without a value, is an
 * error), a raw block emits its content verbatim, and every malformed form is an error. Substituted
 * values are never scanned again.
 *
 * A text is scanned once and kept compiled (its literal pieces, the names between them, and where its
 * first malformed form stands), so rendering the same text again, as every assembly of an unchanged
 * section does, only joins pieces and values. The cache holds a bounded number of texts.
 * @module
 */
import {
  malformedGroup, malformedOpening, textTooLong, unknownVariable, unterminatedRaw, valuelessVariable, type TemplatePlace, type TextKind,
} from './errors.js'
import { scanTemplate } from './template.js'

/** Variable values by name; lookup is own-property only. */
export type VariableTable = Readonly<Record<string, string | undefined>>

/** A scanned text: `literals[i]` comes before `names[i]`; the last literal ends the text. */
interface Compiled {
  readonly literals: readonly string[]
  readonly names: readonly string[]
  /** The first malformed form, reached after `names[0 .. at)` have been looked up. */
  readonly problem?: { readonly at: number; readonly error: (place: TemplatePlace) => Error }
}

/**
 * The most characters a rendered text may hold: each section and context, and the system prompt and
 * snapshot they join into (`PROMPT_TEXT_TOO_LONG` past it). 32 Mi characters is some 8 million tokens,
 * four times the largest context window, and a sixteenth of what a V8 string can hold (2^29 - 24
 * characters), so the request body that carries it can still be made.
 */
export const MAX_RENDERED_CHARS = 32 * 1024 * 1024

/** How many distinct texts stay compiled; past it the cache starts again (texts that change every time stay cheap). */
const CACHE_LIMIT = 2048
/** Longer texts are compiled for each use and not kept, so the cache never holds megabytes. */
const CACHED_TEXT_LIMIT = 64 * 1024
const cache = new Map<string, Compiled>()

/**
 * Interpolates `text`, the text of `kind` `entry` (named in messages), against `variables`.
 * Throws a `PromptError` with the message of its catalogue (R-RENDER-4, and its `code`) on the first problem.
 */
export function interpolate(text: string, variables: VariableTable, kind: TextKind, entry: string): string {
  let compiled = cache.get(text)
  if (compiled === undefined) {
    if (!text.includes('{{')) return text
    compiled = compile(text)
    if (text.length <= CACHED_TEXT_LIMIT) {
      if (cache.size >= CACHE_LIMIT) cache.clear()
      cache.set(text, compiled)
    }
  }
  const { literals, names, problem } = compiled
  if (!names.length && !problem) return literals[0]
  let out = literals[0]
  for (let i = 0; i < names.length; i++) {
    if (problem?.at === i) throw problem.error({ kind, entry })
    const value = lookup(names[i], variables, kind, entry)
    if (out.length + value.length + literals[i + 1].length > MAX_RENDERED_CHARS) throw tooLong(names, i, value, kind, entry)
    out += value + literals[i + 1]
  }
  if (problem) throw problem.error({ kind, entry })
  return out
}

/**
 * The variable names `text` references, in order of first use, up to its first malformed form (what
 * rendering would look up); `[]` for a text without references.
 */
export function templateVariables(text: string): string[] {
  if (!text.includes('{{')) return []
  return [...new Set((cache.get(text) ?? compile(text)).names)]
}

function compile(text: string): Compiled {
  const literals: string[] = []
  const names: string[] = []
  let literal = ''
  let from = 0
  let problem: Compiled['problem']
  try {
    scanTemplate(text, (token, start, end, value) => {
      if (token === 'variable') {
        literals.push(literal + text.slice(from, start))
        names.push(value)
        literal = ''
      } else if (token === 'raw') {
        literal += text.slice(from, start) + value
      } else {
        const snippet = text.slice(start, start + 16)
        const error = token === 'unterminated-raw' ? (place: TemplatePlace) => unterminatedRaw(place)
          : token === 'malformed-group' ? (place: TemplatePlace) => malformedGroup(place, value)
          : (place: TemplatePlace) => malformedOpening(place, snippet)
        problem = { at: names.length, error }
        // The first problem ends the scan: nothing after it renders.
        throw STOP
      }
      from = end
    })
  } catch (error) {
    if (error !== STOP) throw error
  }
  literals.push(literal + (problem ? '' : text.slice(from)))
  return problem ? { literals, names, problem } : { literals, names }
}

/** Thrown by `compile`'s visitor to stop the scan at the first problem. */
const STOP = Symbol('stop')

/** `PROMPT_TEXT_TOO_LONG` for the reference `names[at]`, whose `value` takes the text past the limit. */
function tooLong(names: readonly string[], at: number, value: string, kind: TextKind, entry: string): Error {
  let references = 0
  for (const name of names) if (name === names[at]) references++
  return textTooLong({ kind, entry }, MAX_RENDERED_CHARS, { name: names[at], references, valueLength: value.length })
}

function lookup(name: string, variables: VariableTable, kind: TextKind, entry: string): string {
  if (!Object.hasOwn(variables, name)) throw unknownVariable({ kind, entry }, name, Object.keys(variables).sort())
  const value = variables[name]
  if (value === undefined) throw valuelessVariable({ kind, entry }, name)
  return value
}

/**
 * A text as it was rendered once: the source, the result, and the value each of its references
 * resolved to (what a later render must find again to reuse the result).
 */
export interface RenderedText {
  readonly source: string
  /** Whether the source was interpolated (`false`: taken verbatim). */
  readonly interpolated: boolean
  readonly text: string
  readonly names: readonly string[]
  readonly values: readonly string[]
}

const NO_NAMES: readonly string[] = Object.freeze([])

/**
 * Whether `previous` is what rendering `text` (interpolated or verbatim, as `interpolated` says)
 * against `variables` gives now: the same source, rendered the same way, and every variable it
 * referenced still has, as an own property of `variables`, the very value it had. `valuesSame` says
 * the caller checked the values of every name `previous` references.
 */
export function stillRendered(previous: RenderedText | undefined, text: string, interpolated: boolean, variables: VariableTable, valuesSame: boolean): previous is RenderedText {
  return previous !== undefined && previous.source === text && previous.interpolated === interpolated &&
    (valuesSame || sameValues(previous.names, previous.values, variables))
}

/**
 * `interpolate` (or the verbatim text, with `interpolated` false) that also records what it read:
 * the source and the value of each reference, so a later render can tell with {@link stillRendered}
 * whether the result still holds. Throws as `interpolate` does.
 */
export function interpolateRecorded(text: string, interpolated: boolean, variables: VariableTable, kind: TextKind, entry: string): RenderedText {
  if (!interpolated) return { source: text, interpolated, text, names: NO_NAMES, values: NO_NAMES }
  let compiled = cache.get(text)
  if (compiled === undefined) {
    if (!text.includes('{{')) return { source: text, interpolated, text, names: NO_NAMES, values: NO_NAMES }
    compiled = compile(text)
    if (text.length <= CACHED_TEXT_LIMIT) {
      if (cache.size >= CACHE_LIMIT) cache.clear()
      cache.set(text, compiled)
    }
  }
  const { literals, names, problem } = compiled
  const values = new Array<string>(names.length)
  let out = literals[0]
  for (let i = 0; i < names.length; i++) {
    if (problem?.at === i) throw problem.error({ kind, entry })
    const value = lookup(names[i], variables, kind, entry)
    values[i] = value
    if (out.length + value.length + literals[i + 1].length > MAX_RENDERED_CHARS) throw tooLong(names, i, value, kind, entry)
    out += value + literals[i + 1]
  }
  if (problem) throw problem.error({ kind, entry })
  return { source: text, interpolated, text: out, names, values }
}

/**
 * Whether each of `names` is still an own property of `variables` holding the very value in `values`
 * (so every text that referenced only these names renders as it did). `valuesSame` in
 * {@link stillRendered} says the caller checked this for every name `previous` references.
 */
export function sameValues(names: readonly string[], values: readonly (string | undefined)[], variables: VariableTable): boolean {
  for (let i = 0; i < names.length; i++) {
    const name = names[i]
    if (variables[name] !== values[i] || !Object.hasOwn(variables, name)) return false
  }
  return true
}
