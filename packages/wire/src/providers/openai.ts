/**
 * The OpenAI family: `o200k_base` counts (exact for current models), the Chat Completions and
 * Responses usage shapes (OpenRouter reports the Chat shape too), and OpenAI's prompt caching.
 * Rules (Prompt Caching guide, developers.openai.com/api/docs/guides/prompt-caching, and the "Prompt
 * Caching 201" cookbook, read 2026-12-01):
 *   O1. nothing is cached for a prompt under 1,024 tokens;
 *   O2. a hit covers the first 1,024 tokens, then whole 128-token increments of the shared prefix.
 * Usage (same guide; OpenRouter "Usage Accounting"): `prompt_tokens` / `input_tokens`,
 * `..._details.cached_tokens` and `.cache_write_tokens` (newer models), `completion_tokens` / `output_tokens`.
 * Routing: `prompt_cache_key`, which `openai-responses` sends (the conversation id).
 * @module
 */
import type { ProviderFamily, UsageReader } from '../provider-family.js'
import { loadO200k } from '../tokenizers.js'
import { tokenCount, usageObject, usageRecord } from '../usage.js'

/** The smallest prompt that is cached (O1), and the step of a hit (O2). */
export const OPENAI_MINIMUM = 1024
export const OPENAI_INCREMENT = 128

/** The tokens served from cache for a request of `requestTokens` sharing `reusableTokens` (O1, O2). */
export function openaiCachedTokens(requestTokens: number, reusableTokens: number): number {
  if (requestTokens < OPENAI_MINIMUM || reusableTokens < OPENAI_MINIMUM) return 0
  return OPENAI_MINIMUM + Math.floor((reusableTokens - OPENAI_MINIMUM) / OPENAI_INCREMENT) * OPENAI_INCREMENT
}

/** The Chat Completions usage shape (also OpenRouter's, and xAI's). */
export const readChatUsage: UsageReader = (raw) => {
  const details = usageObject(raw.prompt_tokens_details)
  return usageRecord(tokenCount(raw.prompt_tokens), tokenCount(details.cached_tokens), tokenCount(details.cache_write_tokens), tokenCount(raw.completion_tokens))
}

/** The Responses usage shape (also xAI's). */
export const readResponsesUsage: UsageReader = (raw) => {
  const details = usageObject(raw.input_tokens_details)
  return usageRecord(tokenCount(raw.input_tokens), tokenCount(details.cached_tokens), tokenCount(details.cache_write_tokens), tokenCount(raw.output_tokens))
}

/**
 * OpenAI's cached-input price for `model` (openai.com/api/pricing and openai.com/index/api-prompt-caching,
 * read 2026-12-01): a tenth of the input price for the GPT-5 family, a quarter for GPT-4.1 and the o3 / o4
 * reasoning models, a half for GPT-4o and o1 (the 2024 launch price). Writing costs nothing extra.
 */
export function openaiCachePrices(model: string): { write: number; read: number; source: string } {
  const read = /^gpt-5/.test(model) ? 0.1 : /^(gpt-4\.1|o3|o4)/.test(model) ? 0.25 : 0.5
  return { write: 1, read, source: `OpenAI pricing: cached input ${read}x the input price, no write premium` }
}

export const openai: ProviderFamily = Object.freeze<ProviderFamily>({
  name: 'openai',
  formats: Object.freeze(['openai-chat', 'openai-responses']),
  tokenizer: loadO200k,
  usage: Object.freeze({ 'openai-chat': readChatUsage, 'openai-responses': readResponsesUsage, openrouter: readChatUsage }),
  predict: ({ requestTokens, reusableTokens }) => ({
    cachedTokens: openaiCachedTokens(requestTokens, reusableTokens),
    limit: reusableTokens < OPENAI_MINIMUM || requestTokens < OPENAI_MINIMUM
      ? `below the minimum: OpenAI caches a prompt from ${OPENAI_MINIMUM} tokens (O1)`
      : `unit granularity: whole ${OPENAI_INCREMENT}-token increments after the first ${OPENAI_MINIMUM} (O2)`,
  }),
  mismatch: ({ requestTokens, predictedCachedTokens, reported }) => {
    if (requestTokens < OPENAI_MINIMUM) return 'below the minimum: OpenAI caches prompts of 1,024 tokens or more'
    if (Math.abs(reported - predictedCachedTokens) < OPENAI_INCREMENT) return 'unit granularity: OpenAI serves 128-token increments, and counts differ by a few tokens'
    return undefined
  },
  routing: Object.freeze({ field: 'prompt_cache_key' }),
  // No write premium; cached input at the discount of the model's row (openai.com/api/pricing, read 2026-12-01).
  cachePrices: (model) => openaiCachePrices(model),
})
