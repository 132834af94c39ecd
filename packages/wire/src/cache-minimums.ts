/**
 * The minimum cacheable prompt length of Anthropic models, by model family (a model-name prefix).
 * A breakpoint whose prefix is shorter is not cached (no error, both cache counters stay 0), so the
 * planner places none there. Sources (read 2026-12-01): Anthropic's prompt-caching guide
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching), its table as quoted in
 * anthropics/anthropic-sdk-python#1194 (4096 Opus 4.6 / 4.5 and Haiku 4.5; 1024 Sonnet 4.6 / 4.5,
 * Opus 4.1 / 4, Sonnet 4, Sonnet 3.7; 2048 Haiku 3.5 / 3), and LiteLLM's prompt-caching page for the
 * newer families (512 Opus 5; 1024 Sonnet 5, Opus 4.8; 2048 Opus 4.7). Override per request with
 * `minTokens` or `minimums` when Anthropic changes them.
 * @module
 */

/** Minimum cacheable tokens by model-name prefix; the longest matching prefix wins. */
export const CACHE_MINIMUMS: Readonly<Record<string, number>> = Object.freeze({
  'claude-opus-5': 512,
  'claude-sonnet-5': 1024,
  'claude-opus-4-8': 1024,
  'claude-opus-4-7': 2048,
  'claude-opus-4-6': 4096,
  'claude-opus-4-5': 4096,
  'claude-opus-4-1': 1024,
  'claude-opus-4': 1024,
  'claude-sonnet-4': 1024,
  'claude-haiku-4-5': 4096,
  'claude-3-7-sonnet': 1024,
  'claude-3-5-sonnet': 1024,
  'claude-3-opus': 1024,
  'claude-3-5-haiku': 2048,
  'claude-3-haiku': 2048,
})

/** The minimum for a model not in the table (the most common published figure). */
export const DEFAULT_CACHE_MINIMUM = 1024

/** The minimum cacheable tokens for `model`: the longest matching prefix of `overrides`, then the table. */
export function minimumTokens(model: string, overrides: Readonly<Record<string, number>> = {}): number {
  const table = { ...CACHE_MINIMUMS, ...overrides }
  let best: string | undefined
  for (const prefix of Object.keys(table)) if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix
  return best === undefined ? DEFAULT_CACHE_MINIMUM : table[best]
}
