import { expect } from 'chai'
import fc from 'fast-check'
import type { CacheReport } from 'dsh-wire'
import type { Explanation } from '../src/explanation.js'
import { explainPage } from '../src/html/explain-page.js'
import { attributes, escapeHtml, ownerPalette, PAGE_POLICY } from '../src/html/page.js'
import { replayPage } from '../src/html/replay-page.js'
import { HOSTILE, synthetic } from './replay-data.js'

/** Undoes {@link escapeHtml}'s entities (what a browser does when it parses the text). */
const unescape = (html: string) => html.replace(/&(amp|lt|gt|quot|#39|#10|#13);/g, (_, name: string) =>
  ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#10': '\n', '#13': '\r' })[name]!)

/** A small explanation: two sections (one hostile, one rewritten and shadowing), a context, a tool. */
function explanation(): Explanation {
  const text = { dynamic: false, changedBy: null, shadows: [] as string[] }
  return {
    encoding: 'o200k_base',
    sections: [
      { ...text, position: 1, order: 0, name: 'deployment:persona', owner: 'preset:reviewer', layer: 'preset:reviewer', bytes: 40, tokens: 10, shadows: ['dsh-system-prompt (global)'], changedBy: 'rewritten by ./editor.mjs' },
      { ...text, position: 2, order: 500, name: HOSTILE, owner: `row ${HOSTILE}`, layer: 'global', bytes: 80, tokens: 20 },
    ],
    droppedSections: [{ name: 'notes:dropped', owner: './editor.mjs', layer: 'global', reason: 'removed', by: './editor.mjs' }],
    contexts: [{ ...text, position: 1, order: 110, name: 'sandbox:policy', owner: 'dsh-plugin-policies', layer: 'global', bytes: 20, tokens: 5, dynamic: true }],
    droppedContexts: [],
    completeSection: null,
    runtimeContext: 'on',
    tools: [{ position: 1, name: 'bash', owner: 'dsh-plugin-shell', layer: 'global', bytes: 160, tokens: 40 }],
    variables: [],
    totals: { system: { bytes: 122, tokens: 30, sectionTokens: 30 }, snapshot: { bytes: 20, tokens: 5 }, tools: { bytes: 160, tokens: 40 }, all: { bytes: 302, tokens: 75 } },
  }
}

const page = () => explainPage({ file: 'x.yml', target: 'agent "main"', format: 'anthropic', order: ['tools', 'system', 'messages'], explanation: explanation() })

/** The opening tags of `tag` elements in `html`. */
const tags = (html: string, tag: string) => html.match(new RegExp(`<${tag}\\b[^>]*>`, 'g')) ?? []

/** The value of attribute `name` in an opening tag (unescaped). */
const attr = (tag: string, name: string) => {
  const found = new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]
  return found === undefined ? undefined : unescape(found)
}

describe('the HTML pages (explain and replay pictures)', () => {
  it('escapes text so that no string can open a tag, end an attribute or start an entity, and a browser reads it back unchanged', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => {
      const html = escapeHtml(text)
      expect(html).not.to.match(/[<>"'\n\r]/)
      expect(html.replace(/&(amp|lt|gt|quot|#39|#10|#13);/g, '')).not.to.include('&')
      // Control characters become visible escapes; everything else survives the round trip.
      if (!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) expect(unescape(html)).to.equal(text)
    }))
    expect(attributes({ 'data-name': HOSTILE, skipped: undefined, n: 3 })).to.equal(' data-name="&lt;script&gt;window.__pwned = 1&lt;/script&gt;&quot;&#39;&amp;" n="3"')
  })

  it('gives each owner one colour, the same for the same owners in any order, with hues kept apart', () => {
    const owners = ['dsh-system-prompt', 'preset:reviewer', 'dsh-plugin-shell', 'dsh-plugin-filesystem', 'dsh-plugin-policies', 'dsh-plugin-date']
    const palette = ownerPalette(owners)
    expect([...ownerPalette([...owners].reverse())]).to.deep.equal([...palette])
    const hues = [...palette.values()].map((color) => Number(/^hsl\((\d+) /.exec(color)![1]))
    expect(new Set(hues).size).to.equal(owners.length)
    for (const [i, a] of hues.entries()) for (const b of hues.slice(i + 1)) expect(Math.min(Math.abs(a - b), 360 - Math.abs(a - b))).to.be.at.least(27)
  })

  it('draws one band per section, context and tool, in the format\'s order, each with its data as attributes', () => {
    const bands = tags(page(), 'li').filter((tag) => attr(tag, 'class') === 'band')
    expect(bands.map((tag) => [attr(tag, 'data-kind'), attr(tag, 'data-name'), attr(tag, 'data-owner'), attr(tag, 'data-tokens')])).to.deep.equal([
      ['tool', 'bash', 'dsh-plugin-shell', '40'],
      ['section', 'deployment:persona', 'preset:reviewer', '10'],
      ['section', HOSTILE, `row ${HOSTILE}`, '20'],
      ['context', 'sandbox:policy', 'dsh-plugin-policies', '5'],
    ])
    // Sized by tokens: the widest band (40 tokens) is 100%, the others in proportion.
    expect(bands.map((tag) => /--w:([\d.]+)%/.exec(attr(tag, 'style')!)![1])).to.deep.equal(['100.00', '25.00', '50.00', '12.50'])
  })

  it('marks the layer, what a band shadows, what a listener did, and lists what a listener removed', () => {
    const html = page()
    const persona = tags(html, 'li').find((tag) => attr(tag, 'data-name') === 'deployment:persona')!
    expect(attr(persona, 'data-shadows')).to.equal('dsh-system-prompt (global)')
    expect(attr(persona, 'data-changed-by')).to.equal('rewritten by ./editor.mjs')
    expect(attr(persona, 'title')).to.equal('section "deployment:persona" (#1, order 0)\nowner preset:reviewer, layer preset:reviewer\n10 tokens, 40 bytes\nshadows dsh-system-prompt (global)\nrewritten by ./editor.mjs')
    expect(html).to.include('<span class="mark layer">layer preset:reviewer</span><span class="mark shadow">shadows dsh-system-prompt (global)</span><span class="mark listener">rewritten by ./editor.mjs</span>')
    expect(html).to.include('<span class="mark dynamic">computed at each assembly</span>')
    const removed = tags(html, 'li').find((tag) => attr(tag, 'class') === 'dropped-item')!
    expect([attr(removed, 'data-name'), attr(removed, 'data-reason'), attr(removed, 'data-by')]).to.deep.equal(['notes:dropped', 'removed', './editor.mjs'])
  })

  it('with a format, closes with the cache stream table: one row per part with its start byte', () => {
    const stream = [
      { position: 1, kind: 'model' as const, index: 0, name: 'deepseek-chat', owner: null, layer: null, start: 0, bytes: 25 },
      { position: 2, kind: 'tool' as const, index: 0, name: 'bash', owner: 'dsh-plugin-shell', layer: 'global', start: 25, bytes: 1042 },
      { position: 3, kind: 'system' as const, index: 0, name: 'system prompt', owner: null, layer: null, start: 1067, bytes: 4731 },
    ]
    const html = explainPage({ file: 'x.yml', target: 'agent "main"', format: 'anthropic', order: ['tools', 'system', 'messages'], explanation: explanation(), stream })
    const rows = tags(html, 'tr').filter((tag) => attr(tag, 'class') === 'stream-part')
    expect(rows.map((tag) => [attr(tag, 'data-kind'), attr(tag, 'data-name'), attr(tag, 'data-start'), attr(tag, 'data-bytes')])).to.deep.equal([
      ['model', 'deepseek-chat', '0', '25'], ['tool', 'bash', '25', '1042'], ['system', 'system prompt', '1067', '4731'],
    ])
    expect(page()).not.to.include('stream-part')
  })

  it('is one self-contained document: a policy that forbids every request, one inline style and script, no URL, names never markup', () => {
    for (const html of [page(), replayPage(synthetic())]) {
      expect(html).to.include(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(PAGE_POLICY)}">`)
      expect(PAGE_POLICY).to.match(/^default-src 'none';/)
      expect(tags(html, 'script')).to.deep.equal(['<script>'])
      expect(tags(html, 'style')).to.deep.equal(['<style>'])
      expect(html).not.to.match(/\s(src|href|srcset|action)=/)
      expect(html).not.to.match(/url\(|@import|https?:/)
      expect(html).not.to.include('<script>window')
    }
  })

  it('draws the replay as one stacked bar per request and one mark per break, with cause, section, owner and layer on hover', () => {
    const html = replayPage(synthetic())
    const turns = tags(html, 'div').filter((tag) => attr(tag, 'class') === 'turn')
    expect(turns.map((tag) => [attr(tag, 'data-turn'), attr(tag, 'data-reusable'), attr(tag, 'data-new'), attr(tag, 'data-unit')])).to.deep.equal([
      ['1', '0', '1200', 'tokens'], ['2', '1200', '100', 'tokens'], ['3', '300', '1100', 'tokens'],
    ])
    const marks = tags(html, 'span').filter((tag) => attr(tag, 'class') === 'break')
    expect(marks.map((tag) => [attr(tag, 'data-turn'), attr(tag, 'data-cause'), attr(tag, 'data-section'), attr(tag, 'data-owner')])).to.deep.equal([
      ['3', 'section text changed: deployment:persona', 'deployment:persona', 'dsh-system-prompt'],
      ['3', 'tool added: web', HOSTILE, undefined],
    ])
    expect(attr(marks[0], 'title')).to.equal('request 3: section text changed: deployment:persona\nat section "deployment:persona"\nowner dsh-system-prompt, layer global')
    expect(attr(marks[1], 'title')).to.equal(`request 3: tool added: web\nat tool ${JSON.stringify(HOSTILE)}\nowner unknown, layer unknown`)
  })

  it('draws a replay from dsh-wire\'s CacheReport as it is (the replay command passes its reports through)', () => {
    const report: CacheReport = {
      format: 'anthropic', provider: 'anthropic', turn: 2, requestBytes: 900, reusableBytes: 300, requestTokens: 240, reusableTokens: 80,
      predictedCachedTokens: 0, tokenizer: 'estimate', reportedCachedTokens: null, mismatch: 'below the minimum',
      breaks: [{ message: 1, section: 'sandbox:policy', kind: 'context', owner: 'dsh-plugin-policies', layer: 'global', cause: 'context changed: sandbox:policy' }],
    }
    const html = replayPage({ format: report.format, turns: [report] })
    const turn = tags(html, 'div').find((tag) => attr(tag, 'class') === 'turn')!
    expect([attr(turn, 'data-turn'), attr(turn, 'data-reusable'), attr(turn, 'data-new'), attr(turn, 'data-breaks')]).to.deep.equal(['2', '80', '160', '1'])
    expect(attr(turn, 'title')).to.include('reported cached not reported: below the minimum')
    const mark = tags(html, 'span').find((tag) => attr(tag, 'class') === 'break')!
    expect(attr(mark, 'title')).to.equal('request 2: context changed: sandbox:policy\nat context "sandbox:policy" (message 1)\nowner dsh-plugin-policies, layer global')
  })

  it('draws the replay in bytes when a request carries no token count, and says so', () => {
    const data = synthetic()
    const { requestTokens: _, ...second } = data.turns[1]
    const html = replayPage({ ...data, turns: [data.turns[0], second, data.turns[2]] })
    const turns = tags(html, 'div').filter((tag) => attr(tag, 'class') === 'turn')
    expect(turns.map((tag) => [attr(tag, 'data-unit'), attr(tag, 'data-total'), attr(tag, 'data-reusable')])).to.deep.equal([
      ['bytes', '4800', '0'], ['bytes', '5200', '4800'], ['bytes', '5600', '1200'],
    ])
    expect(html).to.include('bar height in bytes (the report carries no request token counts)')
    expect(html).not.to.include('class="predicted"')
  })

  it('draws a side request hatched and leaves it out of the summary\'s shares, as the text report leaves it out of its total', () => {
    const data = synthetic()
    const fork = { ...data.turns[1], turn: 4, side: { kind: 'title' }, fork: { kind: 'title', parity: null } }
    const html = replayPage({ ...data, turns: [...data.turns, fork] })
    const summary = (page: string) => /<p class="sub" id="summary"[^>]*>([\s\S]*?)<\/p>/.exec(page)![1]
    expect(summary(html).split('; ')[1]).to.equal(summary(replayPage(data)).split('; ')[1])
    expect(summary(html)).to.include('4 requests, 2 breaks, 1 side request (left out of the shares);')
    const turns = tags(html, 'div').filter((tag) => attr(tag, 'class')?.startsWith('turn'))
    expect(turns.map((tag) => [attr(tag, 'class'), attr(tag, 'data-side') ?? null])).to.deep.equal([['turn', null], ['turn', null], ['turn', null], ['turn side', 'title']])
    expect(tags(html, 'tr').filter((tag) => attr(tag, 'class') === 'side-row').map((tag) => [attr(tag, 'data-turn'), attr(tag, 'data-kind'), attr(tag, 'data-parity')])).to.deep.equal([['4', 'title', 'whole']])
  })
})
