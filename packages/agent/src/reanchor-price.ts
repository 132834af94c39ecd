/**
 * The price of a re-anchor (R-EPOCH-2), before anything is paid: the new epoch's first request is
 * measured against the agent's latest request by the family's caching rules (what it reads from the
 * cache, what it writes), and priced with the family's cache multiples (`cachePrices`). Pure.
 * @module
 */
import type { CachePrices, CacheReport } from 'dsh-wire'
import type { Epoch, ReanchorKind, ReanchorPolicy, ReanchorPrice, ReportedEpochCost } from './epoch.js'
import type { Usage } from 'dsh-wire'

/** How many later requests of an epoch `cheapest` weighs by default when it compares the re-anchors. */
export const DEFAULT_REANCHOR_HORIZON = 10

/** Rounds a token-equivalent cost to two decimals (the figures are estimates; the ledger keeps them short). */
function cents(value: number): number {
  return Math.round(value * 100) / 100
}

/** The price of the re-anchor `kind` whose first request measured as `report`, under `prices`, weighed over `horizon` later requests. */
export function reanchorPrice(kind: ReanchorKind, available: boolean, report: Pick<CacheReport, 'requestTokens' | 'predictedCachedTokens'>, prices: CachePrices, horizon: number): ReanchorPrice {
  const requestTokens = report.requestTokens
  const cachedTokens = Math.min(report.predictedCachedTokens, requestTokens)
  const writtenTokens = requestTokens - cachedTokens
  const costNow = cents(cachedTokens * prices.read + writtenTokens * prices.write)
  const costPerRequest = cents(requestTokens * prices.read)
  return { kind, available, requestTokens, cachedTokens, writtenTokens, costNow, costPerRequest, total: cents(costNow + horizon * costPerRequest) }
}

/** The re-anchor `policy` picks among `offered` (available ones only; `cheapest`: the lowest total, the first listed on a tie). */
export function pickReanchor(policy: ReanchorPolicy, offered: readonly ReanchorPrice[]): ReanchorKind {
  const available = offered.filter((price) => price.available)
  if (policy !== 'cheapest' && available.some((price) => price.kind === policy)) return policy
  let best = available[0] ?? offered[offered.length - 1]
  for (const price of available) if (price.total < best.total) best = price
  return best.kind
}

/** What the provider reported for an epoch's first request, priced as the prediction was. */
export function reportedCost(usage: Usage, prices: CachePrices): ReportedEpochCost {
  const { inputTokens, cachedReadTokens } = usage
  const costNow = inputTokens === null || cachedReadTokens === null ? null : cents(cachedReadTokens * prices.read + (inputTokens - cachedReadTokens) * prices.write)
  return { inputTokens, cachedTokens: cachedReadTokens, costNow }
}

/** The words of an epoch for a log or a CLI row: `epoch 2: stable-opening, predicted 1,234.5 now (+120.3/request), reported 1,198.2`. */
export function epochLine(epoch: Pick<Epoch, 'epoch' | 'reanchor' | 'predicted' | 'reported'>): string {
  const figure = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 2 })
  const reported = epoch.reported?.costNow == null ? '' : `, reported ${figure(epoch.reported.costNow)}`
  return `epoch ${epoch.epoch}: ${epoch.reanchor}, predicted ${figure(epoch.predicted.costNow)} now (+${figure(epoch.predicted.costPerRequest)}/request)${reported}`
}
