/**
 * One usage record for every provider: `normalizeUsage(format, usage)`. Each figure is a count of
 * tokens, or `null` when the provider did not report it (never an invented 0). `inputTokens` is every
 * input token of the request, cached or not, in every format. Fields read (provider docs, 2026-12-01):
 * - OpenAI Chat: `prompt_tokens`, `prompt_tokens_details.cached_tokens`, `..cache_write_tokens` (reported
 *   by newer models), `completion_tokens` (OpenAI prompt-caching guide). OpenRouter returns the same shape
 *   with `prompt_tokens_details.cache_write_tokens` (OpenRouter "Usage Accounting"), so both read alike.
 * - OpenAI Responses: `input_tokens`, `input_tokens_details.cached_tokens` / `.cache_write_tokens`, `output_tokens`.
 * - Anthropic: `input_tokens` counts only the tokens after the last cache breakpoint, so the total adds
 *   `cache_read_input_tokens` and `cache_creation_input_tokens` (Anthropic prompt-caching guide).
 * - DeepSeek: `prompt_tokens` = `prompt_cache_hit_tokens` + `prompt_cache_miss_tokens`; no write figure
 *   (DeepSeek context-caching guide: every request builds the cache, at no extra charge).
 * - Gemini (`usageMetadata`): `promptTokenCount` (cached tokens included), `cachedContentTokenCount`,
 *   `candidatesTokenCount` + `thoughtsTokenCount`; no write figure for implicit caching.
 * @module
 */
import { invalidUsage } from './errors.js'

/** The normalised usage of one model call. */
export interface Usage {
  /** Every input token of the request (cached, written or neither). */
  inputTokens: number | null
  /** Input tokens read from the provider's prompt cache. */
  cachedReadTokens: number | null
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens: number | null
  /** Output tokens (including reasoning tokens where the provider counts them apart). */
  outputTokens: number | null
}

/** The usage shapes `normalizeUsage` reads. */
export const USAGE_FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'deepseek', 'gemini', 'openrouter'] as const

/** A usage shape `normalizeUsage` reads. */
export type UsageFormat = (typeof USAGE_FORMATS)[number]

type Raw = Record<string, unknown>

/** The normalised usage of a provider's usage object (`completion.usage`, `message.usage`, `response.usageMetadata`). */
export function normalizeUsage(format: UsageFormat, usage: unknown): Usage {
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) throw invalidUsage(format, 'expected a usage object')
  const raw = usage as Raw
  switch (format) {
    case 'openai-chat':
    case 'openrouter': {
      const details = object(raw.prompt_tokens_details)
      return record(count(raw.prompt_tokens), count(details.cached_tokens), count(details.cache_write_tokens), count(raw.completion_tokens))
    }
    case 'openai-responses': {
      const details = object(raw.input_tokens_details)
      return record(count(raw.input_tokens), count(details.cached_tokens), count(details.cache_write_tokens), count(raw.output_tokens))
    }
    case 'anthropic': {
      const read = count(raw.cache_read_input_tokens)
      const write = count(raw.cache_creation_input_tokens)
      const uncached = count(raw.input_tokens)
      return record(uncached === null ? null : uncached + (read ?? 0) + (write ?? 0), read, write, count(raw.output_tokens))
    }
    case 'deepseek': {
      const hit = count(raw.prompt_cache_hit_tokens)
      const miss = count(raw.prompt_cache_miss_tokens)
      const input = count(raw.prompt_tokens) ?? (hit !== null && miss !== null ? hit + miss : null)
      return record(input, hit, null, count(raw.completion_tokens))
    }
    case 'gemini': {
      const candidates = count(raw.candidatesTokenCount)
      const thoughts = count(raw.thoughtsTokenCount)
      const output = candidates === null && thoughts === null ? null : (candidates ?? 0) + (thoughts ?? 0)
      return record(count(raw.promptTokenCount), count(raw.cachedContentTokenCount), null, output)
    }
    default:
      throw invalidUsage(String(format), `unknown usage format; known formats: ${USAGE_FORMATS.join(', ')}`)
  }
}

/** Whether `value` is a normalised usage record (four keys, each a non-negative count or `null`). */
export function isUsage(value: unknown): value is Usage {
  if (typeof value !== 'object' || value === null) return false
  const keys: (keyof Usage)[] = ['inputTokens', 'cachedReadTokens', 'cacheWriteTokens', 'outputTokens']
  return keys.every((key) => {
    const figure = (value as Raw)[key]
    return figure === null || (typeof figure === 'number' && Number.isFinite(figure) && figure >= 0)
  })
}

function record(inputTokens: number | null, cachedReadTokens: number | null, cacheWriteTokens: number | null, outputTokens: number | null): Usage {
  return { inputTokens, cachedReadTokens, cacheWriteTokens, outputTokens }
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null
}

function object(value: unknown): Raw {
  return typeof value === 'object' && value !== null ? (value as Raw) : {}
}
