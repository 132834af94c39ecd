/**
 * The picture of a replayed conversation (`replay --html`): one stacked bar per request, the part that
 * repeats the previous request byte for byte (reusable) under the part that is new, the predicted
 * cached share as a tick, and one mark per cache break, explained on hover (cause, section, owner,
 * layer) and listed in a table below. Every bar and mark carries its data as attributes (`data-turn`,
 * `data-cause`, ...), so what is drawn can be checked against the report. Pure: data in, HTML out.
 * @module
 */
import type { CacheBreak, CacheReport } from 'dsh-wire'
import { attributes, count, escapeHtml, ownerPalette, pageShell } from './page.js'
import { placeOf } from '../replay-session.js'
import { SESSION_CSS, sessionMarks, sessionTables, type SessionFacts } from './replay-session-page.js'

/** A break as the page draws it (a `CacheBreak` of `dsh-wire`, its owner perhaps shown as a row id). */
export type ReplayBreak = Omit<CacheBreak, 'kind'> & { kind: string }

/**
 * One request of the replay: the per-request fields of `dsh-wire`'s `CacheReport` (`requestTokens` may
 * be absent: the bars are then drawn in bytes), and what `replay --json` adds of the session: a side
 * request's fork or sub-agent, the epoch it opens, its tool changes.
 */
export type ReplayTurn = Pick<CacheReport, 'turn' | 'requestBytes' | 'reusableBytes' | 'reusableTokens' | 'predictedCachedTokens' | 'reportedCachedTokens' | 'mismatch'>
  & Omit<SessionFacts, 'turn' | 'reusableTokens' | 'predictedCachedTokens'> & {
    requestTokens?: number
    breaks: readonly ReplayBreak[]
  }

/** What `replay --json` prints, and what the page draws. */
export interface ReplayPageData {
  format: string
  turns: readonly ReplayTurn[]
}

/** How the page is headed: the deployment and the script, for instance. */
export interface ReplayPageOptions {
  title?: string
  subtitle?: string
}

const CSS = `
.chart { display: flex; align-items: flex-end; gap: 3px; height: 320px; padding: 8px 4px 0; border-bottom: 1px solid var(--fg); overflow-x: auto; }
.turn { flex: 1 0 14px; max-width: 46px; height: 100%; display: flex; flex-direction: column; justify-content: flex-end; align-items: stretch; }
.turn .breaks { flex: 1 1 auto; display: flex; flex-direction: column; justify-content: flex-end; align-items: center; gap: 4px; min-height: 0; overflow: hidden; padding-bottom: 5px; }
.break { width: 12px; height: 12px; transform: rotate(45deg); background: var(--c); border: 2px solid #c0262d; cursor: help; }
.turn .stack { flex: none; position: relative; height: calc(var(--f) * (100% - 64px)); min-height: 1px; display: flex; flex-direction: column; }
.seg { display: block; }
.seg.new { flex: var(--new) 1 0; background: #e8a33d; }
.seg.reused { flex: var(--reused) 1 0; background: #3f8f6b; }
.predicted { position: absolute; left: -2px; right: -2px; bottom: var(--p); height: 0; border-top: 2px dashed #1d2330; }
.axis { display: flex; gap: 3px; padding: 2px 4px; color: var(--muted); font-size: 11px; overflow: hidden; }
.axis span { flex: 1 0 14px; max-width: 46px; text-align: center; }
.key li { white-space: nowrap; }
.scale { color: var(--muted); font-size: 11px; margin: 6px 0 -4px; }
.key { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 8px 0; padding: 0; list-style: none; color: var(--muted); }
.key i { display: inline-block; width: 12px; height: 12px; vertical-align: -1px; margin-right: 5px; }
table { border-collapse: collapse; margin-top: 6px; }
th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
`

/** The page of a replay's report. */
export function replayPage(data: ReplayPageData, options: ReplayPageOptions = {}): string {
  const inTokens = data.turns.length > 0 && data.turns.every((turn) => typeof turn.requestTokens === 'number')
  const unit = inTokens ? 'tokens' : 'bytes'
  const sizes = data.turns.map((turn) => {
    const total = inTokens ? turn.requestTokens! : turn.requestBytes
    const reused = Math.min(total, inTokens ? turn.reusableTokens : turn.reusableBytes)
    return { total, reused, fresh: Math.max(0, total - reused) }
  })
  const tallest = Math.max(1, ...sizes.map((size) => size.total))
  const breakCount = data.turns.reduce((sum, turn) => sum + turn.breaks.length, 0)

  const palette = ownerPalette(data.turns.flatMap((turn) => turn.breaks.flatMap((item) => (item.owner === null ? [] : [item.owner]))))
  const bars = data.turns.map((turn, index) => turnHtml(turn, sizes[index], tallest, unit, palette)).join('\n')
  const axis = data.turns.map((turn) => `<span>${turn.turn}</span>`).join('')
  const rows = data.turns.flatMap((turn) => turn.breaks.map((item) => `<tr class="break-row"${attributes({ 'data-turn': turn.turn })}><td class="num">${turn.turn}</td><td>${escapeHtml(item.cause)}</td><td class="mono">${escapeHtml(placeOf(item))}</td><td>${escapeHtml(item.owner ?? '-')}</td><td>${escapeHtml(item.layer ?? '-')}</td></tr>`)).join('\n')

  // Side requests (forks, sub-agents) are drawn, but left out of the shares, as the text report leaves them out of its total.
  const own = data.turns.flatMap((turn, index) => turn.side ? [] : [{ turn, size: sizes[index] }])
  const sides = data.turns.length - own.length
  const epochs = data.turns.filter((turn) => turn.epoch).length
  const requested = own.reduce((sum, { size }) => sum + size.total, 0)
  const reusable = own.reduce((sum, { size }) => sum + size.reused, 0)
  const predicted = own.reduce((sum, { turn }) => sum + turn.predictedCachedTokens, 0)
  const requestTokens = own.reduce((sum, { turn }) => sum + (turn.requestTokens ?? 0), 0)
  const session = [sides ? `${count(sides)} side ${sides === 1 ? 'request' : 'requests'} (left out of the shares)` : '', epochs ? `${count(epochs)} ${epochs === 1 ? 'epoch' : 'epochs'}` : ''].filter(Boolean)
  const share = (part: number, whole: number) => whole ? `${((part / whole) * 100).toFixed(1)}%` : '-'

  const body = `<header>
<h1>${escapeHtml(options.title ?? 'Replay: reusable and new per request')}</h1>
${options.subtitle ? `<p class="sub">${escapeHtml(options.subtitle)}</p>` : ''}
<p class="sub" id="summary"${attributes({ 'data-format': data.format, 'data-turns': data.turns.length, 'data-breaks': breakCount, 'data-unit': unit, 'data-sides': sides, 'data-epochs': epochs })}>Format <code>${escapeHtml(data.format)}</code>: ${count(data.turns.length)} ${data.turns.length === 1 ? 'request' : 'requests'}, ${count(breakCount)} ${breakCount === 1 ? 'break' : 'breaks'}${session.length ? `, ${session.join(', ')}` : ''}; reusable ${share(reusable, requested)} of ${count(requested)} ${unit}${inTokens ? `, predicted cached ${share(predicted, requestTokens)}` : ''}.</p>
</header>
<ul class="key"><li><i style="background:#3f8f6b"></i>reusable (same bytes as the previous request)</li><li><i style="background:#e8a33d"></i>new</li>${inTokens ? '<li><i style="border-top:2px dashed #1d2330;height:0"></i>predicted cached</li>' : ''}<li><i style="background:#ccc;border:2px solid #c0262d;transform:rotate(45deg);width:10px;height:10px"></i>a cache break (filled with its owner's colour)</li>${sides || epochs || data.turns.some((turn) => turn.toolChanges?.length) ? '<li><i style="background:#5b3fa8"></i>E: an epoch opens (a compaction\'s re-anchor)</li><li><i style="background:#2f6fb3"></i>F, S: a fork, a sub-agent (hatched bar)</li><li><i style="background:#7a6a2f"></i>T: the tools changed</li>' : ''}</ul>
<p class="scale">tallest bar: ${count(tallest)} ${unit}</p>
<div class="chart" aria-label="one stacked bar per request, height in ${unit}">
${bars}
</div>
<div class="axis" aria-hidden="true">${axis}</div>
<p class="sub">Request number; bar height in ${unit}${inTokens ? '' : ' (the report carries no request token counts)'}.</p>
<h2>Breaks</h2>
${rows ? `<table>\n<thead><tr><th>request</th><th>cause</th><th>where</th><th>owner</th><th>layer</th></tr></thead>\n<tbody>\n${rows}\n</tbody>\n</table>` : '<p class="muted">No break: every request extends the previous one byte for byte.</p>'}
${sessionTables(data.turns)}
`
  return pageShell({ title: options.title ?? `dsh-prompt replay (${data.format})`, body, css: CSS + SESSION_CSS })
}

function turnHtml(turn: ReplayTurn, size: { total: number; reused: number; fresh: number }, tallest: number, unit: string, palette: ReadonlyMap<string, string>): string {
  const fraction = (size.total / tallest).toFixed(4)
  const predicted = unit === 'tokens' && size.total ? `${((Math.min(turn.predictedCachedTokens, size.total) / size.total) * 100).toFixed(2)}%` : undefined
  const lines = [
    `request ${turn.turn}: ${count(size.total)} ${unit} (${count(turn.requestBytes)} bytes)`,
    `reusable ${count(size.reused)} ${unit} (${count(turn.reusableBytes)} bytes, ${count(turn.reusableTokens)} tokens), new ${count(size.fresh)} ${unit}`,
    `predicted cached ${count(turn.predictedCachedTokens)} tokens`,
  ]
  if (turn.reportedCachedTokens !== undefined) lines.push(`reported cached ${turn.reportedCachedTokens === null ? 'not reported' : `${count(turn.reportedCachedTokens)} tokens`}${turn.mismatch ? `: ${turn.mismatch}` : ''}`)
  for (const item of turn.breaks) lines.push(`break: ${item.cause}`)
  const side = turn.subagent ? `subagent ${turn.subagent.id} (start ${turn.subagent.start})` : turn.side ? `fork ${turn.side.kind}` : undefined
  if (side) lines.push(`side request: ${side}, left out of the shares`)
  if (turn.epoch) lines.push(`opens epoch ${turn.epoch.epoch} (${turn.epoch.reanchor})`)
  if (turn.toolChanges?.length) lines.push(`tool changes: ${turn.toolChanges.map((change) => `${change.tool} ${change.kind}`).join(', ')}`)
  const marks = turn.breaks.map((item) => {
    const text = [
      `request ${turn.turn}: ${item.cause}`,
      `at ${placeOf(item)}${item.message === null ? '' : ` (message ${item.message})`}`,
      `owner ${item.owner ?? 'unknown'}, layer ${item.layer ?? 'unknown'}`,
    ].join('\n')
    return `<span${attributes({
      class: 'break', tabindex: 0, 'data-turn': turn.turn, 'data-cause': item.cause, 'data-kind': item.kind, 'data-section': item.section ?? undefined,
      'data-owner': item.owner ?? undefined, 'data-layer': item.layer ?? undefined, 'data-message': item.message ?? undefined,
      title: text, 'data-detail': text, style: `--c:${(item.owner !== null && palette.get(item.owner)) || '#cccccc'}`,
    })}></span>`
  }).join('')
  const attrs = attributes({
    class: ['turn', turn.side ? 'side' : '', turn.epoch ? 'epoch-start' : ''].filter(Boolean).join(' '), tabindex: 0, 'data-turn': turn.turn, 'data-unit': unit, 'data-total': size.total, 'data-reusable': size.reused, 'data-new': size.fresh,
    'data-predicted': turn.predictedCachedTokens, 'data-breaks': turn.breaks.length, 'data-side': turn.side?.kind, 'data-epoch': turn.epoch?.epoch, title: lines.join('\n'), 'data-detail': lines.join('\n'),
  })
  return `<div${attrs}><div class="breaks">${sessionMarks(turn)}${marks}</div><div class="stack" style="--f:${fraction}"><span class="seg new" style="--new:${size.fresh}"></span><span class="seg reused" style="--reused:${size.reused}"></span>${predicted ? `<span class="predicted" style="--p:${predicted}"></span>` : ''}</div></div>`
}
