/**
 * The Anthropic family: no published tokenizer for current models (a quarter of the characters,
 * labelled so), the Messages usage shape, and `cache_control` caching (prompt-caching guide,
 * platform.claude.com/docs/en/build-with-claude/prompt-caching, read 2026-12-01):
 *   A1. only a prefix that ends at a `cache_control` breakpoint of an earlier request is cached;
 *   A2. a breakpoint of this request finds an earlier entry only within 20 blocks before it (lookback);
 *   A3. a prefix below the model's minimum cacheable length is never cached (`minimumTokens`);
 *   A4. an entry lives for its TTL (5 minutes, or 1 hour) after it was last written or read;
 *   A5. the entry must lie wholly inside the prefix this request shares byte for byte.
 * Usage: `input_tokens` counts only the tokens after the last breakpoint, so the total adds
 * `cache_read_input_tokens` and `cache_creation_input_tokens`.
 * @module
 */
import { LOOKBACK_BLOCKS } from '../breakpoints.js'
import { minimumTokens } from '../cache-minimums.js'
import { markerCachedTokens, TTL_MS, type AnthropicPrediction, type MarkerCacheInput, type MarkerCacheRules } from '../caching-rules.js'
import type { ProviderFamily } from '../provider-family.js'
import type { SystemMessageTable } from '../prompt-updates.js'
import type { ToolAppendPath } from '../tool-append.js'
import { CHARACTERS_ESTIMATE } from '../tokenizers.js'
import { tokenCount, usageRecord } from '../usage.js'

/**
 * The models that take a mid-conversation `{ role: "system" }` message (A6): "Mid-conversation system
 * messages and tool changes", platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages
 * (read 2026-12-01; no beta header; not Claude Sonnet 5, which takes only the top-level `system`). A
 * system message there applies from that point on and leaves the cached prefix before it intact.
 */
export const ANTHROPIC_SYSTEM_MESSAGES: SystemMessageTable = Object.freeze({
  checked: '2026-12-01',
  source: 'platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages',
  models: Object.freeze([
    'claude-opus-4-8', 'claude-opus-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-fable-5', 'claude-mythos-5',
  ]),
  excluded: Object.freeze(['claude-sonnet-5']),
})

/**
 * The append path for a tool added mid-conversation (R-TOOL-13): "Mid-conversation tool changes",
 * platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages#mid-conversation-tool-changes
 * and "#define-tools-in-a-message-beta" (read 2026-12-02). A `role: "system"` message of `tool_addition`
 * blocks, each defining a tool by value (`tool: { type: "tool_definition", definition }`), offers the
 * tool from that point on; "The `tools` array and every earlier message stay exactly as sent, so the
 * prompt cache still hits and only the appended message is processed as new input." Beta: the Claude
 * API's `inline-tools-2026-09-15` header (the by-reference header `mid-conversation-tool-changes-2026-07-01`
 * of Bedrock and Google Cloud does not cover a definition by value); on the models that take
 * mid-conversation system messages (the table above). With no non-deferred tool in `tools`, the first
 * tool defined by value moves the start of the prompt (one full miss), so the path needs a declared tool.
 * Placement: after a user turn, last or before an assistant turn (the agent appends it after its note).
 */
export const ANTHROPIC_TOOL_APPEND: ToolAppendPath = Object.freeze({
  name: 'a system message of tool_addition blocks',
  source: 'platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages#define-tools-in-a-message-beta',
  header: Object.freeze({ name: 'anthropic-beta', value: 'inline-tools-2026-09-15' }),
  systemMessage: true,
  needsDeclaredTool: true,
})

/** The lookback in blocks (A2). */
export const ANTHROPIC_LOOKBACK = LOOKBACK_BLOCKS

const RULES: MarkerCacheRules = Object.freeze({ lookback: ANTHROPIC_LOOKBACK, ids: Object.freeze({ marker: 'A1', lookback: 'A2', minimum: 'A3', ttl: 'A4', prefix: 'A5' }) })

/**
 * The tokens this request reads from the entries earlier requests left, given the points it marks, the
 * bytes it shares with the previous request, the model's minimum and the time (A1–A5); also the
 * entries left afterwards, for the next request.
 */
export function anthropicCachedTokens(input: MarkerCacheInput): AnthropicPrediction {
  return markerCachedTokens(input, RULES)
}

/** Anthropic's cache prices (5-minute writes). */
const ANTHROPIC_PRICES = Object.freeze({ write: 1.25, read: 0.1, source: 'Anthropic pricing: 5-minute cache write 1.25x, cache read 0.1x the base input price' })

export const anthropic: ProviderFamily = Object.freeze<ProviderFamily>({
  name: 'anthropic',
  formats: Object.freeze(['anthropic']),
  tokenizer: () => Promise.resolve(CHARACTERS_ESTIMATE),
  usage: Object.freeze({
    anthropic: (raw: Readonly<Record<string, unknown>>) => {
      const read = tokenCount(raw.cache_read_input_tokens)
      const write = tokenCount(raw.cache_creation_input_tokens)
      const uncached = tokenCount(raw.input_tokens)
      return usageRecord(uncached === null ? null : uncached + (read ?? 0) + (write ?? 0), read, write, tokenCount(raw.output_tokens))
    },
  }),
  predict: ({ model, entries, points, reusableBytes, now, headBlocks }) => {
    const prediction = anthropicCachedTokens({ entries, points, reusableBytes, minimum: minimumTokens(model), now, headBlocks })
    return { cachedTokens: prediction.cachedTokens, entries: prediction.entries, limit: prediction.limit ?? 'the cache ends at the last breakpoint inside the shared prefix (A1)' }
  },
  mismatch: ({ predictedCachedTokens, reported, sincePrevious }) => {
    if (reported < predictedCachedTokens && sincePrevious !== undefined && sincePrevious > TTL_MS['5m']) return 'TTL elapsed: the entry expired between the requests'
    if (Math.abs(reported - predictedCachedTokens) <= Math.max(64, predictedCachedTokens * 0.15)) return 'token counts are estimates: Anthropic publishes no tokenizer'
    return undefined
  },
  routing: Object.freeze({}),
  // Pricing (platform.claude.com/docs/en/about-claude/pricing, prompt-caching section, read 2026-12-01):
  // a 5-minute cache write costs 1.25x the base input price, a read 0.1x (a 1-hour write costs 2x; dsh
  // plans 5-minute breakpoints unless told otherwise, so the 5-minute price is the one used).
  cachePrices: () => ANTHROPIC_PRICES,
})
