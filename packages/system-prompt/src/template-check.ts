/**
 * Save-time template validation (seed `000_*`: "the editor checks the braces as you save them").
 * Pure and Cordis-free.
 *
 * `validatePromptTemplate` scans a text with exactly the grammar of `interpolate()` (SPEC §9) and
 * returns every problem, not just the first, each with its position. Where `interpolate()` would throw,
 * the first problem returned is the one it throws, with the same wording: the owner phrase
 * (`in section "<s>"`) is replaced by the position (`at line <l>, column <c>`).
 *
 * After a problem, scanning resumes right after the problem's span, exactly as `interpolate()` resumes
 * after a group it accepted: a malformed or unknown group is skipped whole, an unterminated
 * `{{#raw}}` opener is skipped alone (the text after it is checked as ordinary template text), and a
 * `{{` that opens no complete group is skipped as those two characters.
 *
 * Positions: `index` is a 0-based UTF-16 code-unit offset; `line` and `column` are 1-based, lines end
 * at `\n` and columns count UTF-16 code units from the line start.
 * @module
 */
import {
  describe, invalidVariableName, malformedGroup, malformedOpening, unknownVariable, unterminatedRaw,
} from './errors.js'
import { RAW_CLOSE } from './interpolate.js'

const NAME = /^[a-z][a-z0-9_]*$/
const RAW_OPEN_INNER = '#raw'
// The owner handed to the shared error factories; its phrase is then replaced by the position.
const OWNER = '\u0000template\u0000'
const OWNER_PHRASE = `in section ${JSON.stringify(OWNER)}`

/** What kind of problem a {@link TemplateProblem} is (stable, for editors that style or filter them). */
export type TemplateProblemCode =
  /** A well-formed `{{name}}` whose name is not among the given variable names. */
  | 'unknown-variable'
  /** A complete group whose inner is not a name (`{{ model }}`, `{{}}`, `{{Model}}`, `{{/raw}}`). */
  | 'malformed-reference'
  /** A `{{` that opens no complete group while a `}}` still follows (`{{{model}}}`). */
  | 'malformed-opening'
  /** A `{{#raw}}` with no `{{/raw}}` after it. */
  | 'unterminated-raw'

/** One problem of a template, with its position in the text. */
export interface TemplateProblem {
  /** The kind of problem. */
  code: TemplateProblemCode
  /** The rendering error's wording, with the position in place of the section name. */
  message: string
  /** 0-based offset of the problem's first character (UTF-16 code units). */
  index: number
  /** 1-based line of `index` (lines end at `\n`). */
  line: number
  /** 1-based column of `index` within its line (UTF-16 code units). */
  column: number
  /** Length of the offending span: the whole group, the `{{#raw}}` opener, or 2 for a bare `{{`. */
  length: number
}

/**
 * Returns every problem of `text` as a `{{variable}}` template whose known variables are
 * `variableNames`, in text order; `[]` when it renders. Throws a `TypeError` when `text` is not a string
 * or a name does not match `/^[a-z][a-z0-9_]*$/` (such a name could never be referenced).
 */
export function validatePromptTemplate(text: string, variableNames: Iterable<string>): TemplateProblem[] {
  if (typeof text !== 'string') throw invalidTemplateText(text)
  const names = new Set<string>()
  for (const name of variableNames) {
    if (typeof name !== 'string' || !NAME.test(name)) throw invalidVariableName(name)
    names.add(name)
  }
  const registered = [...names].sort()
  const problems: TemplateProblem[] = []
  const locate = lineLocator(text)
  const report = (code: TemplateProblemCode, index: number, length: number, error: Error) => {
    const { line, column } = locate(index)
    const position = `at line ${line}, column ${column}`
    const message = error.message.replace(OWNER_PHRASE, () => position)
    problems.push({ code, message, index, line, column, length })
  }

  let open = text.indexOf('{{')
  let close = -1
  while (open >= 0) {
    // The first `}}` after the opening. A `}}` found for an earlier opening is still the first one when it
    // lies past this opening's braces, so it is reused: a run of bare `{{` costs linear time, not quadratic.
    if (close < open + 2) close = text.indexOf('}}', open + 2)
    // A `{{` with no `}}` after it stays literal, and so does every later `{{`.
    if (close < 0) break
    let next = close + 2
    if (firstBrace(text, open + 2, close) === close) {
      const inner = text.slice(open + 2, close)
      if (NAME.test(inner)) {
        if (!names.has(inner)) report('unknown-variable', open, next - open, unknownVariable('section', inner, OWNER, registered))
      } else if (inner === RAW_OPEN_INNER) {
        const end = text.indexOf(RAW_CLOSE, next)
        if (end < 0) report('unterminated-raw', open, next - open, unterminatedRaw('section', OWNER))
        else next = end + RAW_CLOSE.length
      } else {
        report('malformed-reference', open, next - open, malformedGroup('section', inner, OWNER))
      }
    } else {
      report('malformed-opening', open, 2, malformedOpening('section', text.slice(open, open + 16), OWNER))
      next = open + 2
    }
    open = text.indexOf('{{', next)
  }
  return problems
}

/** The index of the first `{` or `}` in `text[from, limit)`, or `limit` when there is none. */
function firstBrace(text: string, from: number, limit: number): number {
  for (let i = from; i < limit; i++) {
    const c = text.charCodeAt(i)
    if (c === 123 || c === 125) return i
  }
  return limit
}

/**
 * A line/column lookup for non-decreasing indices of `text` (problems are found in text order), so
 * the whole scan stays linear in the text length.
 */
function lineLocator(text: string): (index: number) => { line: number; column: number } {
  let line = 1
  let lineStart = 0
  let scanned = 0
  return (index) => {
    for (; scanned < index; scanned++) {
      if (text.charCodeAt(scanned) === 10) {
        line++
        lineStart = scanned + 1
      }
    }
    return { line, column: index - lineStart + 1 }
  }
}

// The one message of this module not shared with rendering (errors.ts is owned by the render path).
function invalidTemplateText(text: unknown): TypeError {
  return new TypeError(`validatePromptTemplate(text) needs the template text as a string, received ${describe(text)}`)
}
