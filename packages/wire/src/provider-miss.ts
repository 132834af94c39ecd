/**
 * The providers' own word on a cache miss, joined with dsh's (issue 23, item 2). With the diagnostics
 * bridge on, each request names the previous reply of its format (Anthropic `diagnostics:
 * { previous_message_id }`, OpenAI Responses `prompt_cache_options: { comparison_response_id }`), the
 * provider compares the two requests, and the reply carries its reason (Anthropic
 * `diagnostics.cache_miss_reason`, OpenAI `prompt_cache_diagnostics`). The reply readers read it into a
 * `ProviderMiss` (`replies/`); `joinMiss` sets it beside dsh's own break (the first diverging byte,
 * its section and owner) and says whether they agree. Pure and Cordis-free.
 *
 * Sources (read 2026-12-01): Anthropic "Cache diagnostics",
 * platform.claude.com/docs/en/build-with-claude/cache-diagnostics, and the `CacheMissReason` types of
 * `@anthropic-ai/sdk` 1.14; OpenAI "Prompt cache diagnostics",
 * developers.openai.com/api/docs/guides/prompt-caching/diagnostics (the `cache_miss` object's `reason`
 * values are not listed there: dsh classes the reason's words, see `responsesMiss`).
 * @module
 */

/** What the join reads of a reuse report (`CacheReport`, named by shape: the report's module imports this one's types). */
export interface MissReport {
  readonly breaks: readonly { readonly kind: string; readonly message: number | null }[]
  readonly limit?: string
}

/** What part of the request the provider says changed, or that it did not say. */
export type ProviderMissClass = 'model' | 'system' | 'tools' | 'messages' | 'hit' | 'pending' | 'unknown'

/** The provider's diagnosis of one request, as its reply gave it. */
export interface ProviderMiss {
  /** The provider's own word (`tools_changed`, `previous_message_not_found`, a Responses `reason`, `cache_hit`, `pending`). */
  reason: string
  /** What it says changed. */
  class: ProviderMissClass
  /** The input tokens the provider says it would have read from cache, when it says. */
  missedTokens?: number
}

/** The provider's diagnosis beside dsh's break: whether they agree, or how a miss on an unbroken prefix is classed. */
export interface ProviderMissJoin extends ProviderMiss {
  /**
   * `agrees` (both name the same part, or neither saw a change), `disagrees`, a provider miss on a
   * prefix dsh saw unbroken classed as `expiry` (the gap passed the cache lifetime), `below-minimum`
   * (the shared prefix is under the provider's minimum) or `unexplained`; `pending` and `unknown` when
   * the provider gave no reason (still comparing; no record of the previous request; unavailable).
   */
  verdict: 'agrees' | 'disagrees' | 'expiry' | 'below-minimum' | 'unexplained' | 'pending' | 'unknown'
  /** The part dsh's own break names (`model`, `system`, `tools`, `messages`), or `null` when the prefix did not break. */
  dsh: 'model' | 'system' | 'tools' | 'messages' | null
}

/** The Anthropic reasons, by class (the SDK's `CacheMissReason` union). */
const ANTHROPIC_CLASSES: Readonly<Record<string, ProviderMissClass>> = {
  model_changed: 'model', system_changed: 'system', tools_changed: 'tools', messages_changed: 'messages',
  previous_message_not_found: 'unknown', unavailable: 'unknown',
}

/**
 * Reads an Anthropic Message's `diagnostics`. Absent or `null`: none was asked for, or (when `asked`)
 * the comparison found no divergence, a `hit`.
 */
export function anthropicMiss(diagnostics: unknown, asked = false): ProviderMiss | undefined {
  if (typeof diagnostics !== 'object' || diagnostics === null) return asked ? { reason: 'no divergence', class: 'hit' } : undefined
  const reason = (diagnostics as { cache_miss_reason?: unknown }).cache_miss_reason
  // `null`: the comparison had not finished when the reply was written.
  if (reason === null || reason === undefined) return { reason: 'pending', class: 'pending' }
  if (typeof reason !== 'object') return { reason: String(reason), class: 'unknown' }
  const { type, cache_missed_input_tokens: missed } = reason as { type?: unknown; cache_missed_input_tokens?: unknown }
  const word = typeof type === 'string' ? type : 'unknown'
  return { reason: word, class: ANTHROPIC_CLASSES[word] ?? 'unknown', ...(typeof missed === 'number' ? { missedTokens: missed } : {}) }
}

/**
 * Reads a Response's `prompt_cache_diagnostics`: `cache_hit`, `cache_miss` with a `reason` and
 * `cache_missed_tokens`, `comparison_response_not_found`, `unavailable`. The reason's words name the
 * part (model, tools, instructions or system, input or messages); a reason naming none is `unknown`.
 */
export function responsesMiss(diagnostics: unknown): ProviderMiss | undefined {
  if (typeof diagnostics !== 'object' || diagnostics === null) return undefined
  const { type, reason, cache_missed_tokens: missed } = diagnostics as { type?: unknown; reason?: unknown; cache_missed_tokens?: unknown }
  if (type === 'cache_hit') return { reason: 'cache_hit', class: 'hit' }
  if (type !== 'cache_miss') return { reason: typeof type === 'string' ? type : 'unknown', class: 'unknown' }
  const word = typeof reason === 'string' ? reason : 'cache_miss'
  const named: ProviderMissClass = /model|service_tier/.test(word) ? 'model' : /tool/.test(word) ? 'tools' : /instruction|system|developer/.test(word) ? 'system'
    : /input|message|prefix|conversation/.test(word) ? 'messages' : 'unknown'
  return { reason: word, class: named, ...(typeof missed === 'number' ? { missedTokens: missed } : {}) }
}

/** The part of the request a break of dsh's report names. */
export function breakPart(report: Pick<MissReport, 'breaks'>): ProviderMissJoin['dsh'] {
  const found = report.breaks[0]
  if (found === undefined) return null
  if (found.kind === 'model') return 'model'
  if (found.kind === 'tool') return 'tools'
  return found.message === null ? 'system' : 'messages'
}

/**
 * `miss` beside `report`'s break. `sincePrevious`: milliseconds since the previous request; `lifetime`:
 * the cache lifetime the request relied on (Anthropic's 5 minutes unless its breakpoints chose 1 hour).
 */
export function joinMiss(miss: ProviderMiss, report: MissReport, facts: { sincePrevious?: number; lifetime?: number } = {}): ProviderMissJoin {
  const dsh = breakPart(report)
  const join = (verdict: ProviderMissJoin['verdict']): ProviderMissJoin => ({ ...miss, verdict, dsh })
  if (miss.class === 'pending') return join('pending')
  if (miss.class === 'unknown') return join('unknown')
  if (miss.class === 'hit') return join(dsh === null ? 'agrees' : 'disagrees')
  if (dsh !== null) return join(dsh === miss.class ? 'agrees' : 'disagrees')
  // The provider missed where dsh saw the whole prefix unchanged: classed apart.
  if (facts.sincePrevious !== undefined && facts.lifetime !== undefined && facts.sincePrevious > facts.lifetime) return join('expiry')
  if (report.limit?.includes('below the minimum')) return join('below-minimum')
  return join('unexplained')
}
