/**
 * What a provider family charges for its cache, per input token, as a multiple of the model's
 * uncached input price: a token written to the cache and a token read from it. Each family declares
 * its own in its module (`cachePrices`), citing the pricing page it read; this module asks for them,
 * so a compaction's re-anchors (dsh-agent) are priced in one unit, token-equivalents, whatever the
 * provider. Pure.
 * @module
 */
import type { CacheProvider } from './cache-report.js'
import type { CachePrices } from './provider-family.js'
import { providerFamily } from './providers/registry.js'

export type { CachePrices }

/** The prices of a family that declares none: every token at the uncached price (no discount is assumed). */
export const UNDECLARED_CACHE_PRICES: CachePrices = Object.freeze({ write: 1, read: 1, source: 'the family declares no cache prices: every token priced as uncached input' })

/** The cache prices of `provider`'s family for `model` (the family's own, else {@link UNDECLARED_CACHE_PRICES}). */
export function cachePricesOf(provider: CacheProvider, model: string): CachePrices {
  return providerFamily(provider).cachePrices?.(model) ?? UNDECLARED_CACHE_PRICES
}
