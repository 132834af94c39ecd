/**
 * Save-time template validation (seed `000_*`: "the editor checks the braces as you save them").
 * Pure and Cordis-free.
 *
 * `validatePromptTemplate` scans a text with exactly the grammar of `interpolate()` (R-RENDER-8) and
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
  invalidTemplateText, invalidVariableName, isVariableName, malformedGroup, malformedOpening, unknownVariable,
  unterminatedRaw, type TemplatePlace,
} from './errors.js'
import { scanTemplate } from './template.js'

/** What kind of problem a {@link TemplateProblem} is: the code of the error rendering would throw. */
export type TemplateProblemCode =
  /** A well-formed `{{name}}` whose name is not among the given variable names. */
  | 'PROMPT_UNKNOWN_VARIABLE'
  /** A complete group whose inner is not a name (`{{ model }}`, `{{}}`, `{{Model}}`, `{{/raw}}`). */
  | 'PROMPT_MALFORMED_REFERENCE'
  /** A `{{` that opens no complete group while a `}}` still follows (`{{{model}}}`). */
  | 'PROMPT_MALFORMED_OPENING'
  /** A `{{#raw}}` with no `{{/raw}}` after it. */
  | 'PROMPT_UNTERMINATED_RAW'

/** One problem of a template, with its position in the text. */
export interface TemplateProblem {
  /** The kind of problem: the `code` of the error rendering would throw. */
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
    if (!isVariableName(name)) throw invalidVariableName(name)
    names.add(name)
  }
  const registered = [...names].sort()
  const problems: TemplateProblem[] = []
  const locate = lineLocator(text)
  scanTemplate(text, (token, start, end, value) => {
    if (token === 'raw' || (token === 'variable' && names.has(value))) return
    const place: TemplatePlace = locate(start)
    const error = token === 'variable' ? unknownVariable(place, value, registered)
      : token === 'unterminated-raw' ? unterminatedRaw(place)
      : token === 'malformed-group' ? malformedGroup(place, value)
      : malformedOpening(place, text.slice(start, start + 16))
    problems.push({ code: error.code, message: error.message, index: start, line: place.line, column: place.column, length: end - start })
  })
  return problems
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
