/**
 * A provider family written in test code alone, through dsh-wire's public face: "echo", which counts
 * a token per word, reads a usage shape of its own (`{ in, hit, out }`), and serves whole tens of
 * the shared prefix (rule E1). One module and one registry line (`registerProvider(echoFamily)`).
 */
import { tokenCount, usageRecord, type ProviderFamily } from 'dsh-wire'

declare module 'dsh-wire' {
  interface CacheProviders { echo: true }
  interface UsageShapes { echo: true }
}

/** E1: whole tens of the shared prefix. */
export const ECHO_UNIT = 10

export const echoFamily: ProviderFamily = {
  name: 'echo',
  formats: ['lines'],
  tokenizer: () => Promise.resolve({ name: 'words', count: (text: string) => text.split(/\s+/).filter(Boolean).length }),
  usage: { echo: (raw) => usageRecord(tokenCount(raw.in), tokenCount(raw.hit), null, tokenCount(raw.out)) },
  predict: ({ reusableTokens }) => ({ cachedTokens: Math.floor(reusableTokens / ECHO_UNIT) * ECHO_UNIT, limit: `unit granularity: whole ${ECHO_UNIT}-token tens (E1)` }),
  mismatch: ({ reported, predictedCachedTokens }) => (Math.abs(reported - predictedCachedTokens) < ECHO_UNIT ? 'unit granularity: echo serves whole tens (E1)' : undefined),
  routing: {},
}
