/**
 * One usage record for every provider (`normalizeUsage(shape, usage)`, in `providers/registry.ts`).
 * Each figure is a count of tokens, or `null` when the provider did not report it (never an invented
 * 0). `inputTokens` is every input token of the request, cached or not, in every shape. Each provider
 * family's module reads its own shapes with the helpers below.
 * @module
 */
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

/**
 * The usage shapes `normalizeUsage` reads, by name. A module that registers a provider family with
 * another shape adds its name here (`declare module 'dsh-wire' { interface UsageShapes { 'my-shape': true } }`).
 */
export interface UsageShapes {
  'openai-chat': true
  'openai-responses': true
  anthropic: true
  deepseek: true
  gemini: true
  openrouter: true
  moonshot: true
  qwen: true
}

/** A usage shape `normalizeUsage` reads. */
export type UsageFormat = keyof UsageShapes

/** Whether `value` is a normalised usage record (four keys, each a non-negative count or `null`). */
export function isUsage(value: unknown): value is Usage {
  if (typeof value !== 'object' || value === null) return false
  const keys: (keyof Usage)[] = ['inputTokens', 'cachedReadTokens', 'cacheWriteTokens', 'outputTokens']
  return keys.every((key) => {
    const figure = (value as Record<string, unknown>)[key]
    return figure === null || (typeof figure === 'number' && Number.isFinite(figure) && figure >= 0)
  })
}

/** The usage record of four figures. */
export function usageRecord(inputTokens: number | null, cachedReadTokens: number | null, cacheWriteTokens: number | null, outputTokens: number | null): Usage {
  return { inputTokens, cachedReadTokens, cacheWriteTokens, outputTokens }
}

/** A reported count: a finite non-negative number, else `null`. */
export function tokenCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null
}

/** A nested usage object, or an empty one when absent. */
export function usageObject(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}
