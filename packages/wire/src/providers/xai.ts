/**
 * The xAI (Grok) family: automatic prefix caching on the Chat Completions and Responses APIs.
 *   X1. the cache serves the shared prefix in whole 128-token blocks. Measured, not documented: xAI's
 *       guide gives no granularity; APIYI measured 128-token blocks on `grok-4.6` (124 calls checked
 *       against billing, 2026-08-19: docs.apiyi.com/api-capabilities/grok/prompt-caching).
 *   X2. cache entries live on one server: requests reach the same one by the `x-grok-conv-id` header
 *       (Chat Completions) or the `prompt_cache_key` body field (Responses), which work alike
 *       (docs.x.ai/developers/advanced-api-usage/prompt-caching/maximizing-cache-hits, read 2026-12-01).
 *   X3. a hit is not guaranteed: entries can be evicted at any time (…/prompt-caching/best-practices).
 * Usage: the OpenAI shapes, `prompt_tokens_details.cached_tokens` / `input_tokens_details.cached_tokens`
 * (…/prompt-caching/usage-and-pricing), read as `openai-chat` / `openai-responses`. No Grok tokenizer is
 * published as a package: counts are the o200k estimate, labelled so.
 * @module
 */
import type { ProviderFamily } from '../provider-family.js'
import { labelled, loadO200k } from '../tokenizers.js'

/** The block a hit is counted in (X1, measured). */
export const XAI_BLOCK = 128

/** Whole 128-token blocks of the shared prefix (X1). */
export function xaiCachedTokens(reusableTokens: number): number {
  return Math.floor(reusableTokens / XAI_BLOCK) * XAI_BLOCK
}

export const xai: ProviderFamily = Object.freeze<ProviderFamily>({
  name: 'xai',
  formats: Object.freeze(['openai-chat', 'openai-responses']),
  tokenizer: () => loadO200k().then((counter) => labelled(counter, 'estimate (o200k_base; xAI publishes no Grok tokenizer package)')),
  usage: Object.freeze({}),
  predict: ({ reusableTokens }) => ({ cachedTokens: xaiCachedTokens(reusableTokens), limit: `unit granularity: whole ${XAI_BLOCK}-token blocks (X1, measured)` }),
  mismatch: ({ predictedCachedTokens, reported }) => {
    if (Math.abs(reported - predictedCachedTokens) < XAI_BLOCK) return 'unit granularity: Grok serves whole 128-token blocks, and the o200k estimate differs from Grok\'s tokenizer'
    if (reported < predictedCachedTokens) return 'cache miss: the entry was evicted or the request reached another server (X2, X3): send a stable x-grok-conv-id header (Chat Completions) or prompt_cache_key (Responses)'
    return undefined
  },
  routing: Object.freeze({ header: 'x-grok-conv-id', field: 'prompt_cache_key' }),
  // xAI usage and pricing (docs.x.ai/…/prompt-caching/usage-and-pricing, read 2026-12-01): cached input a quarter of the input price; no write charge.
  cachePrices: () => Object.freeze({ write: 1, read: 0.25, source: 'xAI pricing: cached input 0.25x the input price' }),
})
