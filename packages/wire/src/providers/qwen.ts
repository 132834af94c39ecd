/**
 * The Qwen family (Alibaba Cloud Model Studio / DashScope): two caches, one per request (Context Cache,
 * alibabacloud.com/help/en/model-studio/context-cache and help.aliyun.com/zh/model-studio/context-cache,
 * read 2026-12-01):
 *   Q1. implicit cache (no marker in the request): automatic, from 256 tokens, serves the shared prefix
 *       without a guarantee of a hit (one edition of the Chinese page gives 1,024 as the minimum: the
 *       English and the other Chinese editions give 256, which is used here);
 *   Q2. explicit cache: a request marks blocks with `cache_control: { type: 'ephemeral' }`, at most four
 *       markers (markers after the fourth are not modelled);
 *   Q3. each marker looks back at most 20 content blocks for an entry, and the longest match is read;
 *   Q4. an explicit entry holds at least 1,024 tokens;
 *   Q5. an explicit entry is valid for 5 minutes, reset by each hit;
 *   Q6. explicit and implicit caching are mutually exclusive: a request with markers uses only the explicit cache.
 * dsh places markers only in the `anthropic` format (DashScope's Anthropic-compatible endpoint), so an
 * `openai-chat` request follows Q1 and an `anthropic` one Q2–Q5.
 * Usage: the Chat Completions shape with `prompt_tokens_details.cached_tokens`, and the explicit cache's
 * writes as `prompt_tokens_details.cache_creation_input_tokens`.
 * No Qwen tokenizer is in the stack: counts are the o200k estimate, labelled so.
 * @module
 */
import { markerCachedTokens, TTL_MS, type AnthropicPrediction, type MarkerCacheInput, type MarkerCacheRules } from '../caching-rules.js'
import type { ProviderFamily } from '../provider-family.js'
import { labelled, loadO200k } from '../tokenizers.js'
import { tokenCount, usageObject, usageRecord } from '../usage.js'

/** The implicit cache's minimum (Q1), the explicit cache's marker limit (Q2), lookback (Q3) and minimum (Q4). */
export const QWEN_IMPLICIT_MINIMUM = 256
export const QWEN_MAX_MARKERS = 4
export const QWEN_LOOKBACK = 20
export const QWEN_EXPLICIT_MINIMUM = 1024

const RULES: MarkerCacheRules = Object.freeze({ lookback: QWEN_LOOKBACK, ids: Object.freeze({ marker: 'Q2', lookback: 'Q3', minimum: 'Q4', ttl: 'Q5', prefix: 'Q2' }) })

/** The implicit cache: the shared prefix when it reaches the minimum (Q1). */
export function qwenImplicitCachedTokens(reusableTokens: number): number {
  return reusableTokens >= QWEN_IMPLICIT_MINIMUM ? reusableTokens : 0
}

/** The explicit cache: the entries the first four markers reach within 20 blocks, from 1,024 tokens, alive 5 minutes (Q2–Q5). */
export function qwenExplicitCachedTokens(input: Omit<MarkerCacheInput, 'minimum'>): AnthropicPrediction {
  return markerCachedTokens({ ...input, points: input.points.slice(0, QWEN_MAX_MARKERS), minimum: QWEN_EXPLICIT_MINIMUM }, RULES)
}

export const qwen: ProviderFamily = Object.freeze<ProviderFamily>({
  name: 'qwen',
  formats: Object.freeze(['openai-chat', 'anthropic']),
  tokenizer: () => loadO200k().then((counter) => labelled(counter, 'estimate (o200k_base; no Qwen tokenizer installed)')),
  usage: Object.freeze({
    qwen: (raw: Readonly<Record<string, unknown>>) => {
      const details = usageObject(raw.prompt_tokens_details)
      return usageRecord(tokenCount(raw.prompt_tokens), tokenCount(details.cached_tokens), tokenCount(details.cache_creation_input_tokens), tokenCount(raw.completion_tokens))
    },
  }),
  predict: ({ reusableTokens, reusableBytes, entries, points, now, headBlocks }) => {
    // Q6: a request with markers uses the explicit cache alone.
    if (points.length === 0) {
      return { cachedTokens: qwenImplicitCachedTokens(reusableTokens), limit: `below the minimum: the implicit cache holds prefixes from ${QWEN_IMPLICIT_MINIMUM} tokens (Q1)` }
    }
    const prediction = qwenExplicitCachedTokens({ entries, points, reusableBytes, now, headBlocks })
    return { cachedTokens: prediction.cachedTokens, entries: prediction.entries, limit: prediction.limit ?? 'the explicit cache ends at the last marker inside the shared prefix (Q2)' }
  },
  mismatch: ({ predictedCachedTokens, reported, sincePrevious }) => {
    if (reported < predictedCachedTokens && sincePrevious !== undefined && sincePrevious > TTL_MS['5m']) return 'TTL elapsed: an explicit entry lives 5 minutes after its last hit (Q5)'
    if (reported < predictedCachedTokens) return 'implicit caching is not guaranteed: Qwen served less than the shared prefix (Q1)'
    return undefined
  },
  routing: Object.freeze({}),
  // Context Cache billing (same pages): an implicit hit costs 20% of the input price; an explicit write
  // 125% and an explicit hit 10%. One figure per model: the implicit cache's, which every format can use.
  cachePrices: () => Object.freeze({ write: 1, read: 0.2, source: 'Qwen Context Cache: implicit hit 0.2x the input price (explicit: write 1.25x, hit 0.1x, not used here)' }),
})
