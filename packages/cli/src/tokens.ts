/**
 * Token counts with a real BPE tokenizer: `gpt-tokenizer`'s `o200k_base` encoding (loaded on first
 * use: its tables take about half a second to load). Other models tokenize differently; the counts are
 * a close estimate of what a request costs, and exact for the offset where two texts first differ.
 * @module
 */

/** The encoding every count uses, named in the CLI's output. */
export const TOKEN_ENCODING = 'o200k_base'

/** Encodes text to token ids. */
export interface Tokenizer {
  readonly encoding: string
  encode(text: string): number[]
  count(text: string): number
}

let loading: Promise<Tokenizer> | undefined

/** The tokenizer (loaded once). Special-token text such as `<|endoftext|>` is counted as plain text. */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => {
    const options = { disallowedSpecial: new Set<string>() }
    return {
      encoding: TOKEN_ENCODING,
      encode: (text: string) => module.encode(text, options),
      count: (text: string) => (text ? module.encode(text, options).length : 0),
    }
  })
  return loading
}

/** The index of the first token where `a` and `b` differ (the shorter length when one is a prefix). */
export function firstDifferentToken(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return i
  return length
}
