/**
 * How `history` shows an epoch (issue 21, item 6): its mark (the re-anchor chosen, what the summary
 * replaced, what the epoch starts with), both re-anchors' prices as `replay` shows them (a ledger of
 * format 4 keeps both; an older one only the chosen one's price, and the words say so), the cost
 * predicted before it was paid against the cost the provider reported for the epoch's first request
 * (read from the usage recorded with that request's reply, priced as the prediction was), and the
 * sections the compaction took out of the system prompt. The words are `replay`'s. Pure.
 * @module
 */
import { epochLine, reportedCost, type LedgerEpoch, type ParsedLedger, type ReportedEpochCost } from 'dsh-agent'
import { cachePricesOf } from 'dsh-wire'
import { cost, costWords, offerWords } from '../replay-session.js'
import { formatCount, plural } from '../table.js'

/**
 * What the provider reported for an epoch's first request (the one that sends its baseline and the
 * next input): the usage recorded with the first reply after the baseline, priced as the prediction
 * was; `undefined` when that reply carries no usage or has not come yet.
 */
export function epochReported(ledger: ParsedLedger, epoch: LedgerEpoch): ReportedEpochCost | undefined {
  const usage = ledger.entries.slice(epoch.at + epoch.baseline).find((item) => item.source === 'assistant')?.usage
  return usage ? reportedCost(usage, cachePricesOf(epoch.provider, ledger.header.model)) : undefined
}

/** The lines of an epoch, headline first, shown before `request` (the epoch's first request). */
export function epochLines(ledger: ParsedLedger, epoch: LedgerEpoch, request: number): string[] {
  const reported = epochReported(ledger, epoch)
  const price = epoch.predicted
  const headline = `${epochLine({ ...epoch, ...(reported ? { reported } : {}) })} (line ${epoch.line}): the summary replaced ${plural(epoch.summarised, 'entry', 'entries')}; the epoch starts with ${plural(epoch.baseline, 'entry', 'entries')}, sent with request ${formatCount(request)}`
  const prices = epoch.offered === undefined
    ? [`re-anchor ${price.kind}, priced with ${epoch.provider}'s caching rules for ${epoch.format} in token-equivalents: reads ${formatCount(price.cachedTokens)}, writes ${formatCount(price.writtenTokens)} tokens now; +${cost(price.costPerRequest)} per later request (a ledger older than format 4 keeps the chosen re-anchor's price only)`]
    : [
        `re-anchors priced with ${epoch.provider}'s caching rules for ${epoch.format}, in token-equivalents, over ${plural(epoch.horizon ?? 0, 'later request', 'later requests')}:`,
        ...epoch.offered.map((offer) => `  offered ${offerWords(offer, { reanchor: epoch.reanchor, horizon: epoch.horizon ?? 0 })}`),
      ]
  const lines = [headline, ...prices, costWords({ predicted: price, reported: reported ?? null }, 'no usage recorded with the reply to its first request')]
  if (epoch.hidden.length) lines.push(`taken out of the system prompt: ${epoch.hidden.map((item) => JSON.stringify(item.section)).join(', ')}`)
  return lines
}
