/**
 * What every page of the CLI shares: HTML escaping, a stable colour per owner, the page shell (one
 * self-contained document whose Content-Security-Policy forbids every request: no network, no external
 * asset, no font) and writing a page to a file. Pure except {@link writePage}.
 * @module
 */
import { writeFileSync } from 'node:fs'
import { htmlNotWritten } from '../errors.js'

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '\n': '&#10;', '\r': '&#13;' }

/**
 * `text` safe inside an element or a quoted attribute: `& < > " '` as entities, line breaks as
 * character references (so a `title` keeps them), other control characters as visible `\u` escapes.
 */
export function escapeHtml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[&<>"'\n\r]/g, (c) => ESCAPES[c])
}

/** ` name="value"` for each entry whose value is not `undefined`, every value escaped. */
export function attributes(entries: Readonly<Record<string, string | number | boolean | null | undefined>>): string {
  return Object.entries(entries)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${escapeHtml(String(value))}"`)
    .join('')
}

/** The FNV-1a hash of `text`'s UTF-8 bytes. */
function hash32(text: string): number {
  let hash = 0x811c9dc5
  for (const byte of Buffer.from(text, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  return hash
}

/** Hues closer than this are hard to tell apart in a band or a legend swatch. */
const MIN_HUE_GAP = 28

/**
 * A colour per owner: each starts from the hue of its name's hash (so a plugin keeps its colour from
 * run to run), and one that would sit too close to a hue already given (owners taken in name order)
 * moves on by the golden angle until it is clear of them. The same owners always get the same colours.
 */
export function ownerPalette(owners: Iterable<string>): Map<string, string> {
  const taken: number[] = []
  const palette = new Map<string, string>()
  for (const owner of [...new Set(owners)].sort()) {
    let hue = hash32(owner) % 360
    for (let step = 0; step < 13 && taken.some((other) => hueGap(hue, other) < MIN_HUE_GAP); step++) hue = (hue + 137.508) % 360
    taken.push(hue)
    palette.set(owner, `hsl(${Math.round(hue)} 62% 62%)`)
  }
  return palette
}

function hueGap(a: number, b: number): number {
  const gap = Math.abs(a - b) % 360
  return Math.min(gap, 360 - gap)
}

/** A number with thousands separators, as the text output prints it. */
export function count(value: number): string {
  return value.toLocaleString('en-US')
}

/** One page: its title, the body's HTML, and its own CSS and script (added after the shared ones). */
export interface PageParts {
  title: string
  body: string
  css?: string
  script?: string
}

/**
 * The Content-Security-Policy of every page: nothing may be fetched (`default-src 'none'`); only the
 * page's own inline style and script run. A page that tried to load anything would fail in the browser.
 */
export const PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

const SHARED_CSS = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5d6677; --line: #d9dde5; --bg: #ffffff; --panel: #f5f6f9; }
* { box-sizing: border-box; }
body { margin: 0; padding: 20px 24px 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 22px 0 8px; }
p.sub { margin: 2px 0; color: var(--muted); }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; background: var(--c); vertical-align: -1px; margin-right: 6px; border: 1px solid rgb(0 0 0 / 0.15); }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 0; padding: 0; list-style: none; }
#details { position: sticky; bottom: 0; margin: 24px -24px 0; padding: 8px 24px; min-height: 56px; background: var(--panel); border-top: 1px solid var(--line); white-space: pre-wrap; font-size: 12.5px; }
#details:empty::before { content: attr(data-hint); color: var(--muted); }
[tabindex]:focus { outline: 2px solid #3a6fd8; outline-offset: 1px; }
`

// Shows the details of what the pointer (or the keyboard focus) is on; reads titles, writes text only.
const SHARED_SCRIPT = `
(function () {
  var panel = document.getElementById('details');
  function show(event) {
    var target = event.target instanceof Element ? event.target.closest('[data-detail]') : null;
    if (target && panel) panel.textContent = target.getAttribute('data-detail');
  }
  document.addEventListener('mouseover', show);
  document.addEventListener('focusin', show);
})();
`

/** The whole document: doctype, policy, shared and own CSS, the body, a details panel, the scripts. */
export function pageShell(parts: PageParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(PAGE_POLICY)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="dsh-prompt">
<title>${escapeHtml(parts.title)}</title>
<style>${SHARED_CSS}${parts.css ?? ''}</style>
</head>
<body>
${parts.body}
<div id="details" role="status" aria-live="polite" data-hint="Point at (or tab to) a band or a mark for its details."></div>
<script>${SHARED_SCRIPT}${parts.script ?? ''}</script>
</body>
</html>
`
}

/** Writes `html` to `file` (UTF-8); a file that cannot be written is a usage error naming it. */
export function writePage(file: string, html: string): void {
  try {
    writeFileSync(file, html, 'utf8')
  } catch (error) {
    throw htmlNotWritten(file, error)
  }
}
