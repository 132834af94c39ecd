/**
 * Strict `{{variable}}` interpolation (SPEC §9) on the one template scanner (`template.ts`). Pure and
 * Cordis-free. Variables are replaced by their values (an unknown name, or a name without a value, is an
 * error), a raw block emits its content verbatim, and every malformed form is an error. Substituted
 * values are never scanned again.
 * @module
 */
import {
  malformedGroup, malformedOpening, unknownVariable, unterminatedRaw, valuelessVariable, type TextKind,
} from './errors.js'
import { scanTemplate } from './template.js'

/** Variable values by name; lookup is own-property only. */
export type VariableTable = Readonly<Record<string, string | undefined>>

/**
 * Interpolates `text`, the text of `kind` `entry` (named in messages), against `variables`.
 * Throws a `PromptError` with the SPEC message (and its `code`) on the first problem.
 */
export function interpolate(text: string, variables: VariableTable, kind: TextKind, entry: string): string {
  if (!text.includes('{{')) return text
  let out = ''
  let from = 0
  scanTemplate(text, (token, start, end, value) => {
    switch (token) {
      case 'variable': out += text.slice(from, start) + lookup(value, variables, kind, entry); break
      case 'raw': out += text.slice(from, start) + value; break
      case 'unterminated-raw': throw unterminatedRaw({ kind, entry })
      case 'malformed-group': throw malformedGroup({ kind, entry }, value)
      case 'malformed-opening': throw malformedOpening({ kind, entry }, text.slice(start, start + 16))
    }
    from = end
  })
  return from === 0 ? text : out + text.slice(from)
}

function lookup(name: string, variables: VariableTable, kind: TextKind, entry: string): string {
  if (!Object.hasOwn(variables, name)) throw unknownVariable({ kind, entry }, name, Object.keys(variables).sort())
  const value = variables[name]
  if (value === undefined) throw valuelessVariable({ kind, entry }, name)
  return value
}
