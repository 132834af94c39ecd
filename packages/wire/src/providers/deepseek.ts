/**
 * The DeepSeek family: the DeepSeek V3 tokenizer (optional; else an o200k estimate), its usage shape
 * and its context caching (Context Caching guide, api-docs.deepseek.com/guides/kv_cache, read 2026-12-01):
 *   D1. the cache stores and serves whole 64-token units of the shared prefix (a prefix shorter than one
 *       unit is not cached).
 * Usage: `prompt_tokens` = `prompt_cache_hit_tokens` + `prompt_cache_miss_tokens`; no write figure
 * (every request builds the cache, at no extra charge). Speaks the Chat Completions shape.
 * @module
 */
import type { ProviderFamily } from '../provider-family.js'
import { deepseekCounter } from '../tokenizers.js'
import { tokenCount, usageRecord } from '../usage.js'

/** The unit of storage (D1). */
export const DEEPSEEK_UNIT = 64

/** Whole units of the shared prefix (D1). */
export function deepseekCachedTokens(reusableTokens: number): number {
  return Math.floor(reusableTokens / DEEPSEEK_UNIT) * DEEPSEEK_UNIT
}

export const deepseek: ProviderFamily = Object.freeze<ProviderFamily>({
  name: 'deepseek',
  formats: Object.freeze(['openai-chat']),
  tokenizer: deepseekCounter,
  usage: Object.freeze({
    deepseek: (raw: Readonly<Record<string, unknown>>) => {
      const hit = tokenCount(raw.prompt_cache_hit_tokens)
      const miss = tokenCount(raw.prompt_cache_miss_tokens)
      const input = tokenCount(raw.prompt_tokens) ?? (hit !== null && miss !== null ? hit + miss : null)
      return usageRecord(input, hit, null, tokenCount(raw.completion_tokens))
    },
  }),
  predict: ({ reusableTokens }) => ({ cachedTokens: deepseekCachedTokens(reusableTokens), limit: `unit granularity: whole ${DEEPSEEK_UNIT}-token units (D1)` }),
  mismatch: ({ predictedCachedTokens, reported }) =>
    (Math.abs(reported - predictedCachedTokens) < DEEPSEEK_UNIT ? 'unit granularity: DeepSeek serves whole 64-token units' : undefined),
  routing: Object.freeze({}),
  // Models & Pricing (api-docs.deepseek.com/quick_start/pricing, read 2026-12-01): a cache hit costs a tenth of a miss; building the cache costs nothing extra.
  cachePrices: () => Object.freeze({ write: 1, read: 0.1, source: 'DeepSeek pricing: cache-hit input 0.1x the cache-miss price' }),
})
