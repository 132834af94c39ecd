/**
 * How much YAML the loader parses, checked before the parse. The `yaml` package holds every token of
 * the file twice while it parses (its syntax tree, then the document's nodes), 90 to 300 bytes of heap
 * per token, and builds a double-quoted string one character at a time (about 32 bytes per character
 * until the string is first read). A 4 MiB file can hold over a million tokens, so without these limits
 * the largest accepted file would take up to 2.7 GB to parse. A pre-pass with the package's own `Lexer`
 * (which keeps nothing: each token is counted and dropped) refuses, before the real parse, a file with
 * more than {@link DEFAULT_MAX_YAML_TOKENS} tokens or more than {@link DEFAULT_MAX_DOUBLE_QUOTED_CHARS}
 * characters of double-quoted strings, at the place where it crosses the limit.
 * @module
 */
import { CST, Lexer } from 'yaml'

/**
 * The most YAML tokens read by default (`maxYamlTokens` raises it). Each key, value, indicator (`-`,
 * `:`, `[`, `,`), comment, run of spaces and line break is one token; a whole scalar is one token however
 * long it is. The examples of this repository have 67 to 2,371; a deployment of a hundred rows with small
 * configs about 2,000.
 */
export const DEFAULT_MAX_YAML_TOKENS = 20_000

/**
 * The most characters of double-quoted strings read by default, in all (`maxDoubleQuotedChars` raises
 * it): 128 Ki, some 30 pages of text. Plain, single-quoted and block scalars (`|`, `>`) are not limited.
 */
export const DEFAULT_MAX_DOUBLE_QUOTED_CHARS = 128 * 1024

/** The limits of one parse (both positive; `Infinity` for none). */
export interface YamlLimits {
  tokens: number
  doubleQuotedChars: number
}

/** Where a text first goes over a limit: the offset of the token that crosses it. */
export interface LimitCrossed {
  limit: 'tokens' | 'doubleQuotedChars'
  /** The offset (in the text) of the token that crosses the limit. */
  offset: number
}

/**
 * The first place where `text` goes over `limits`, or `undefined`. Counts the tokens the `yaml` parser
 * makes of the text, with the offsets it gives them (its control markers take no room in the text).
 */
export function crossedLimit(text: string, limits: YamlLimits): LimitCrossed | undefined {
  let tokens = 0
  let quoted = 0
  let offset = 0
  // After the scalar marker, the next token is the text of a plain or block scalar, whatever it starts with.
  let scalarNext = false
  for (const source of new Lexer().lex(text)) {
    if (scalarNext) scalarNext = false
    else {
      const type = CST.tokenType(source)
      if (type === 'scalar') {
        scalarNext = true
        continue
      }
      if (type === 'doc-mode' || type === 'flow-error-end') continue
      if (type === 'double-quoted-scalar') {
        // The characters between the quotes, as written (an escape such as \n counts its two).
        quoted += Math.max(0, source.length - 2)
        if (quoted > limits.doubleQuotedChars) return { limit: 'doubleQuotedChars', offset }
      }
    }
    if (++tokens > limits.tokens) return { limit: 'tokens', offset }
    offset += source.length
  }
  return undefined
}

/** The 1-based line and column of `offset` in `text`, as the `yaml` package's `LineCounter` gives them. */
export function positionIn(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let start = 0
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++
    start = at + 1
  }
  return { line, column: offset - start + 1 }
}
