/**
 * The Gemini family: no tokenizer package (an o200k estimate, labelled so), the `usageMetadata` shape,
 * and implicit caching (ai.google.dev/gemini-api/docs/caching, read 2026-12-01):
 *   G1. implicit caching applies from a minimum prompt size (1,024 tokens for Flash models, 4,096 for
 *       Pro), and serves the shared prefix, without a guarantee of a hit.
 * Usage: `promptTokenCount` (cached tokens included), `cachedContentTokenCount`, `candidatesTokenCount`
 * + `thoughtsTokenCount`; no write figure for implicit caching.
 * @module
 */
import type { ProviderFamily } from '../provider-family.js'
import { labelled, loadO200k } from '../tokenizers.js'
import { tokenCount, usageRecord } from '../usage.js'

/** The minimum prompt size of implicit caching for `model` (G1). */
export function geminiMinimum(model: string): number {
  return /pro/i.test(model) ? 4096 : 1024
}

/** The shared prefix when the prompt reaches the minimum (G1). */
export function geminiCachedTokens(model: string, requestTokens: number, reusableTokens: number): number {
  return requestTokens >= geminiMinimum(model) && reusableTokens >= geminiMinimum(model) ? reusableTokens : 0
}

export const gemini: ProviderFamily = Object.freeze<ProviderFamily>({
  name: 'gemini',
  formats: Object.freeze(['gemini']),
  tokenizer: () => loadO200k().then((counter) => labelled(counter, 'estimate (o200k_base)')),
  usage: Object.freeze({
    gemini: (raw: Readonly<Record<string, unknown>>) => {
      const candidates = tokenCount(raw.candidatesTokenCount)
      const thoughts = tokenCount(raw.thoughtsTokenCount)
      const output = candidates === null && thoughts === null ? null : (candidates ?? 0) + (thoughts ?? 0)
      return usageRecord(tokenCount(raw.promptTokenCount), tokenCount(raw.cachedContentTokenCount), null, output)
    },
  }),
  predict: ({ model, requestTokens, reusableTokens }) => ({
    cachedTokens: geminiCachedTokens(model, requestTokens, reusableTokens),
    limit: `below the minimum: implicit caching from ${geminiMinimum(model)} tokens for this model (G1)`,
  }),
  mismatch: ({ predictedCachedTokens, reported }) => (reported < predictedCachedTokens
    ? 'implicit caching is not guaranteed: Gemini served less than the shared prefix' : 'token counts are estimates: no Gemini tokenizer is available'),
  routing: Object.freeze({}),
  // Gemini API pricing (ai.google.dev/gemini-api/docs/pricing, read 2026-12-01): implicit-cache hits on 2.5 models cost a quarter of the input price; no write charge.
  cachePrices: () => Object.freeze({ write: 1, read: 0.25, source: 'Gemini pricing: context-cache input 0.25x the input price (2.5 models)' }),
})
