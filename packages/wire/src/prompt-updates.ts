/**
 * How a new system-prompt version enters a conversation under `promptChange: append` (R-WIRE-3):
 * natively, as a system message at the point it was recorded (`system-message`), or as a user-role
 * message that starts with `SYSTEM_PROMPT_UPDATE_MARKER` (`marker`), for an API that takes no system
 * message after the conversation has started. Either way every earlier byte of the request stays as it
 * was, so the cached prefix holds. Each format says which it uses (`WireFormatModule.promptUpdates`):
 * always one, or per model from a dated capability table in its provider's module, which a deployment
 * overrides by model-name prefix (`promptUpdates:` of an agent). Pure and Cordis-free.
 * @module
 */
/** How a mid-conversation prompt version is lowered. */
export type PromptUpdateLowering = 'system-message' | 'marker'

/** The lowerings, for config schemas and checks. */
export const PROMPT_UPDATE_LOWERINGS: readonly PromptUpdateLowering[] = Object.freeze(['system-message', 'marker'])

/**
 * A provider's dated table of the models that take a mid-conversation system message: model-name
 * prefixes (the longest matching prefix of `models` and a deployment's overrides wins), the date it
 * was checked and the document it follows.
 */
export interface SystemMessageTable {
  readonly checked: string
  readonly source: string
  /** Model-name prefixes that take mid-conversation system messages. */
  readonly models: readonly string[]
  /** Prefixes that do not (a listed family's model that is excluded), checked the same way. */
  readonly excluded?: readonly string[]
}

/** A format's capability: one lowering for every model, or a provider's table. */
export type PromptUpdateCapability = PromptUpdateLowering | SystemMessageTable

/** A deployment's overrides of the tables: model-name prefix → lowering. */
export type PromptUpdateOverrides = Readonly<Record<string, PromptUpdateLowering>>

/**
 * The lowering `module` uses for `model`: its fixed one, or its table's answer for the longest matching
 * prefix among the table's rows and `overrides` (an override wins a tie; no match: `marker`, the one
 * every provider takes). Overrides change a table only: a format that has one lowering keeps it.
 */
export function promptUpdateLowering(module: { readonly promptUpdates?: PromptUpdateCapability }, model: string, overrides: PromptUpdateOverrides = {}): PromptUpdateLowering {
  const capability = module.promptUpdates ?? 'marker'
  if (typeof capability === 'string') return capability
  let best: { length: number; lowering: PromptUpdateLowering } = { length: -1, lowering: 'marker' }
  const consider = (prefix: string, lowering: PromptUpdateLowering, wins: boolean) => {
    if (model.startsWith(prefix) && (prefix.length > best.length || (wins && prefix.length === best.length))) best = { length: prefix.length, lowering }
  }
  for (const prefix of capability.models) consider(prefix, 'system-message', false)
  for (const prefix of capability.excluded ?? []) consider(prefix, 'marker', false)
  for (const [prefix, lowering] of Object.entries(overrides)) consider(prefix, lowering, true)
  return best.lowering
}
