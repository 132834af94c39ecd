/**
 * The Moonshot (Kimi) family: automatic prefix caching on its OpenAI-compatible Chat Completions API.
 *   K1. the cache serves the shared prefix in whole 256-token chunks;
 *   K2. routing keys (`prompt_cache_key`, a conversation header) are ignored: a miss is an eviction,
 *       and no key the harness sets changes it.
 * Neither rule is in a Moonshot document we could find (platform.moonshot.ai documents automatic
 * caching only as a cache-hit input price; its older explicit `/v1/caching` API is not modelled): both
 * are measured, as issue 19 reports them, and labelled so in the report's words.
 * Usage: `prompt_tokens`, `completion_tokens`, and the cached tokens as `cached_tokens` (Kimi's own
 * field) or `prompt_tokens_details.cached_tokens` (the OpenAI field), whichever is reported.
 * No Kimi tokenizer is in the stack: counts are the o200k estimate, labelled so.
 * @module
 */
import type { ProviderFamily } from '../provider-family.js'
import { labelled, loadO200k } from '../tokenizers.js'
import { tokenCount, usageObject, usageRecord } from '../usage.js'

/** The chunk a hit is counted in (K1, measured). */
export const MOONSHOT_CHUNK = 256

/** Whole 256-token chunks of the shared prefix (K1). */
export function moonshotCachedTokens(reusableTokens: number): number {
  return Math.floor(reusableTokens / MOONSHOT_CHUNK) * MOONSHOT_CHUNK
}

export const moonshot: ProviderFamily = Object.freeze<ProviderFamily>({
  name: 'moonshot',
  formats: Object.freeze(['openai-chat']),
  tokenizer: () => loadO200k().then((counter) => labelled(counter, 'estimate (o200k_base; no Kimi tokenizer installed)')),
  usage: Object.freeze({
    moonshot: (raw: Readonly<Record<string, unknown>>) => usageRecord(
      tokenCount(raw.prompt_tokens), tokenCount(raw.cached_tokens) ?? tokenCount(usageObject(raw.prompt_tokens_details).cached_tokens), null, tokenCount(raw.completion_tokens),
    ),
  }),
  predict: ({ reusableTokens }) => ({ cachedTokens: moonshotCachedTokens(reusableTokens), limit: `unit granularity: whole ${MOONSHOT_CHUNK}-token chunks (K1, measured)` }),
  mismatch: ({ predictedCachedTokens, reported }) => {
    if (Math.abs(reported - predictedCachedTokens) < MOONSHOT_CHUNK) return 'unit granularity: Kimi serves whole 256-token chunks, and the o200k estimate differs from Kimi\'s tokenizer'
    if (reported < predictedCachedTokens) return 'cache miss: the entry was evicted; Kimi ignores routing keys, so no prompt_cache_key or conversation id can keep it (K2)'
    return undefined
  },
  routing: Object.freeze({ ignored: true }),
  // Moonshot pricing (platform.moonshot.ai, the cache-hit input price, read 2026-12-01): a hit costs a quarter of a miss.
  cachePrices: () => Object.freeze({ write: 1, read: 0.25, source: 'Moonshot pricing: cache-hit input 0.25x the input price' }),
})
