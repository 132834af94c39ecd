/**
 * What a replay shows of a whole session besides the bytes of each request (issue 21, item 6): the
 * epoch a compaction opens (its re-anchor, both offers and their prices, the cost predicted before it
 * was paid and the cost the provider reported), a fork's parity with the agent's latest request, a
 * sub-agent's start and what it shares with its parent, and the tool changes. The data types of
 * `replay --json`, and the words the text report and the page both print, so the three outputs carry
 * the same facts in the same words. Pure and Cordis-free.
 * @module
 */
import type { Epoch, ReanchorKind, ReanchorPrice, ReportedEpochCost } from 'dsh-agent'
import type { CacheBreak, CacheProvider, WireFormat } from 'dsh-wire'
import { formatCount as count, plural } from './table.js'

/** The epoch a request opens (the first request after a `compact:` turn), as `replay --json` shows it. */
export interface ReplayEpoch {
  /** 1 for the first compaction, then 2, ... */
  epoch: number
  /** The re-anchor the agent's policy chose. */
  reanchor: ReanchorKind
  /** The format and caching rules the re-anchors were priced with. */
  format: WireFormat
  provider: CacheProvider
  /** How many entries of the closed epoch the summary replaced, and how many the new epoch starts with. */
  summarised: number
  baseline: number
  /** The later requests the offers' totals weigh. */
  horizon: number
  /** Both re-anchors as planned, in token-equivalents (multiples of one uncached input token). */
  offered: ReanchorPrice[]
  /** The chosen re-anchor's price, before anything was paid. */
  predicted: ReanchorPrice
  /** What the provider reported for this request, priced as the prediction was; `null` when no usage was recorded (a replay without a provider sends nothing). */
  reported: ReportedEpochCost | null
  /** The sections the compaction took out of the system prompt (summarised or dropped), by name. */
  hidden: string[]
}

/** A fork's request (`fork:` in the script): its kind, and where it stops repeating the agent's latest request (`null`: it repeats it whole). */
export interface ReplayFork {
  kind: string
  parity: CacheBreak | null
}

/** The facts of `epoch` as the replay shows them (`reported` as it stands when called). */
export function replayEpoch(epoch: Epoch): ReplayEpoch {
  return {
    epoch: epoch.epoch, reanchor: epoch.reanchor, format: epoch.format, provider: epoch.provider, summarised: epoch.summarised, baseline: epoch.baseline,
    horizon: epoch.horizon, offered: epoch.offered.map((price) => ({ ...price })), predicted: { ...epoch.predicted },
    reported: epoch.reported ? { ...epoch.reported } : null, hidden: epoch.hidden.map((item) => item.section),
  }
}

/** A token-equivalent cost, at most two decimals. */
export const cost = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 2 })

/** One offered re-anchor in words: `stable-opening: 1,470.4 now (reads 2,041, writes 1,237 tokens), +325.6/request, 4,726.4 over 10 (chosen)`. */
export function offerWords(price: ReanchorPrice, epoch: Pick<ReplayEpoch, 'reanchor' | 'horizon'>): string {
  const facts = `${cost(price.costNow)} now (reads ${count(price.cachedTokens)}, writes ${count(price.writtenTokens)} tokens), +${cost(price.costPerRequest)}/request, ${cost(price.total)} over ${count(epoch.horizon)}`
  const mark = price.kind === epoch.reanchor ? ' (chosen)' : price.available ? '' : ' (not available under promptChange replace)'
  return `${price.kind}: ${facts}${mark}`
}

/**
 * The predicted cost against the reported one: `predicted 1,470.4 now, reported 1,402.1 (...)`, or
 * `..., reported: ` and why there is none (`missing`: the replay's words by default).
 */
export function costWords(epoch: Pick<ReplayEpoch, 'predicted' | 'reported'>, missing = 'no usage recorded (the replay sends no request)'): string {
  const predicted = `predicted ${cost(epoch.predicted.costNow)} now`
  if (epoch.reported === null) return `${predicted}, reported: ${missing}`
  if (epoch.reported.costNow === null) return `${predicted}, reported: the usage lacks input or cached tokens`
  return `${predicted}, reported ${cost(epoch.reported.costNow)} (${count(epoch.reported.cachedTokens!)} of ${count(epoch.reported.inputTokens!)} input tokens cached)`
}

/** The epoch's headline: `epoch 1: stable-opening, the summary replaced 51 entries, the epoch starts with 14 entries; takes "notes:old" out of the system prompt (deepseek prices, token-equivalents)`. */
export function epochWords(epoch: ReplayEpoch): string {
  const hidden = epoch.hidden.length ? `; takes ${epoch.hidden.map((name) => JSON.stringify(name)).join(', ')} out of the system prompt` : ''
  return `epoch ${epoch.epoch}: ${epoch.reanchor}, the summary replaced ${plural(epoch.summarised, 'entry', 'entries')}, the epoch starts with ${plural(epoch.baseline, 'entry', 'entries')}${hidden} (${epoch.provider} prices, token-equivalents)`
}

/** A side request in words: a fork's parity, or a sub-agent's start, with what it shares with the latest request. */
export function sideWords(turn: { fork?: ReplayFork; subagent?: { id: string; start: string }; reusableTokens: number; predictedCachedTokens: number }): string | undefined {
  const credited = `${count(turn.predictedCachedTokens)} predicted cached`
  if (turn.subagent) return `subagent ${turn.subagent.id} (start ${turn.subagent.start}): shares ${count(turn.reusableTokens)} tokens with the parent's latest request, ${credited}`
  if (!turn.fork) return undefined
  const parity = turn.fork.parity === null ? 'repeats the agent\'s latest request whole' : `stops repeating the agent's latest request at ${where(turn.fork.parity)}: ${turn.fork.parity.cause}`
  return `fork ${turn.fork.kind}: ${parity}; shares ${count(turn.reusableTokens)} tokens with it, ${credited}`
}

/** Where a break falls, in words: `section "persona"`, `tool "bash"`, `the model`, `message 3`. */
export function placeOf(item: Pick<CacheBreak, 'section' | 'message'> & { kind: string }): string {
  if (item.section !== null) return `${item.kind} ${JSON.stringify(item.section)}`
  if (item.kind === 'model') return 'the model'
  return item.message === null ? item.kind : `message ${item.message}`
}

/** {@link placeOf} with the owner: `section "persona" (owner x)`. */
export function where(item: CacheBreak): string {
  return item.owner === null ? placeOf(item) : `${placeOf(item)} (owner ${item.owner})`
}
