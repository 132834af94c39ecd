/**
 * OpenAI's `o200k_base` encoding (`gpt-tokenizer`), loaded once for every user in the process (the
 * OpenAI and Gemini token counts, the CLI's counts and token offsets), encoding in bounded pieces
 * (`bounded-count.ts`) so its cost is linear in the text's length whatever the text's shape.
 *
 * `gpt-tokenizer` keeps a merge cache (pre-token → tokens) in a `Map` that evicts its oldest key when
 * full; once text of many distinct pre-tokens (base64, hex, random identifiers) has filled it, each
 * eviction scans past the `Map`'s deleted slots, and 1 MB of base64 costs 9 to 18 s instead of about
 * 1.5 s (measured here, see bench/README.md). Without any cache, though, every word is merged again
 * and a step that counts new prose costs about a third more (bench row f, gemini and openai-responses).
 * So the cache is kept but never full: it holds {@link MERGE_CACHE_ENTRIES} entries, and it is cleared
 * once that many characters have been encoded since the last clear (a pre-token is at least one
 * character, so no entry is ever evicted).
 * @module
 */
import { countInPieces, encodeInPieces, type BoundedCount } from './bounded-count.js'
import { loadModule } from './tokenizer-modules.js'

/** The `o200k_base` encoding, in bounded pieces. Special-token text such as `<|endoftext|>` is plain text. */
export interface O200kEncoding {
  readonly name: 'o200k_base'
  /** The token ids of `text` (those of its pieces, one after the other). */
  encode(text: string): number[]
  /** The number of tokens of `text`. */
  count(text: string): number
  /** The number of tokens of `text`, and whether an unbroken run was cut to count it (an estimate). */
  measure(text: string): BoundedCount
}

const NO_SPECIAL = { disallowedSpecial: new Set<string>() }

/** The merge cache's size, and the characters encoded between two clears of it. */
export const MERGE_CACHE_ENTRIES = 50_000

let loaded: O200kEncoding | undefined

interface O200kModule {
  encode(text: string, options: typeof NO_SPECIAL): number[]
  setMergeCacheSize(size: number): void
  clearMergeCache(): void
}

/**
 * The `o200k_base` encoding, loaded the first time it is asked for (its tables take about half a second
 * and 55 MB), synchronously, so a count can be made the moment it is read (R-CACHE-10).
 */
export function o200kNow(): O200kEncoding {
  loaded ??= encodingOf(loadModule<O200kModule>('o200k_base', 'gpt-tokenizer/encoding/o200k_base'))
  return loaded
}

/** The `o200k_base` encoding (loaded on first use: its tables take about half a second). */
export function loadO200k(): Promise<O200kEncoding> {
  return Promise.resolve().then(o200kNow)
}

function encodingOf(module: O200kModule): O200kEncoding {
  module.setMergeCacheSize(MERGE_CACHE_ENTRIES)
  let encoded = 0
  const encode = (piece: string) => {
    encoded += piece.length
    if (encoded > MERGE_CACHE_ENTRIES) {
      module.clearMergeCache()
      encoded = piece.length
    }
    return module.encode(piece, NO_SPECIAL)
  }
  const count = (piece: string) => encode(piece).length
  return Object.freeze({
    name: 'o200k_base' as const,
    encode: (text: string) => encodeInPieces(text, encode),
    count: (text: string) => countInPieces(text, count).tokens,
    measure: (text: string) => countInPieces(text, count),
  })
}
