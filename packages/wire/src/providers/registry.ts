/**
 * The provider families, in one table: each is a module (`ProviderFamily`), registered by name. The
 * built-in families are registered here; a harness or a test adds its own with `registerProvider`,
 * which returns the disposer that takes it out again. Module-wide like the format table: one name is
 * one family in the process (a second registration is refused), until its disposer runs. Everything
 * asked of "a provider" by name goes through here: its token counter, its usage shapes, the family a
 * format's request follows, and the words of a mismatch.
 * @module
 */
import type { CacheProvider } from '../cache-report.js'
import { duplicateProvider, invalidUsage, unknownProvider } from '../errors.js'
import { wireFormat, type WireFormat } from '../format.js'
import type { MismatchQuestion, ProviderFamily, UsageReader } from '../provider-family.js'
import type { TokenCounter } from '../tokenizers.js'
import type { Usage, UsageFormat } from '../usage.js'
import { anthropic } from './anthropic.js'
import { deepseek } from './deepseek.js'
import { gemini } from './gemini.js'
import { moonshot } from './moonshot.js'
import { openai } from './openai.js'
import { qwen } from './qwen.js'
import { sglang } from './sglang.js'
import { vllm } from './vllm.js'
import { xai } from './xai.js'

const table = new Map<string, ProviderFamily>()

/** Adds `family` to the table; returns the disposer that removes it. Throws `WIRE_DUPLICATE_PROVIDER` for a name already there. */
export function registerProvider(family: ProviderFamily): () => void {
  if (table.has(family.name)) throw duplicateProvider(family.name)
  table.set(family.name, family)
  return () => {
    if (table.get(family.name) === family) table.delete(family.name)
  }
}

for (const family of [openai, anthropic, deepseek, gemini, xai, moonshot, qwen, vllm, sglang]) table.set(family.name, family)

/** The built-in provider families' names. */
export const PROVIDER_FAMILIES = Object.freeze([...table.keys()]) as readonly CacheProvider[]

/** Every registered family's name, built-in ones first. */
export function providerNames(): CacheProvider[] {
  return [...table.keys()] as CacheProvider[]
}

/** Whether `name` is a registered family. */
export function isProvider(name: unknown): name is CacheProvider {
  return typeof name === 'string' && table.has(name)
}

/** The family `name`. Throws `WIRE_UNKNOWN_PROVIDER` for a name not registered. */
export function providerFamily(name: CacheProvider): ProviderFamily {
  const family = typeof name === 'string' ? table.get(name) : undefined
  if (family === undefined) throw unknownProvider(name, providerNames())
  return family
}

/** The token counter of `provider`'s family (loaded on first use). */
export function tokenCounter(provider: CacheProvider): Promise<TokenCounter> {
  return providerFamily(provider).tokenizer()
}

/**
 * The caching rules a request of `format` follows: `wanted` when given, else the agent's provider
 * when it names a family that speaks the format, else the format's own family.
 */
export function cacheProviderFor(format: WireFormat, wanted: CacheProvider | undefined, agentProvider: string | undefined): CacheProvider {
  if (wanted !== undefined) return wanted
  const named = agentProvider?.toLowerCase()
  const family = named === undefined ? undefined : table.get(named)
  return (family !== undefined && family.formats.includes(format) ? family.name : wireFormat(format).provider) as CacheProvider
}

/**
 * The usage shape of a reply to a request of `format` for an agent whose provider is `agentProvider`
 * (what `agent.record(reply, { usage })` reads a usage object as when no format is named): the format
 * itself when the family reads it, else the family's first shape (`deepseek` for `openai-chat`).
 */
export function usageShapeFor(format: WireFormat, agentProvider: string | undefined): UsageFormat {
  const shapes = Object.keys(providerFamily(cacheProviderFor(format, undefined, agentProvider)).usage)
  return (shapes.includes(format) ? format : shapes[0] ?? format) as UsageFormat
}

function readers(): Map<string, UsageReader> {
  const all = new Map<string, UsageReader>()
  for (const family of table.values()) for (const [shape, reader] of Object.entries(family.usage)) if (!all.has(shape)) all.set(shape, reader)
  return all
}

/** Every usage shape `normalizeUsage` reads, family by family. */
export function usageShapes(): UsageFormat[] {
  return [...readers().keys()] as UsageFormat[]
}

/** The normalised usage of a provider's usage object (`completion.usage`, `message.usage`, `response.usageMetadata`) of `shape`. */
export function normalizeUsage(shape: UsageFormat, usage: unknown): Usage {
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) throw invalidUsage(shape, 'expected a usage object')
  const all = readers()
  const reader = typeof shape === 'string' ? all.get(shape) : undefined
  if (reader === undefined) throw invalidUsage(String(shape), `unknown usage format; known formats: ${[...all.keys()].join(', ')}`)
  return reader(usage as Record<string, unknown>)
}

/**
 * Why the reported cached tokens differ from the prediction, or `undefined` when they agree: not
 * reported at all, the family's own reason, else an eviction or a misrouted request (in the words of
 * the family's routing), or an earlier request outside this agent.
 */
export function mismatchReason(provider: CacheProvider, reported: number | null, question: Omit<MismatchQuestion, 'reported'>): string | undefined {
  // A family taken out of the table since the request was measured still gets the general words.
  if (reported === null) return table.get(provider)?.notReported ?? 'not reported: the usage carries no cached-token figure'
  if (reported === question.predictedCachedTokens) return undefined
  const family = providerFamily(provider)
  const own = family.mismatch({ ...question, reported })
  if (own !== undefined) return own
  return reported < question.predictedCachedTokens
    ? family.routing.ignored
      ? 'cache miss: the entry was evicted (this provider ignores routing keys)'
      : 'cache miss: the entry was evicted, or the request reached a machine without it (keep a stable prompt_cache_key or conversation id)'
    : 'more than predicted: an earlier request outside this agent (a retry, another conversation) cached the prefix'
}
