/**
 * Context budgets: each request's size against the agent's model profile, and a compaction advice
 * (`none`, `soon`, `now`) with hysteresis, so a harness that compacts when told does not flap.
 *
 * The fill is the request's tokens over the profile's input budget (`inputBudget`: the input cap, or
 * the window less the output reserve when smaller). The advice rises when the fill reaches a threshold
 * and falls only when the fill drops below a lower one: inside a band it keeps what it was.
 * {@link nextAdvice} is the whole state machine, pure; {@link BudgetTracker} keeps its state per agent.
 * @module
 */
import { inputBudget, modelProfile, type ModelProfile, type ModelProfileOverride } from 'dsh-wire'

/** What the harness is advised to do about the conversation's length. */
export type CompactionAdvice = 'none' | 'soon' | 'now'

/** The advice's thresholds, as shares of the input budget (0..1). */
export interface AdviceThresholds {
  /** `none` becomes `soon` at this fill. */
  soon: number
  /** Anything becomes `now` at this fill. */
  now: number
  /** `soon` (or `now`) falls to `none` only below this fill. */
  clearSoon: number
  /** `now` falls to `soon` only below this fill. */
  clearNow: number
}

/**
 * The default thresholds: `soon` at 70% of the input budget, `now` at 85%; each falls back only 10
 * points lower (below 60%, below 75%), so a conversation that grows and shrinks by less than a tenth of
 * the budget keeps its advice.
 */
export const ADVICE_THRESHOLDS: Readonly<AdviceThresholds> = Object.freeze({ soon: 0.7, now: 0.85, clearSoon: 0.6, clearNow: 0.75 })

const LEVEL: Readonly<Record<CompactionAdvice, number>> = { none: 0, soon: 1, now: 2 }
const ADVICE: readonly CompactionAdvice[] = ['none', 'soon', 'now']

/**
 * The advice after a request whose fill is `fill`, given the advice before it: the level the fill
 * reaches (`soon`, `now` thresholds) or the level the previous advice keeps (it holds while the fill
 * stays at or above its clear threshold), whichever is higher. Non-decreasing in `fill` for any
 * previous advice.
 */
export function nextAdvice(previous: CompactionAdvice, fill: number, thresholds: AdviceThresholds = ADVICE_THRESHOLDS): CompactionAdvice {
  const reached = fill >= thresholds.now ? 2 : fill >= thresholds.soon ? 1 : 0
  const before = LEVEL[previous]
  const held = before >= 2 && fill >= thresholds.clearNow ? 2 : before >= 1 && fill >= thresholds.clearSoon ? 1 : 0
  return ADVICE[Math.max(reached, held)]
}

/** A profile's figures as a budget reports them (a step's `budget`, `explain`'s budget line). */
export interface ProfileFigures {
  /** The profile's name: its table row (`deepseek-chat`, `gpt-4.1*`) or `default` for an unknown model. */
  profile: string
  /** `table`, `default` (conservative figures for an unknown model) or `deployment` (overridden). */
  origin: ModelProfile['origin']
  /** The profile's context window, input cap and output reserve, in tokens. */
  window: number
  inputCap: number
  outputReserve: number
  /** The input the request may take: the input cap, or the window less the output reserve when smaller. */
  budget: number
}

/** The {@link ProfileFigures} of `profile`. */
export function profileFigures(profile: ModelProfile): ProfileFigures {
  return { profile: profile.name, origin: profile.origin, window: profile.contextWindow, inputCap: profile.inputCap, outputReserve: profile.outputReserve, budget: inputBudget(profile) }
}

/** One request's size against the agent's profile (the step result's and the `agent/step` event's `budget`). */
export interface ContextBudget extends ProfileFigures {
  /** The request's tokens, as the step's reuse report counted them (`report.requestTokens`). */
  requestTokens: number
  /** `requestTokens / budget`, to four decimals (above 1: the request does not fit). */
  fill: number
  /** What the harness is advised to do: `none`, compact `soon`, or compact `now`. */
  advice: CompactionAdvice
  /** Whether `requestTokens` is an exact count: it was made with the tokenizer that is exact for the model (`profile.encoding`). */
  exact: boolean
}

/** One agent's budget: its resolved profile and the advice of its last request. */
export class BudgetTracker {
  private advice: CompactionAdvice = 'none'
  /** The profile's figures, made once: every budget repeats them. */
  private readonly figures: ProfileFigures

  constructor(readonly profile: ModelProfile, private readonly thresholds: AdviceThresholds = ADVICE_THRESHOLDS) {
    this.figures = profileFigures(profile)
  }

  /** A tracker for `model` with the deployment's `override` laid over its table row. */
  static of(model: string, override?: ModelProfileOverride): BudgetTracker {
    return new BudgetTracker(modelProfile(model, override))
  }

  /**
   * The budget of a request of `requestTokens` counted by the tokenizer named `tokenizer` (the report's
   * `tokenizer`: exact when it is the model's own encoding); moves the advice. Called once per step,
   * after the step can no longer fail.
   */
  measure(requestTokens: number, tokenizer: string): ContextBudget {
    return this.budget(requestTokens, tokenizer, this.advice = nextAdvice(this.advice, requestTokens / this.figures.budget, this.thresholds))
  }

  /** The budget of a side request (a fork's): the advice is what it would be, and it does not move. */
  measureSide(requestTokens: number, tokenizer: string): ContextBudget {
    return this.budget(requestTokens, tokenizer, nextAdvice(this.advice, requestTokens / this.figures.budget, this.thresholds))
  }

  private budget(requestTokens: number, tokenizer: string, advice: CompactionAdvice): ContextBudget {
    const { profile, figures } = this
    const fill = Math.round((requestTokens / figures.budget) * 10_000) / 10_000
    // Written out, not spread: one literal shape, built at every step.
    return {
      profile: figures.profile, origin: figures.origin, window: figures.window, inputCap: figures.inputCap, outputReserve: figures.outputReserve, budget: figures.budget,
      requestTokens, fill, advice, exact: profile.encoding !== null && profile.encoding === tokenizer,
    }
  }
}
