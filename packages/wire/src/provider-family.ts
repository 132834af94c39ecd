/**
 * What one provider family is, as a value: how it counts tokens, how its usage objects read, what
 * its caching rules serve from a shared prefix and the words for why, and which wire formats its API
 * speaks. One module per family (`providers/*.ts`), registered in one table (`providers/registry.ts`);
 * the agent's reuse report is generic over them. Types only.
 * @module
 */
import type { CacheEntry, CachePoint } from './caching-rules.js'
import type { TokenCounter } from './tokenizers.js'
import type { Usage } from './usage.js'

/** Reads one provider usage object (already checked to be an object) into the normalised record. */
export type UsageReader = (raw: Readonly<Record<string, unknown>>) => Usage

/** What a family's caching rules see of one request. */
export interface CacheQuestion {
  readonly model: string
  /** The request's stream in the family's tokens. */
  readonly requestTokens: number
  /** The prefix it shares byte for byte with the previous request, in tokens and in bytes. */
  readonly reusableTokens: number
  readonly reusableBytes: number
  /** The cache entries the previous request left (families that keep them), and the cache markers this request places. */
  readonly entries: readonly CacheEntry[]
  readonly points: readonly CachePoint[]
  /** Blocks of the tools and system prompt. */
  readonly headBlocks: number
  /** The time of the request, in milliseconds since the epoch. */
  readonly now: number
}

/** What a family's caching rules decide for one request. */
export interface CacheAnswer {
  /** The tokens the rules serve from cache (the report caps them at the shared prefix). */
  readonly cachedTokens: number
  /** Why the rules serve less than the shared prefix, naming the rule, when they do. */
  readonly limit: string
  /** The entries left for the next request (families that keep entries). */
  readonly entries?: readonly CacheEntry[]
}

/** What the mismatch wording sees: the report's figures and the time since the previous request. */
export interface MismatchQuestion {
  readonly requestTokens: number
  readonly predictedCachedTokens: number
  readonly reported: number
  /** Milliseconds since the previous request, when there was one. */
  readonly sincePrevious: number | undefined
}

/**
 * How a family routes requests to the machine that holds their cache: by a body field or a header
 * the harness sets (dsh sends `prompt_cache_key` where the format has it), or not at all.
 */
export interface RoutingKeys {
  /** The request body field that routes (`prompt_cache_key`), if any. */
  readonly field?: string
  /** The HTTP header that routes (`x-grok-conv-id`), if any. */
  readonly header?: string
  /** True when the family documents that it ignores routing keys. */
  readonly ignored?: boolean
}

/** A family's cache prices for one model, as multiples of the uncached input price (`cachePricesOf` in `cache-prices.ts`). */
export interface CachePrices {
  /** A token written to the cache: 1 where writing costs nothing extra (automatic caches), 1.25 for Anthropic's 5-minute entries. */
  readonly write: number
  /** A token served from the cache: 0.1 is a 90% discount. */
  readonly read: number
  /** Where the figures come from (the family's pricing page), or why there are none. */
  readonly source: string
}

/** One provider family. */
export interface ProviderFamily {
  /** The family's name (`step({ cacheRules })`, an agent's `provider`). */
  readonly name: string
  /** The wire formats its API speaks. */
  readonly formats: readonly string[]
  /** Its token counter (loaded on first use). */
  tokenizer(): Promise<TokenCounter>
  /** Its usage readers, by usage shape (`normalizeUsage(shape, usage)`). */
  readonly usage: Readonly<Record<string, UsageReader>>
  /** Its caching rules. */
  predict(question: CacheQuestion): CacheAnswer
  /** The family's reason why the reported cached tokens differ from the prediction, when it has one. */
  mismatch(question: MismatchQuestion): string | undefined
  /** The words when a usage carries no cached-token figure (a server that reports it only when asked to), if the family has its own. */
  readonly notReported?: string
  readonly routing: RoutingKeys
  /**
   * What the cache charges for `model`, per input token, as multiples of its uncached input price
   * (write, read), citing the pricing page. Optional: a family without it is priced with no discount
   * and no premium (`UNDECLARED_CACHE_PRICES`). A compaction's re-anchors are priced with it.
   */
  cachePrices?(model: string): CachePrices
  /**
   * The tokens of the prompt the engine makes of a request body of `format` (its chat template rendered
   * and tokenized), for a family that serves a self-hosted engine and can render its template; else
   * `undefined`. When given, the report counts these tokens and shares the longest common token prefix
   * with the previous request's, instead of counting the request's cache stream.
   */
  promptTokens?(format: string, request: unknown): readonly number[] | undefined
}
