/**
 * What the caching rules of every provider family share: the points of a request's cache stream,
 * the entries a marker-based cache keeps, and that cache's rule (Anthropic's `cache_control`, and
 * Qwen's explicit cache, which follows it). Each family's own rules, numbered and cited, are in its
 * module under `providers/`. Pure.
 * @module
 */
import type { CacheTtl } from './breakpoints.js'

/** Each marker TTL in milliseconds. */
export const TTL_MS: Readonly<Record<CacheTtl, number>> = Object.freeze({ '5m': 5 * 60_000, '1h': 60 * 60_000 })

/** A point of a request's cache stream where a cache marker sits (or sat, in an earlier request). */
export interface CachePoint {
  /** Stream bytes up to the end of the marked block. */
  readonly bytes: number
  /** Tokens up to the end of the marked block. */
  readonly tokens: number
  /** The index of the marked block, counting every block of the stream from 0. */
  readonly block: number
  readonly ttl: CacheTtl
}

/** A cache entry an earlier request wrote (or a later one refreshed). */
export interface CacheEntry extends CachePoint {
  /** When it expires, in milliseconds since the epoch. */
  readonly expires: number
}

/** What a marker cache's rules decide for one request. */
export interface AnthropicPrediction {
  /** The tokens served from cache. */
  readonly cachedTokens: number
  /** The entries that remain after this request: those still valid, refreshed if read, plus those it writes. */
  readonly entries: readonly CacheEntry[]
  /** Why nothing (or less than the shared prefix) is read, when that is so: the rule in words. */
  readonly limit?: string
}

/** What a marker cache reads of one request. */
export interface MarkerCacheInput {
  entries: readonly CacheEntry[]
  points: readonly CachePoint[]
  reusableBytes: number
  minimum: number
  now: number
  /** Blocks of the tools and system prompt: entries there stay reachable (later requests mark them again). */
  headBlocks?: number
}

/** A marker cache's constants and the names of its rules (for the words of a limit). */
export interface MarkerCacheRules {
  /** How many blocks before a marker the cache looks for an earlier entry. */
  readonly lookback: number
  /** Rule ids: an entry only at an earlier marker, the lookback, the minimum, the TTL, the shared prefix. */
  readonly ids: { readonly marker: string; readonly lookback: string; readonly minimum: string; readonly ttl: string; readonly prefix: string }
}

/**
 * A marker cache: the tokens this request reads from the entries earlier requests left, given the
 * points it marks (`points`, in stream order), the bytes it shares with the previous request, the
 * minimum and the time. Also returns the entries left afterwards, for the next request. (From the
 * lookback, an entry in the messages more than `lookback` blocks before this request's last marker can
 * never be read again, since later markers come at or after it: it is dropped, so a long conversation
 * does not make each request slower.)
 */
export function markerCachedTokens(input: MarkerCacheInput, rules: MarkerCacheRules): AnthropicPrediction {
  const { points, reusableBytes, minimum, now } = input
  const { lookback, ids } = rules
  // An entry past the shared prefix no longer matches; an expired one is gone.
  const shared = input.entries.filter((entry) => entry.bytes <= reusableBytes)
  const alive = shared.filter((entry) => entry.expires > now)
  let hit: CacheEntry | undefined
  for (const point of points) {
    for (const entry of alive) {
      // Within the lookback of one of this request's markers (and not after it).
      if (entry.block > point.block || point.block - entry.block > lookback) continue
      if (entry.tokens < minimum) continue
      if (hit === undefined || entry.tokens > hit.tokens) hit = entry
    }
  }
  const entries: CacheEntry[] = []
  const reachable = points.length ? Math.max(...points.map((point) => point.block)) - lookback : -Infinity
  for (const entry of alive) {
    if (entry.block < reachable && entry.block >= (input.headBlocks ?? 0)) continue
    entries.push(entry === hit ? { ...entry, expires: now + TTL_MS[entry.ttl] } : entry)
  }
  for (const point of points) {
    if (point.tokens < minimum) continue // Nothing is written below the minimum.
    if (!entries.some((entry) => entry.bytes === point.bytes)) entries.push({ ...point, expires: now + TTL_MS[point.ttl] })
  }
  const limit = hit !== undefined ? undefined
    : input.entries.length === 0 ? `no earlier request wrote a cache entry (${ids.marker})`
      : shared.length === 0 ? `every cache entry lies past the shared prefix (${ids.prefix})`
        : alive.length === 0 ? `every cache entry within the shared prefix has expired (${ids.ttl})`
          : alive.every((entry) => entry.tokens < minimum) ? `the cached prefix is below the minimum cacheable length (${ids.minimum})`
            : `no breakpoint of this request is within ${lookback} blocks of a cache entry (${ids.lookback})`
  return { cachedTokens: hit?.tokens ?? 0, entries, ...(limit === undefined ? {} : { limit }) }
}
