/**
 * What the families of self-hosted engines share (llama.cpp, vLLM, SGLang): an engine computes at
 * least the last token of a prompt, so a prompt its cache holds whole reuses all but that token; and
 * vLLM and SGLang reuse only whole blocks or pages of tokens (a unit of 1 for llama.cpp and SGLang's
 * default). The sizes a harness gives a family are checked here, and vLLM's and SGLang's families are
 * one shape (`unitEngineFamily`) with their own words.
 * @module
 */
import { invalidProviderOption } from '../errors.js'
import type { ProviderFamily } from '../provider-family.js'
import { labelled, loadO200k } from '../tokenizers.js'

/** The tokens an engine reuses of a prompt of `requestTokens` that shares `reusableTokens` with its cache: never its last token, in whole `unit`s. */
export function heldPrefixTokens(requestTokens: number, reusableTokens: number, unit = 1): number {
  const most = Math.max(0, Math.min(reusableTokens, requestTokens - 1))
  return Math.floor(most / unit) * unit
}

/** `value` (default `fallback`) as a family's size option, refused with `WIRE_INVALID_PROVIDER_OPTION` unless it is a positive whole number. */
export function tokenUnit(family: string, option: string, value: number | undefined, fallback: number): number {
  const unit = value ?? fallback
  if (!Number.isInteger(unit) || unit < 1) throw invalidProviderOption(family, option, unit)
  return unit
}

/** The counter of an engine whose model's tokenizer is not installed: the o200k estimate, labelled so. */
const servedModelEstimate: ProviderFamily['tokenizer'] = () =>
  loadO200k().then((counter) => labelled(counter, 'estimate (o200k_base; the served model\'s tokenizer is not installed)'))

/** What differs between two engines whose cache reuses whole units of a shared token prefix (vLLM's blocks, SGLang's pages). */
export interface UnitEngine {
  readonly name: string
  readonly formats: readonly string[]
  /** The unit of a hit, in tokens. */
  readonly unit: number
  /** Why the rules serve less than the shared prefix (the report's `limit`). */
  readonly limit: string
  /** Why the reported count is less than a unit off the prediction. */
  readonly granularity: string
  /** Why it is further below. */
  readonly miss: string
  /** Why a usage carries no count. */
  readonly notReported: string
}

/**
 * The family of an engine whose model's tokenizer is not installed and whose cache serves the shared
 * prefix in whole units, never the prompt's last token ({@link heldPrefixTokens}); its OpenAI-shaped
 * usage is read by the format's own reader, and nothing routes a request to the server that holds it.
 */
export function unitEngineFamily(engine: UnitEngine): ProviderFamily {
  const { unit } = engine
  return Object.freeze<ProviderFamily>({
    name: engine.name,
    formats: Object.freeze([...engine.formats]),
    tokenizer: servedModelEstimate,
    usage: Object.freeze({}),
    predict: ({ requestTokens, reusableTokens }) => ({ cachedTokens: heldPrefixTokens(requestTokens, reusableTokens, unit), limit: engine.limit }),
    // A count equal to the prediction never reaches here, so with a unit of one token only a miss is left.
    mismatch: ({ predictedCachedTokens, reported }) => {
      if (Math.abs(reported - predictedCachedTokens) < unit) return engine.granularity
      if (reported < predictedCachedTokens) return engine.miss
      return undefined
    },
    notReported: engine.notReported,
    routing: Object.freeze({}),
  })
}
