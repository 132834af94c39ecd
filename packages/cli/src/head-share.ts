/**
 * How much of an agent's input budget the system prompt and tools take before any conversation: the
 * budget line of `explain`, and the warning `check` and `explain` give when that share is above
 * {@link HEAD_SHARE_LIMIT}. The budget is the agent's model profile (`agent.profile`: the bundled
 * table's row, the conservative default, or the deployment's override); tokens are counted with the
 * CLI's o200k tokenizer, exact for OpenAI's models and an estimate for the others.
 * @module
 */
import { profileFigures, type Agent, type ProfileFigures } from 'dsh-agent'
import { headOverBudget } from './errors.js'
import { formatCount, formatShare } from './table.js'
import type { Tokenizer } from './tokens.js'

/**
 * The share of the input budget the system prompt and tools may take before `check` and `explain` warn:
 * a quarter. Past it, every request pays for them before the conversation starts, and compaction
 * (which shrinks the conversation, never them) wins back less and less.
 */
export const HEAD_SHARE_LIMIT = 0.25

/** The head of one agent's request measured against its profile (`explain --json`'s `budget`). */
export interface HeadShare extends ProfileFigures {
  /** Tokens of the system prompt and of the tools' JSON together. */
  headTokens: number
  /** `headTokens / budget`, to four decimals. */
  share: number
  /** The share above which `check` and `explain` warn. */
  limit: number
  /** Whether the count is exact: the CLI's tokenizer (o200k_base) is the model's own (`profile.encoding`). */
  exact: boolean
  /** The provider document behind the profile's figures (`null` for the default). */
  source: string | null
}

/** The head share of `agent`'s request whose system prompt is `system` and tools are `tools` (as sent). */
export function headShare(agent: Agent, system: string, tools: readonly unknown[], tokenizer: Tokenizer): HeadShare {
  const profile = agent.profile
  const figures = profileFigures(profile)
  const headTokens = tokenizer.count(system) + (tools.length ? tokenizer.count(JSON.stringify(tools)) : 0)
  return {
    ...figures, headTokens, share: Math.round((headTokens / figures.budget) * 10_000) / 10_000, limit: HEAD_SHARE_LIMIT,
    exact: profile.encoding !== null && profile.encoding === tokenizer.encoding, source: profile.source,
  }
}

/** The coded warning when the head takes more than the limit, else `undefined`. */
export function headWarning(agent: Agent, share: HeadShare): ReturnType<typeof headOverBudget> | undefined {
  return share.share > share.limit ? headOverBudget(agent.id, share) : undefined
}

/** The budget line `explain` prints. */
export function headLine(share: HeadShare): string {
  const origin = share.origin === 'default' ? 'the conservative default for a model the table does not know' : share.origin === 'deployment' ? 'overridden by the deployment' : 'from the bundled table'
  return `Budget: profile ${share.profile} (${origin}): window ${formatCount(share.window)}, input cap ${formatCount(share.inputCap)}, output reserve ${formatCount(share.outputReserve)}; `
    + `system prompt + tools ${formatCount(share.headTokens)} tokens${share.exact ? '' : ' (estimated)'} = ${formatShare(share.share)} of the ${formatCount(share.budget)}-token input budget (warning above ${formatShare(share.limit)})`
}
