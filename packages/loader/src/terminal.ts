/**
 * Terminal safety: every string the CLI prints in text mode (and every line the `LoggerBridge` writes)
 * reaches the terminal through {@link terminalSafe}, so a deployment or a plugin cannot move the cursor, set the title (OSC), erase a
 * line (CR), forge a line (LF) or reorder text (bidi overrides). JSON output needs none of this:
 * `JSON.stringify` escapes the C0 controls, and a JSON reader is not a terminal.
 * @module
 */

/** C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidi marks, embeddings, overrides and isolates. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
/** The same, sparing LF and TAB (for multi-line text: prompts, tables, lists). */
const UNSAFE_IN_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
/** What {@link UNSAFE_IN_LINES} finds, except an SGR sequence (colour, bold: ESC `[` digits `m`), kept when colours are on. */
const UNSAFE_BUT_SGR = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' }

/** How much of the text may stay as it is. */
export type TerminalText =
  /** One line: a name, an id, a model, a path. Everything unsafe is escaped, LF and TAB included. */
  | 'inline'
  /** Several lines: LF and TAB stay; everything else unsafe is escaped. */
  | 'lines'
  /** Several lines the CLI coloured itself: as `lines`, and SGR sequences (colours) stay too. */
  | 'coloured'

/**
 * `text` with every character a terminal would act on written as a visible escape (`\e`, `\r`, `\n`,
 * `\u202e`), so it prints as what it is and does nothing. `mode` says what may stay (default `inline`).
 * Text without such characters is returned unchanged.
 */
export function terminalSafe(text: string, mode: TerminalText = 'inline'): string {
  const pattern = mode === 'inline' ? UNSAFE : mode === 'lines' ? UNSAFE_IN_LINES : UNSAFE_BUT_SGR
  pattern.lastIndex = 0
  if (!pattern.test(text)) return text
  return text.replace(pattern, (c) => c.length > 1 ? c : NAMED[c] ?? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}
