/**
 * What the families of self-hosted engines share (llama.cpp, vLLM, SGLang): an engine computes at
 * least the last token of a prompt, so a prompt its cache holds whole reuses all but that token; and
 * vLLM and SGLang reuse only whole blocks or pages of tokens (a unit of 1 for llama.cpp and SGLang's
 * default). The sizes a harness gives a family are checked here, and the engines whose tokenizer is not
 * in the stack share one labelled estimate.
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
export const servedModelEstimate: ProviderFamily['tokenizer'] = () =>
  loadO200k().then((counter) => labelled(counter, 'estimate (o200k_base; the served model\'s tokenizer is not installed)'))
