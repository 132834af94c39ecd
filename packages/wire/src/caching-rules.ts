/**
 * The prompt-caching rules of each provider, as documented (R-CACHE-4), in one place: given how much
 * of a request repeats the previous one, what the provider should serve from cache. One function per
 * provider; each rule is one numbered line below and has one test.
 *
 * OpenAI (Prompt Caching guide, developers.openai.com/api/docs/guides/prompt-caching, and the
 * "Prompt Caching 201" cookbook, read 2026-12-01):
 *   O1. nothing is cached for a prompt under 1,024 tokens;
 *   O2. a hit covers the first 1,024 tokens, then whole 128-token increments of the shared prefix.
 * DeepSeek (Context Caching guide, api-docs.deepseek.com/guides/kv_cache, read 2026-12-01):
 *   D1. the cache stores and serves whole 64-token units of the shared prefix (a prefix shorter than one
 *       unit is not cached).
 * Anthropic (prompt-caching guide, platform.claude.com/docs/en/build-with-claude/prompt-caching, read
 * 2026-12-01):
 *   A1. only a prefix that ends at a `cache_control` breakpoint of an earlier request is cached;
 *   A2. a breakpoint of this request finds an earlier entry only within 20 blocks before it (lookback);
 *   A3. a prefix below the model's minimum cacheable length is never cached (`minimumTokens`);
 *   A4. an entry lives for its TTL (5 minutes, or 1 hour) after it was last written or read;
 *   A5. the entry must lie wholly inside the prefix this request shares byte for byte.
 *   (From A2, an entry in the messages more than 20 blocks before this request's last breakpoint can
 *   never be read again, since later breakpoints come at or after it: it is dropped from the entries
 *   kept, so a long conversation does not make each request slower.)
 * Gemini (implicit caching, ai.google.dev/gemini-api/docs/caching, read 2026-12-01):
 *   G1. implicit caching applies from a minimum prompt size (1,024 tokens for Flash models, 4,096 for
 *       Pro), and serves the shared prefix, without a guarantee of a hit.
 * Pure.
 * @module
 */
import type { CacheTtl } from './breakpoints.js'

/** OpenAI: the smallest prompt that is cached (O1), and the step of a hit (O2). */
export const OPENAI_MINIMUM = 1024
export const OPENAI_INCREMENT = 128
/** DeepSeek: the unit of storage (D1). */
export const DEEPSEEK_UNIT = 64
/** Anthropic: the lookback in blocks (A2). */
export const ANTHROPIC_LOOKBACK = 20
/** Anthropic: each TTL in milliseconds (A4). */
export const TTL_MS: Readonly<Record<CacheTtl, number>> = Object.freeze({ '5m': 5 * 60_000, '1h': 60 * 60_000 })

/** OpenAI: the tokens served from cache for a request of `requestTokens` sharing `reusableTokens` (O1, O2). */
export function openaiCachedTokens(requestTokens: number, reusableTokens: number): number {
  if (requestTokens < OPENAI_MINIMUM || reusableTokens < OPENAI_MINIMUM) return 0
  return OPENAI_MINIMUM + Math.floor((reusableTokens - OPENAI_MINIMUM) / OPENAI_INCREMENT) * OPENAI_INCREMENT
}

/** DeepSeek: whole units of the shared prefix (D1). */
export function deepseekCachedTokens(reusableTokens: number): number {
  return Math.floor(reusableTokens / DEEPSEEK_UNIT) * DEEPSEEK_UNIT
}

/** Gemini: the minimum prompt size of implicit caching for `model` (G1). */
export function geminiMinimum(model: string): number {
  return /pro/i.test(model) ? 4096 : 1024
}

/** Gemini: the shared prefix when the prompt reaches the minimum (G1). */
export function geminiCachedTokens(model: string, requestTokens: number, reusableTokens: number): number {
  return requestTokens >= geminiMinimum(model) && reusableTokens >= geminiMinimum(model) ? reusableTokens : 0
}

/** A point of a request's cache stream where a breakpoint sits (or sat, in an earlier request). */
export interface CachePoint {
  /** Stream bytes up to the end of the marked block. */
  readonly bytes: number
  /** Tokens up to the end of the marked block. */
  readonly tokens: number
  /** The index of the marked block, counting every block of the stream from 0. */
  readonly block: number
  readonly ttl: CacheTtl
}

/** An Anthropic cache entry an earlier request wrote (or a later one refreshed). */
export interface CacheEntry extends CachePoint {
  /** When it expires, in milliseconds since the epoch. */
  readonly expires: number
}

/** What the Anthropic rules decide for one request. */
export interface AnthropicPrediction {
  /** The tokens served from cache. */
  readonly cachedTokens: number
  /** The entries that remain after this request: those still valid, refreshed if read, plus those it writes. */
  readonly entries: readonly CacheEntry[]
  /** Why nothing (or less than the shared prefix) is read, when that is so: the rule in words. */
  readonly limit?: string
}

/**
 * Anthropic: the tokens this request reads from the entries earlier requests left, given the points it
 * marks (`points`, in stream order), the bytes it shares with the previous request, the model's
 * minimum and the time (A1–A5). Also returns the entries left afterwards, for the next request.
 */
export function anthropicCachedTokens(input: {
  entries: readonly CacheEntry[]
  points: readonly CachePoint[]
  reusableBytes: number
  minimum: number
  now: number
  /** Blocks of the tools and system prompt: entries there stay reachable (later requests mark them again). */
  headBlocks?: number
}): AnthropicPrediction {
  const { points, reusableBytes, minimum, now } = input
  // A5: an entry past the shared prefix no longer matches; A4: an expired one is gone.
  const shared = input.entries.filter((entry) => entry.bytes <= reusableBytes)
  const alive = shared.filter((entry) => entry.expires > now)
  let hit: CacheEntry | undefined
  for (const point of points) {
    for (const entry of alive) {
      // A2: within the lookback of one of this request's breakpoints (and not after it).
      if (entry.block > point.block || point.block - entry.block > ANTHROPIC_LOOKBACK) continue
      if (entry.tokens < minimum) continue // A3
      if (hit === undefined || entry.tokens > hit.tokens) hit = entry
    }
  }
  const entries: CacheEntry[] = []
  const reachable = points.length ? Math.max(...points.map((point) => point.block)) - ANTHROPIC_LOOKBACK : -Infinity
  for (const entry of alive) {
    if (entry.block < reachable && entry.block >= (input.headBlocks ?? 0)) continue
    entries.push(entry === hit ? { ...entry, expires: now + TTL_MS[entry.ttl] } : entry)
  }
  for (const point of points) {
    if (point.tokens < minimum) continue // A3: nothing is written below the minimum.
    if (!entries.some((entry) => entry.bytes === point.bytes)) entries.push({ ...point, expires: now + TTL_MS[point.ttl] })
  }
  const limit = hit !== undefined ? undefined
    : input.entries.length === 0 ? 'no earlier request wrote a cache entry (A1)'
      : shared.length === 0 ? 'every cache entry lies past the shared prefix (A5)'
        : alive.length === 0 ? 'every cache entry within the shared prefix has expired (A4)'
          : alive.every((entry) => entry.tokens < minimum) ? 'the cached prefix is below the minimum cacheable length (A3)'
            : 'no breakpoint of this request is within 20 blocks of a cache entry (A2)'
  return { cachedTokens: hit?.tokens ?? 0, entries, ...(limit === undefined ? {} : { limit }) }
}
