/**
 * The session parts of the replay page (issue 21, item 6): a mark above each request that opens an
 * epoch (`E1`), is a fork (`F`) or a sub-agent's first request (`S`), or changes the tools (`T`), each
 * explained on hover; and three tables below the breaks: the epochs (the re-anchor chosen, both offers
 * with their prices, predicted against reported cost), the side requests (a fork's parity, a
 * sub-agent's start, what each shares with the latest request) and the tool changes (kind, owner,
 * handling, cost). Every mark and row carries its data as attributes. The words are
 * `replay-session.ts`'s, as the text report's are. Pure: data in, HTML out.
 * @module
 */
import type { ToolChange } from 'dsh-wire'
import { cost, costWords, epochWords, offerWords, sideWords, where, type ReplayEpoch, type ReplayFork } from '../replay-session.js'
import { HANDLING, toolChangeLine } from '../tool-change-lines.js'
import { attributes, count, escapeHtml } from './page.js'

/** What the page shows of a request besides its bytes (all absent on an ordinary request). */
export interface SessionFacts {
  turn: number
  reusableTokens: number
  predictedCachedTokens: number
  /** A side request (a fork's, or `{ kind: 'subagent' }`): drawn hatched and left out of the totals. */
  side?: { kind: string }
  fork?: ReplayFork
  subagent?: { id: string; start: string }
  epoch?: ReplayEpoch
  toolChanges?: readonly ToolChange[]
}

export const SESSION_CSS = `
.mark { display: block; min-width: 16px; padding: 0 2px; border-radius: 3px; font-size: 10px; line-height: 14px; text-align: center; color: #fff; cursor: help; }
.mark.epoch { background: #5b3fa8; }
.mark.fork, .mark.subagent { background: #2f6fb3; }
.mark.tools { background: #7a6a2f; }
.turn.side .seg.reused { background: repeating-linear-gradient(45deg, #3f8f6b 0 4px, #8fc7ad 4px 8px); }
.turn.side .seg.new { background: repeating-linear-gradient(45deg, #e8a33d 0 4px, #f4d29e 4px 8px); }
.turn.epoch-start { border-left: 2px solid #5b3fa8; }
tr.offer-row td:first-child { padding-left: 18px; }
`

/** The marks drawn above a request's bar, in this order: epoch, side request, tool changes. */
export function sessionMarks(turn: SessionFacts): string {
  const marks: string[] = []
  if (turn.epoch) {
    const epoch = turn.epoch
    const text = [`request ${turn.turn}: ${epochWords(epoch)}`, ...epoch.offered.map((price) => `offered ${offerWords(price, epoch)}`), costWords(epoch)].join('\n')
    marks.push(mark(turn.turn, 'epoch', `E${epoch.epoch}`, text, {
      'data-epoch': epoch.epoch, 'data-reanchor': epoch.reanchor, 'data-predicted': epoch.predicted.costNow, 'data-reported': epoch.reported?.costNow ?? undefined,
    }))
  }
  const side = sideWords(turn)
  if (side !== undefined) {
    marks.push(mark(turn.turn, turn.subagent ? 'subagent' : 'fork', turn.subagent ? 'S' : 'F', `request ${turn.turn}: ${side}`, {
      'data-kind': turn.subagent ? 'subagent' : turn.fork!.kind, 'data-start': turn.subagent?.start, 'data-parity': turn.fork ? parityOf(turn.fork) : undefined,
    }))
  }
  if (turn.toolChanges?.length) {
    const text = [`request ${turn.turn}: ${turn.toolChanges.length === 1 ? '1 tool change' : `${turn.toolChanges.length} tool changes`}`, ...turn.toolChanges.map((change) => toolChangeLine(change))].join('\n')
    marks.push(mark(turn.turn, 'tools', 'T', text, { 'data-tools': turn.toolChanges.map((change) => change.tool).join(' ') }))
  }
  return marks.join('')
}

/** `whole`, or the cause where the fork stops repeating the agent's latest request. */
function parityOf(fork: ReplayFork): string {
  return fork.parity === null ? 'whole' : fork.parity.cause
}

function mark(turn: number, kind: string, label: string, text: string, data: Record<string, string | number | undefined>): string {
  return `<span${attributes({ class: `mark ${kind}`, tabindex: 0, 'data-turn': turn, ...data, title: text, 'data-detail': text })}>${escapeHtml(label)}</span>`
}

/** The epochs, side requests and tool changes tables (each only when the replay has some). */
export function sessionTables(turns: readonly SessionFacts[]): string {
  const parts: string[] = []
  const epochs = turns.filter((turn) => turn.epoch)
  if (epochs.length) {
    const rows = epochs.flatMap((turn) => {
      const epoch = turn.epoch!
      const head = `<tr${attributes({
        class: 'epoch-row', 'data-turn': turn.turn, 'data-epoch': epoch.epoch, 'data-reanchor': epoch.reanchor, 'data-predicted': epoch.predicted.costNow,
        'data-reported': epoch.reported?.costNow ?? undefined, 'data-summarised': epoch.summarised, 'data-baseline': epoch.baseline,
      })}><td class="num">${turn.turn}</td><td>${escapeHtml(epochWords(epoch))}</td><td class="num">${cost(epoch.predicted.costNow)}</td><td class="num">${epoch.reported?.costNow == null ? '-' : cost(epoch.reported.costNow)}</td><td>${escapeHtml(costWords(epoch))}</td></tr>`
      const offers = epoch.offered.map((price) => `<tr${attributes({
        class: 'offer-row', 'data-turn': turn.turn, 'data-kind': price.kind, 'data-chosen': price.kind === epoch.reanchor, 'data-available': price.available,
        'data-cost-now': price.costNow, 'data-cost-per-request': price.costPerRequest, 'data-total': price.total,
      })}><td></td><td>offered ${escapeHtml(offerWords(price, epoch))}</td><td class="num">${cost(price.costNow)}</td><td></td><td class="num">+${cost(price.costPerRequest)}/request</td></tr>`)
      return [head, ...offers]
    })
    parts.push(`<h2>Epochs</h2>\n<table id="epochs">\n<thead><tr><th>request</th><th>epoch and re-anchor</th><th>predicted now</th><th>reported now</th><th>cost</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`)
  }
  const sides = turns.filter((turn) => turn.fork || turn.subagent)
  if (sides.length) {
    const rows = sides.map((turn) => `<tr${attributes({
      class: 'side-row', 'data-turn': turn.turn, 'data-kind': turn.subagent ? 'subagent' : turn.fork!.kind, 'data-start': turn.subagent?.start,
      'data-parity': turn.fork ? parityOf(turn.fork) : undefined, 'data-shared': turn.reusableTokens, 'data-predicted': turn.predictedCachedTokens,
    })}><td class="num">${turn.turn}</td><td>${escapeHtml(turn.subagent ? `subagent ${turn.subagent.id}` : `fork ${turn.fork!.kind}`)}</td><td>${escapeHtml(turn.subagent ? `start ${turn.subagent.start}` : turn.fork!.parity === null ? 'repeats the latest request whole' : `${where(turn.fork!.parity)}: ${turn.fork!.parity.cause}`)}</td><td class="num">${count(turn.reusableTokens)}</td><td class="num">${count(turn.predictedCachedTokens)}</td></tr>`)
    parts.push(`<h2>Side requests</h2>\n<p class="sub">Forks and sub-agents' first requests, measured against the agent's latest request and left out of the totals.</p>\n<table id="sides">\n<thead><tr><th>request</th><th>what</th><th>start or parity</th><th>shared tokens</th><th>predicted cached</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`)
  }
  const changed = turns.filter((turn) => turn.toolChanges?.length)
  if (changed.length) {
    const rows = changed.flatMap((turn) => turn.toolChanges!.map((change) => `<tr${attributes({
      class: 'tool-row', 'data-turn': turn.turn, 'data-tool': change.tool, 'data-kind': change.kind, 'data-handling': change.handling, 'data-owner': change.owner ?? undefined,
      'data-breaks': change.breaks, 'data-cost': change.cost,
    })}><td class="num">${turn.turn}</td><td class="mono">${escapeHtml(change.tool)}</td><td>${change.kind}</td><td>${escapeHtml(change.owner ?? '-')}</td><td>${escapeHtml(HANDLING[change.handling] + (change.fallback ? ` (${change.fallback})` : ''))}</td><td class="num">${change.breaks ? count(change.cost) : 'no break'}</td></tr>`))
    parts.push(`<h2>Tool changes</h2>\n<table id="tool-changes">\n<thead><tr><th>request</th><th>tool</th><th>change</th><th>owner</th><th>handling</th><th>tokens no longer read</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`)
  }
  return parts.join('\n')
}
