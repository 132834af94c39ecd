/**
 * The text report of `dsh-prompt replay` (R-CLI-7): a header, one table row per request, then each
 * break, the side requests (a fork's parity, a sub-agent's start and what it shares), the epochs (the
 * re-anchor chosen, both offers priced, predicted and reported cost), the tool changes, the requests
 * served less than their shared prefix, and the total. The words of the session facts are
 * `replay-session.ts`'s, as the page's are.
 * @module
 */
import { terminalSafe } from 'dsh-loader'
import type { Output } from '../output.js'
import { costWords, epochWords, offerWords, sideWords } from '../replay-session.js'
import { formatCount, plural, renderTable } from '../table.js'
import { toolChangeLine } from '../tool-change-lines.js'
import type { ReplayResult } from './replay-result.js'

/** The text report: a header, one table row per request, then each break on a line of its own. */
export function printReplay(output: Output, result: ReplayResult): void {
  const c = output.colors
  output.line(c.bold(`# ${terminalSafe(result.file)}: agent ${terminalSafe(JSON.stringify(result.agent))}, ${result.format}, promptChange ${result.policy}; script ${terminalSafe(result.script)}: ${plural(result.turns.length, 'request')}`))
  output.line()
  const columns = [
    { header: 'turn', align: 'right' as const }, { header: 'requestBytes', align: 'right' as const }, { header: 'reusableBytes', align: 'right' as const },
    { header: 'reusableTokens', align: 'right' as const }, { header: 'predictedCachedTokens', align: 'right' as const }, { header: 'cached', align: 'right' as const },
    { header: 'breaks', align: 'right' as const }, { header: 'before this request' },
  ]
  const rows = result.turns.map((t) => [
    String(t.turn), formatCount(t.requestBytes), formatCount(t.reusableBytes), formatCount(t.reusableTokens), formatCount(t.predictedCachedTokens),
    share(t.predictedCachedTokens, t.requestTokens), String(t.breaks.length), [...t.subagent ? [`subagent ${t.subagent.id} (${t.subagent.start})`] : t.side ? [`fork ${t.side.kind}`] : [], ...t.changes].join('; '),
  ])
  output.line(renderTable(columns, rows, { header: c.bold }))
  const broken = result.turns.filter((t) => t.breaks.length)
  output.line()
  output.line(c.bold(broken.length ? `breaks: ${plural(broken.length, 'request')} of ${formatCount(result.turns.length)}` : 'breaks: none (every request extends the previous one)'))
  for (const t of broken) {
    for (const b of t.breaks) {
      const where = [b.section !== null ? `${b.kind} ${JSON.stringify(b.section)}` : b.kind, b.message !== null ? `message ${b.message}` : '', b.owner ? `owner ${b.owner}` : '', b.layer ? `layer ${b.layer}` : '']
      output.line(`  turn ${t.turn}: ${terminalSafe(b.cause)} (${terminalSafe(where.filter(Boolean).join(', '))})`)
    }
  }
  const sides = result.turns.filter((t) => t.fork || t.subagent)
  if (sides.length) {
    output.line()
    output.line(c.bold(`side requests: ${plural(sides.length, 'request')} (left out of the total)`))
    for (const t of sides) output.line(`  turn ${t.turn}: ${terminalSafe(sideWords(t)!)}`)
  }
  const epochs = result.turns.filter((t) => t.epoch)
  if (epochs.length) {
    output.line()
    output.line(c.bold(`epochs: ${plural(epochs.length, 'compaction')}`))
    for (const t of epochs) {
      const epoch = t.epoch!
      output.line(`  turn ${t.turn}: ${terminalSafe(epochWords(epoch))}`)
      for (const price of epoch.offered) output.line(`    offered ${offerWords(price, epoch)}`)
      output.line(`    ${costWords(epoch)}`)
    }
  }
  const changed = result.turns.filter((t) => t.toolChanges?.length)
  if (changed.length) {
    output.line()
    output.line(c.bold(`tool changes: ${plural(changed.length, 'request')}`))
    for (const t of changed) for (const change of t.toolChanges!) output.line(`  turn ${t.turn}: ${terminalSafe(toolChangeLine(change))}`)
  }
  // A prefix that did not break can still miss the cache (a TTL ran out, a minimum): each such request with its rule.
  const missed = result.turns.filter((t) => t.limit !== undefined && !t.breaks.length && t.predictedCachedTokens < t.reusableTokens * 0.9)
  if (missed.length) {
    output.line()
    output.line(c.bold(`served less than the shared prefix: ${plural(missed.length, 'request')}`))
    for (const t of missed) output.line(`  turn ${t.turn}: ${formatCount(t.predictedCachedTokens)} of ${formatCount(t.reusableTokens)} shared tokens: ${terminalSafe(t.limit!)}`)
  }
  // Side requests (forks, sub-agents) are listed but left out of the conversation's totals.
  const own = result.turns.filter((t) => !t.side)
  const requestTokens = own.reduce((sum, t) => sum + t.requestTokens, 0)
  const cached = own.reduce((sum, t) => sum + t.predictedCachedTokens, 0)
  output.line()
  output.line(`predicted cached: ${formatCount(cached)} of ${formatCount(requestTokens)} request tokens (${share(cached, requestTokens)}), ${result.turns[0]?.provider ?? 'no'} caching rules, tokens by ${result.turns[0]?.tokenizer ?? '(none)'}`)
}

/** `part` of `whole` as a whole percentage (`-` when `whole` is 0). */
function share(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : '-'
}
