/**
 * Token counts with a real BPE tokenizer: `o200k_base` (`gpt-tokenizer`, loaded on first use through
 * `dsh-wire`'s `loadO200k`, which encodes in bounded pieces so a count costs linear time whatever the
 * text's shape). Other models tokenize differently; the counts are a close estimate of what a request
 * costs, and exact for the offset where two texts first differ, except inside an unbroken run of more
 * than 256 characters (cut into pieces to be counted: `measure` says so).
 * @module
 */
import { loadO200k, type BoundedCount } from 'dsh-wire'

/** The encoding every count uses, named in the CLI's output. */
export const TOKEN_ENCODING = 'o200k_base'

/** Encodes text to token ids. */
export interface Tokenizer {
  readonly encoding: string
  encode(text: string): number[]
  count(text: string): number
  /** The count, and whether an unbroken run was cut to make it (then it is an estimate). */
  measure(text: string): BoundedCount
}

let loading: Promise<Tokenizer> | undefined

/** The tokenizer (loaded once). Special-token text such as `<|endoftext|>` is counted as plain text. */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= loadO200k().then((encoding) => Object.freeze({
    encoding: TOKEN_ENCODING, encode: encoding.encode, count: encoding.count, measure: encoding.measure,
  }))
  return loading
}

/** The index of the first token where `a` and `b` differ (the shorter length when one is a prefix). */
export function firstDifferentToken(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return i
  return length
}
