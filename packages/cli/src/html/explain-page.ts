/**
 * The picture of one assembly (`explain --html`): one band per section, runtime context and tool, in
 * the request's order, coloured by owner (with a legend) and sized by tokens, each marked with its
 * layer, what it shadows and what a `system-prompt/assemble` listener did to it. Every band carries
 * its data as attributes (`data-kind`, `data-name`, `data-owner`, `data-layer`, `data-tokens`, ...), so
 * what is drawn can be checked against the explanation. Pure: data in, one HTML string out.
 * @module
 */
import type { DroppedText, ExplainedText, ExplainedTool, Explanation } from '../explanation.js'
import type { StreamRow } from '../stream.js'
import { attributes, count, escapeHtml, ownerPalette, pageShell } from './page.js'

/** A part of the request in a provider's hash order: the tools, the system prompt, the messages. */
export type StreamPart = 'tools' | 'system' | 'messages'

/** What the explain page shows. */
export interface ExplainPageInput {
  /** The deployment file, as the CLI shows it. */
  file: string
  /** The target in one phrase (`agent "main" (model deepseek-chat, ...)`). */
  target: string
  /** The wire format whose order the groups follow. */
  format: string
  /** The order the format hashes the parts of a request in: the groups are drawn in this order. */
  order: readonly StreamPart[]
  explanation: Explanation
  /** With `--format`: the request's cache stream, part by part, with byte offsets. */
  stream?: readonly StreamRow[]
  /** An agent's budget line and, above the threshold, its warning (`head-share.ts`). */
  budget?: { line: string; warning?: string }
}

/** One band: a section, a runtime context or a tool. */
interface Band {
  kind: 'section' | 'context' | 'tool'
  name: string
  owner: string
  layer: string
  bytes: number
  tokens: number
  position: number
  order?: ExplainedText['order']
  shadows: readonly string[]
  changedBy: string | null
  dynamic: boolean
}

const GROUP_TITLES: Readonly<Record<StreamPart, string>> = { system: 'System prompt', messages: 'Runtime context', tools: 'Tools' }

const CSS = `
.strip { display: flex; height: 34px; border: 1px solid var(--line); border-radius: 5px; overflow: hidden; margin: 10px 0 4px; }
.strip .seg { display: block; flex: var(--g) 1 0; min-width: 2px; background: var(--c); border-right: 1px solid rgb(255 255 255 / 0.7); }
.strip .gap { flex: 0 0 6px; background: var(--bg); }
.group h2 .muted, .muted { color: var(--muted); font-weight: normal; }
ol.bands { list-style: none; margin: 0; padding: 0; }
.band { display: grid; grid-template-columns: 2.2em minmax(12em, 22em) 1fr 5.5em; align-items: center; gap: 0 10px; padding: 3px 4px; border-radius: 4px; }
.band:hover, .band:focus { background: var(--panel); }
.band .pos { color: var(--muted); text-align: right; }
.band .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.band .track { display: block; position: relative; height: 18px; }
.band .bar { display: block; height: 100%; width: var(--w); min-width: 2px; background: var(--c); border-radius: 3px; }
.band .tok { text-align: right; font-variant-numeric: tabular-nums; }
.band .marks { grid-column: 2 / 5; display: flex; flex-wrap: wrap; gap: 4px; }
.band .marks:empty { display: none; }
.mark { font-size: 11.5px; padding: 0 6px; border-radius: 9px; border: 1px solid var(--line); background: #fff; color: var(--muted); }
.mark.layer { border-color: #7c5cc4; color: #5a3fa3; }
.mark.shadow { border-color: #b58a16; color: #7d5e08; }
.mark.listener { border-color: #c2453c; color: #9f2c24; }
.mark.dynamic { border-style: dashed; }
ul.dropped { margin: 6px 0 0; padding-left: 18px; color: var(--muted); }
.legend-item .tok { color: var(--muted); }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 2px 12px 2px 0; border-bottom: 1px solid var(--line); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
`

/** The page of `input`. */
export function explainPage(input: ExplainPageInput): string {
  const x = input.explanation
  const groups: Array<{ part: StreamPart; bands: Band[]; dropped: readonly DroppedText[]; note: string }> = input.order.map((part) => {
    if (part === 'system') return { part, bands: x.sections.map((s) => textBand('section', s)), dropped: x.droppedSections, note: systemNote(x) }
    if (part === 'messages') return { part, bands: x.contexts.map((c) => textBand('context', c)), dropped: x.droppedContexts, note: contextNote(x) }
    return { part, bands: x.tools.map(toolBand), dropped: [], note: `${count(x.tools.length)} tools, ${count(x.totals.tools.bytes)} bytes of JSON, ${count(x.totals.tools.tokens)} tokens` }
  })
  const bands = groups.flatMap((group) => group.bands)
  const widest = Math.max(1, ...bands.map((band) => band.tokens))

  const owners = new Map<string, number>()
  for (const band of bands) owners.set(band.owner, (owners.get(band.owner) ?? 0) + band.tokens)
  const palette = ownerPalette(owners.keys())
  const colorOf = (owner: string) => palette.get(owner)!
  const legend = [...owners].map(([owner, tokens]) =>
    `<li class="legend-item"${attributes({ 'data-owner': owner, 'data-color': colorOf(owner), style: `--c:${colorOf(owner)}` })}><span class="swatch"></span>${escapeHtml(owner)} <span class="tok">${count(tokens)} tokens</span></li>`).join('\n')

  const strip = groups.filter((group) => group.bands.length).map((group) => group.bands.map((band) =>
    `<span class="seg"${attributes({ 'data-for': `${band.kind}:${band.name}`, 'data-detail': detail(band), style: `--g:${Math.max(band.tokens, 1)};--c:${colorOf(band.owner)}` })}></span>`).join('')).join('<span class="gap"></span>')

  const body = `<header>
<h1>What the model gets: ${escapeHtml(input.file)}</h1>
<p class="sub">${escapeHtml(input.target)}</p>
<p class="sub">Request order for <code>${escapeHtml(input.format)}</code>: ${input.order.map((part) => escapeHtml(GROUP_TITLES[part].toLowerCase())).join(' → ')}. Sized by tokens (${escapeHtml(x.encoding)}), coloured by owner.</p>
<p class="sub" id="total"${attributes({ 'data-tokens': x.totals.all.tokens, 'data-bytes': x.totals.all.bytes })}>Request total: ${count(x.totals.all.bytes)} bytes, ${count(x.totals.all.tokens)} tokens in system prompt + runtime context + tools.</p>
${input.budget ? `<p class="sub" id="budget">${escapeHtml(input.budget.line)}</p>${input.budget.warning ? `\n<p class="sub" id="budget-warning"><strong>warning:</strong> ${escapeHtml(input.budget.warning)}</p>` : ''}` : ''}
</header>
<div class="strip" aria-label="the whole request, sized by tokens">${strip}</div>
<h2>Owners</h2>
<ul class="legend">
${legend}
</ul>
${groups.map((group) => groupHtml(group, widest, colorOf)).join('\n')}
${input.stream ? streamHtml(input.format, input.stream) : ''}
`
  return pageShell({ title: `dsh-prompt explain ${input.file}`, body, css: CSS })
}

function streamHtml(format: string, rows: readonly StreamRow[]): string {
  const body = rows.map((row) => `<tr class="stream-part"${attributes({ 'data-kind': row.kind, 'data-name': row.name, 'data-start': row.start, 'data-bytes': row.bytes })}><td class="num">${row.position}</td><td>${escapeHtml(row.kind)}</td><td class="mono">${escapeHtml(row.name)}</td><td>${escapeHtml(row.owner ?? '-')}</td><td class="num">${count(row.start)}</td><td class="num">${count(row.bytes)}</td></tr>`).join('\n')
  return `<section class="stream">
<h2>Cache stream <span class="muted">${escapeHtml(format)}: the parts in the order the provider hashes them; a change in a part re-sends every byte from its start</span></h2>
<table>
<thead><tr><th>#</th><th>part</th><th>name</th><th>owner</th><th>start</th><th>bytes</th></tr></thead>
<tbody>
${body}
</tbody>
</table>
</section>`
}

function textBand(kind: 'section' | 'context', t: ExplainedText): Band {
  return { kind, name: t.name, owner: t.owner, layer: t.layer, bytes: t.bytes, tokens: t.tokens, position: t.position, order: t.order, shadows: t.shadows, changedBy: t.changedBy, dynamic: t.dynamic }
}

function toolBand(t: ExplainedTool): Band {
  return { kind: 'tool', name: t.name, owner: t.owner, layer: t.layer, bytes: t.bytes, tokens: t.tokens, position: t.position, shadows: [], changedBy: null, dynamic: false }
}

function systemNote(x: Explanation): string {
  return `${count(x.sections.length)} sections, ${count(x.totals.system.bytes)} bytes, ${count(x.totals.system.tokens)} tokens`
}

function contextNote(x: Explanation): string {
  const state = x.runtimeContext === 'on' ? 'on: a user message at the tail of the request' : x.runtimeContext
  return `${state}; ${count(x.contexts.length)} contexts, ${count(x.totals.snapshot.bytes)} bytes, ${count(x.totals.snapshot.tokens)} tokens`
}

function groupHtml(group: { part: StreamPart; bands: Band[]; dropped: readonly DroppedText[]; note: string }, widest: number, colorOf: (owner: string) => string): string {
  const items = group.bands.map((band) => bandHtml(band, widest, colorOf(band.owner))).join('\n')
  const dropped = group.dropped.map((d) => `<li class="dropped-item"${attributes({ 'data-name': d.name, 'data-owner': d.owner, 'data-layer': d.layer, 'data-reason': d.reason, 'data-by': d.by })}>${escapeHtml(d.name)} (${escapeHtml(d.owner)}, ${escapeHtml(d.layer)}): ${escapeHtml(droppedWhy(d))}</li>`).join('\n')
  return `<section class="group"${attributes({ 'data-group': group.part })}>
<h2>${escapeHtml(GROUP_TITLES[group.part])} <span class="muted">${escapeHtml(group.note)}</span></h2>
${group.bands.length ? `<ol class="bands">\n${items}\n</ol>` : `<p class="muted">${group.part === 'tools' ? 'No tool is visible: the request carries no tools field.' : group.part === 'system' ? 'No section renders text: the request carries no system message.' : 'No runtime-context message.'}</p>`}
${dropped ? `<ul class="dropped">\n${dropped}\n</ul>` : ''}
</section>`
}

function droppedWhy(d: DroppedText): string {
  if (d.reason === 'removed') return `removed by ${d.by ?? 'a listener'}`
  if (d.reason === 'tool hidden') return 'dropped: its tool is hidden from this agent'
  if (d.reason === 'complete') return 'left out by the complete section'
  return 'dropped as empty after interpolation'
}

function bandHtml(band: Band, widest: number, color: string): string {
  const marks: string[] = []
  if (band.layer !== 'global') marks.push(`<span class="mark layer">layer ${escapeHtml(band.layer)}</span>`)
  for (const shadowed of band.shadows) marks.push(`<span class="mark shadow">shadows ${escapeHtml(shadowed)}</span>`)
  if (band.changedBy) marks.push(`<span class="mark listener">${escapeHtml(band.changedBy)}</span>`)
  if (band.dynamic) marks.push('<span class="mark dynamic">computed at each assembly</span>')
  const width = `${((band.tokens / widest) * 100).toFixed(2)}%`
  const attrs = attributes({
    class: 'band',
    tabindex: 0,
    'data-kind': band.kind,
    'data-name': band.name,
    [`data-${band.kind}`]: band.name,
    'data-owner': band.owner,
    'data-layer': band.layer,
    'data-tokens': band.tokens,
    'data-bytes': band.bytes,
    'data-position': band.position,
    'data-order': band.order === undefined ? undefined : band.order === null ? '-' : band.order,
    'data-shadows': band.shadows.length ? band.shadows.join('; ') : undefined,
    'data-changed-by': band.changedBy ?? undefined,
    'data-color': color,
    title: detail(band),
    'data-detail': detail(band),
    style: `--c:${color};--w:${width}`,
  })
  return `<li${attrs}><span class="pos">${band.position}</span><span class="name mono">${escapeHtml(band.name)}</span><span class="track"><span class="bar"></span></span><span class="tok">${count(band.tokens)}</span><span class="marks">${marks.join('')}</span></li>`
}

/** A band's details in lines: what it is, where it comes from, what it costs, what happened to it. */
function detail(band: Band): string {
  const lines = [
    `${band.kind} ${JSON.stringify(band.name)} (#${band.position}${band.order === undefined ? '' : `, order ${band.order ?? '-'}`})`,
    `owner ${band.owner}, layer ${band.layer}`,
    `${count(band.tokens)} tokens, ${count(band.bytes)} bytes`,
  ]
  if (band.shadows.length) lines.push(`shadows ${band.shadows.join('; ')}`)
  if (band.changedBy) lines.push(band.changedBy)
  if (band.dynamic) lines.push('text computed at each assembly')
  return lines.join('\n')
}
