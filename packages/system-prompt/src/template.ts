/**
 * The `{{variable}}` template grammar (R-RENDER-8), scanned in one place: rendering (`interpolate`) and
 * save-time validation (`validatePromptTemplate`) both walk a text with {@link scanTemplate}, so the two
 * can never disagree about what a text means. Pure and Cordis-free.
 *
 * At each `{{`:
 * - a complete group `{{inner}}` (no brace inside) whose inner is a variable name is a `variable`;
 * - the raw block `{{#raw}}…{{/raw}}` is `raw` (its content is literal text), or `unterminated-raw`
 *   when no `{{/raw}}` follows (then only the opener is consumed);
 * - a complete group with any other inner (`{{ model }}`, `{{}}`, `{{Model}}`) is a `malformed-group`;
 * - a `{{` that opens no complete group while a `}}` still follows (`{{{model}}}`) is a
 *   `malformed-opening` (the two characters are consumed);
 * - a `{{` with no `}}` after it is literal, and so is every later `{{`: scanning stops.
 * Scanning resumes right after each token. The whole walk is linear in the text length.
 * @module
 */
import { isVariableName } from './errors.js'

/** The opening marker of a raw block: its content is emitted verbatim. */
export const RAW_OPEN = '{{#raw}}'
/** The closing marker of a raw block. */
export const RAW_CLOSE = '{{/raw}}'
const RAW_OPEN_INNER = RAW_OPEN.slice(2, -2)

/** What a token of a template is. */
export type TemplateToken = 'variable' | 'raw' | 'unterminated-raw' | 'malformed-group' | 'malformed-opening'

/**
 * Called for each token in text order with its span `[start, end)` and `value`: the variable name, the
 * raw block's content, the malformed group's inner text, or `''`. It may throw to stop the scan.
 */
export type TemplateVisitor = (token: TemplateToken, start: number, end: number, value: string) => void

/** Walks every token of `text` (see the module comment); text between tokens is literal. */
export function scanTemplate(text: string, visit: TemplateVisitor): void {
  let open = text.indexOf('{{')
  let close = -1
  while (open >= 0) {
    // The first `}}` after the opening. One found for an earlier opening is still the first when it lies
    // past this opening's braces, so it is reused: a run of bare `{{` costs linear time, not quadratic.
    if (close < open + 2) close = text.indexOf('}}', open + 2)
    if (close < 0) return
    let next = close + 2
    if (firstBrace(text, open + 2, close) === close) {
      const inner = text.slice(open + 2, close)
      if (isVariableName(inner)) visit('variable', open, next, inner)
      else if (inner === RAW_OPEN_INNER) {
        const end = text.indexOf(RAW_CLOSE, next)
        if (end < 0) visit('unterminated-raw', open, next, '')
        else {
          visit('raw', open, end + RAW_CLOSE.length, text.slice(next, end))
          next = end + RAW_CLOSE.length
        }
      } else visit('malformed-group', open, next, inner)
    } else {
      next = open + 2
      visit('malformed-opening', open, next, '')
    }
    open = text.indexOf('{{', next)
  }
}

/** The index of the first `{` or `}` in `text[from, limit)`, or `limit` when there is none. */
function firstBrace(text: string, from: number, limit: number): number {
  for (let i = from; i < limit; i++) {
    const c = text.charCodeAt(i)
    if (c === 123 || c === 125) return i
  }
  return limit
}
