/**
 * Strict `{{variable}}` interpolation (SPEC §9). Pure and Cordis-free.
 *
 * At each `{{`:
 * - a complete group `{{inner}}` (no brace inside) whose inner is a valid name is replaced by the
 *   variable's value (unknown name, or a name without value, is an error);
 * - a complete group with any other inner (`{{ model }}`, `{{}}`, `{{Model}}`) is malformed, except the
 *   raw block `{{#raw}}…{{/raw}}`, which emits its content verbatim (an escape for literal braces; both
 *   forms were errors before, so every text that rendered before renders the same);
 * - a `{{` that opens no complete group is malformed when a `}}` still follows (`{{{model}}}`), and
 *   literal otherwise.
 * Substituted values are never scanned again. Runs in time linear in the text length.
 * @module
 */
import {
  malformedGroup, malformedOpening, unknownVariable, unterminatedRaw, valuelessVariable, type TextKind,
} from './errors.js'

const NAME = /^[a-z][a-z0-9_]*$/
/** The opening marker of a raw block: its content is emitted verbatim. */
const RAW_OPEN = '{{#raw}}'
/** The closing marker of a raw block. */
const RAW_CLOSE = '{{/raw}}'

/** Variable values by name; lookup is own-property only. */
export type VariableTable = Readonly<Record<string, string | undefined>>

/**
 * Interpolates `text`, the text of `kind` `owner` (for messages), against `variables`.
 * Throws a `PromptError` with the SPEC message on the first problem.
 */
export function interpolate(text: string, variables: VariableTable, kind: TextKind, owner: string): string {
  let open = text.indexOf('{{')
  if (open < 0) return text
  let out = ''
  let from = 0
  while (open >= 0) {
    const close = text.indexOf('}}', open + 2)
    // A `{{` with no `}}` after it stays literal, and so does every later `{{`.
    if (close < 0) break
    if (firstBrace(text, open + 2, close) === close) {
      const inner = text.slice(open + 2, close)
      out += text.slice(from, open)
      if (NAME.test(inner)) {
        out += lookup(inner, variables, kind, owner)
        from = close + 2
      } else if (inner === '#raw') {
        const end = text.indexOf(RAW_CLOSE, close + 2)
        if (end < 0) throw unterminatedRaw(kind, owner)
        out += text.slice(close + 2, end)
        from = end + RAW_CLOSE.length
      } else {
        throw malformedGroup(kind, inner, owner)
      }
      open = text.indexOf('{{', from)
    } else {
      // No complete group opens here, yet a `}}` follows.
      throw malformedOpening(kind, text.slice(open, open + 16), owner)
    }
  }
  return from === 0 ? text : out + text.slice(from)
}

/** The index of the first `{` or `}` in `text[from, limit)`, or `limit` when there is none. */
function firstBrace(text: string, from: number, limit: number): number {
  for (let i = from; i < limit; i++) {
    const c = text.charCodeAt(i)
    if (c === 123 || c === 125) return i
  }
  return limit
}

function lookup(name: string, variables: VariableTable, kind: TextKind, owner: string): string {
  if (!Object.hasOwn(variables, name)) {
    throw unknownVariable(kind, name, owner, Object.keys(variables).sort())
  }
  const value = variables[name]
  if (value === undefined) throw valuelessVariable(kind, name, owner)
  return value
}

export { RAW_OPEN, RAW_CLOSE }
