/// <reference lib="dom" />
import { expect } from 'chai'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { bootDeployment } from 'dsh-boot'
import type { CacheReport } from 'dsh-wire'
import { pageShell } from '../src/html/page.js'
import { replayPage } from '../src/html/replay-page.js'
import { cli, EXAMPLE, fixture, REPO, runBeforeAll } from './helpers.js'
import { synthetic } from './replay-data.js'

/** The coding agent's whole session (issue 21): a title fork, a sub-agent, a tool hidden, a plugin disposed, a compaction. */
const SESSION = 'examples/coding-agent/session.yml'

/**
 * Debian's chromium (`apt-get install -y chromium`; `scripts/dsh.sh test` installs it when missing),
 * found on PATH, or the file `DSH_CHROMIUM` names. Never a browser download.
 */
function chromium(): string {
  const named = process.env.DSH_CHROMIUM
  if (named) return named
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(folder, 'chromium')
    if (folder && existsSync(candidate)) return candidate
  }
  throw new Error('the browser tests need chromium and found none on PATH: run "apt-get update && apt-get install -y chromium" as root (bash scripts/dsh.sh test does it), or set DSH_CHROMIUM to a Chromium binary')
}

/** What one page load did: console errors, page errors, failed requests, and every request after the page itself. */
interface Visit {
  page: Page
  errors: string[]
  failed: string[]
  requests: string[]
}

/** A replay of 40 requests: growing turns, a persona edit at 12, a tool added at 25 (two breaks), a day rollover at 33. */
function fortyRequests() {
  const breaks: Record<number, Array<{ message: number | null; section: string | null; kind: string; owner: string | null; layer: string | null; cause: string }>> = {
    12: [{ message: 0, section: 'deployment:persona', kind: 'section', owner: 'dsh-system-prompt', layer: 'global', cause: 'section text changed: deployment:persona' }],
    25: [
      { message: null, section: 'web', kind: 'tool', owner: 'dsh-plugin-web', layer: 'global', cause: 'tool added: web' },
      { message: 0, section: 'tool:web', kind: 'section', owner: 'dsh-plugin-web', layer: 'global', cause: 'section added: tool:web' },
    ],
    33: [{ message: 0, section: 'deployment:persona-suffix', kind: 'section', owner: 'dsh-plugin-date', layer: 'global', cause: 'variable value changed ({{date}})' }],
  }
  let previous = 0
  return {
    format: 'openai-chat',
    turns: Array.from({ length: 40 }, (_, i) => {
      const turn = i + 1
      const requestTokens = 2400 + turn * 150
      const reusableTokens = turn === 1 ? 0 : breaks[turn] ? 1200 : previous
      previous = requestTokens
      return {
        turn, requestBytes: requestTokens * 4, reusableBytes: reusableTokens * 4, reusableTokens, requestTokens,
        predictedCachedTokens: reusableTokens < 1024 ? 0 : Math.floor(reusableTokens / 128) * 128, breaks: breaks[turn] ?? [],
      }
    }),
  }
}

/**
 * Twelve requests of the coding-agent example's `main` agent, each followed by a reply; a plugin adds a
 * section before request 5 (under promptChange append the new version is appended: no break) and a
 * tool before request 9 (a break: tool added).
 */
async function conversation(): Promise<CacheReport[]> {
  const booted = await bootDeployment(join(REPO, EXAMPLE.coding))
  try {
    const agent = booted.agents[0]
    const reports: CacheReport[] = []
    for (let i = 1; i <= 12; i++) {
      if (i === 5) {
        await booted.ctx.plugin({ name: 'team-notes', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.section({ name: 'team:notes', order: 600, text: 'The team reviews every change on Fridays.' }) } })
      }
      if (i === 9) {
        await booted.ctx.plugin({
          name: 'web-search', inject: ['systemPrompt'],
          apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas: [{ name: 'web_search', description: 'Searches the web.', parameters: { type: 'object', properties: { query: { type: 'string' } } } }] })) },
        })
      }
      reports.push((await agent.stepDetailed(`Request ${i}: ${'carry on with the task. '.repeat((i % 3) + 1)}`)).report)
      agent.record({ role: 'assistant', content: `Done with step ${i}. ${'Here is what changed. '.repeat(6)}` })
    }
    return reports
  } finally {
    await booted.dispose()
  }
}

describe('the pictures in a real headless browser (chromium driven by puppeteer-core)', function () {
  this.timeout(60000)
  const folder = mkdtempSync(join(tmpdir(), 'dsh-html-'))
  const file = (name: string) => join(folder, name)
  const runs = runBeforeAll({
    json: () => cli(['explain', EXAMPLE.coding, '--agent', 'reviewer', '--json']),
    html: () => cli(['explain', EXAMPLE.coding, '--agent', 'reviewer', '--html', file('explain.html')]),
    edited: () => cli(['explain', fixture('editing-listener.yml'), '--html', file('edited.html')]),
    hostile: () => cli(['explain', fixture('html-hostile.yml'), '--html', file('hostile.html')]),
    // 38 requests: bounded only to catch a hang, on a shared machine.
    session: () => cli(['replay', EXAMPLE.coding, '--script', SESSION, '--html', file('session.html')], { timeout: 120_000 }),
    sessionJson: () => cli(['replay', EXAMPLE.coding, '--script', SESSION, '--json'], { timeout: 120_000 }),
  })
  const replay = fortyRequests()
  let reports: CacheReport[] = []
  let browser: Browser

  before(async () => {
    writeFileSync(file('replay.html'), replayPage(replay, { title: 'Replay: a synthetic report of 40 requests', subtitle: 'a persona edit at request 12, a tool added at 25, a day rollover at 33' }))
    reports = await conversation()
    writeFileSync(file('conversation.html'), replayPage({ format: reports[0].format, turns: reports }, {
      title: `Replay: ${EXAMPLE.coding}, agent "main"`, subtitle: 'twelve requests; a plugin adds a section before request 5 (promptChange: append) and a tool before request 9',
    }))
    writeFileSync(file('replay-small.html'), replayPage(synthetic()))
    writeFileSync(file('assets.html'), pageShell({ title: 'assets', body: '<img src="http://example.invalid/x.png"><link rel="stylesheet" href="https://example.invalid/a.css">' }))
    browser = await puppeteer.launch({ executablePath: chromium(), headless: true, args: ['--no-sandbox'] })
  })
  after(async () => {
    await browser?.close()
    rmSync(folder, { recursive: true, force: true })
  })

  /** Opens a page from a file:// URL; every request other than the page itself is recorded and refused. */
  async function visit(name: string, width = 1100): Promise<Visit> {
    const page = await browser.newPage()
    await page.setViewport({ width, height: 700 })
    const url = pathToFileURL(file(name)).href
    const seen: Visit = { page, errors: [], failed: [], requests: [] }
    await page.setRequestInterception(true)
    page.on('request', (request) => {
      if (request.url() === url) return void request.continue()
      seen.requests.push(request.url())
      void request.abort()
    })
    page.on('console', (message) => { if (message.type() === 'error') seen.errors.push(message.text()) })
    page.on('pageerror', (error) => { seen.errors.push(String(error)) })
    page.on('requestfailed', (request) => { seen.failed.push(request.url()) })
    await page.goto(url, { waitUntil: 'load' })
    return seen
  }

  /** A full-height screenshot for the docs, when `DSH_SCREENSHOTS` names the folder (docs/images). */
  async function screenshot(page: Page, name: string): Promise<void> {
    const target = process.env.DSH_SCREENSHOTS
    if (!target) return
    mkdirSync(join(REPO, target), { recursive: true })
    const height = await page.evaluate(() => document.documentElement.scrollHeight)
    await page.setViewport({ width: page.viewport()!.width, height })
    await page.screenshot({ path: join(REPO, target, name) as `${string}.png`})
  }

  it('explain --html writes a page that loads with no console error, no failed request, and no request leaving it', async () => {
    expect(runs.html.code, runs.html.stderr).to.equal(0)
    expect(runs.html.stdout).to.equal(`wrote ${file('explain.html')}: the picture of agent "reviewer" (model deepseek-chat, provider deepseek, preset reviewer, cwd /workspace), 8 sections, 2 contexts, 4 tools in openai-chat order\n`)
    const { page, errors, failed, requests } = await visit('explain.html')
    expect({ errors, failed, requests }).to.deep.equal({ errors: [], failed: [], requests: [] })
    await page.hover('.band[data-section="deployment:persona"]')
    expect(await page.$eval('#details', (panel) => panel.textContent)).to.equal(
      'section "deployment:persona" (#2, order 0)\nowner preset:reviewer, layer preset:reviewer\n95 tokens, 438 bytes\nshadows dsh-system-prompt (global)')
    await screenshot(page, 'explain.png')
    await page.close()
  })

  it('draws one band per section, context and tool of the explain JSON, same names, owners and tokens, in request order', async () => {
    const doc = JSON.parse(runs.json.stdout)
    const { page } = await visit('explain.html')
    const drawn = await page.$$eval('.band', (bands) => bands.map((band) => {
      const data = (band as HTMLElement).dataset
      return { kind: data.kind, name: data.name, owner: data.owner, layer: data.layer, tokens: Number(data.tokens) }
    }))
    const expected = (kind: string, list: Array<{ name: string; owner: string; layer: string; tokens: number }>) =>
      list.map(({ name, owner, layer, tokens }) => ({ kind, name, owner, layer, tokens }))
    expect(drawn).to.deep.equal([...expected('section', doc.sections), ...expected('tool', doc.tools), ...expected('context', doc.contexts)])
    expect(await page.$$eval('section.group', (groups) => groups.map((group) => (group as HTMLElement).dataset.group))).to.deep.equal(['system', 'tools', 'messages'])
    await page.close()
  })

  it('sizes each band by its tokens and colours it as its owner in the legend', async () => {
    const { page } = await visit('explain.html')
    const bars = await page.$$eval('.band', (bands) => bands.map((band) => ({
      tokens: Number((band as HTMLElement).dataset.tokens),
      owner: (band as HTMLElement).dataset.owner!,
      width: band.querySelector('.bar')!.getBoundingClientRect().width,
      color: getComputedStyle(band.querySelector('.bar')!).backgroundColor,
    })))
    const legend = new Map(await page.$$eval('.legend-item', (items) => items.map((item) =>
      [(item as HTMLElement).dataset.owner!, getComputedStyle(item.querySelector('.swatch')!).backgroundColor] as [string, string])))
    const widest = bars.reduce((best, bar) => (bar.tokens > best.tokens ? bar : best))
    for (const bar of bars) {
      expect(bar.width).to.be.closeTo((widest.width * bar.tokens) / widest.tokens, 1.5)
      expect(bar.color).to.equal(legend.get(bar.owner))
    }
    expect([...legend.keys()].sort()).to.deep.equal([...new Set(bars.map((bar) => bar.owner))].sort())
    expect(new Set(legend.values()).size).to.equal(legend.size)
    await page.close()
  })

  it('marks what a listener rewrote on its band and lists what it removed', async () => {
    expect(runs.edited.code, runs.edited.stderr).to.equal(0)
    const { page, errors } = await visit('edited.html')
    expect(errors).to.deep.equal([])
    expect(await page.$eval('.band[data-section="notes:kept"] .mark.listener', (mark) => mark.textContent)).to.equal('rewritten by ./editing-listener.mjs')
    expect(await page.$$eval('.dropped-item[data-reason="removed"]', (items) => items.map((item) => item.textContent))).to.deep.equal([
      'notes:dropped (./editing-listener.mjs, global): removed by ./editing-listener.mjs',
    ])
    await page.close()
  })

  it('shows names that are markup as text: nothing they hold runs or becomes an element', async () => {
    expect(runs.hostile.code, runs.hostile.stderr).to.equal(0)
    const { page, errors, requests } = await visit('hostile.html')
    expect({ errors, requests }).to.deep.equal({ errors: [], requests: [] })
    await page.hover('.band[data-kind="section"]:nth-child(2)')
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).to.equal(undefined)
    expect(await page.$$eval('script, img, b', (found) => found.length)).to.equal(1)
    expect(await page.$$eval('.band .name', (names) => names.map((name) => name.textContent))).to.include.members([
      '<script>window.__pwned = 1</script>', '"><img src=x onerror="window.__pwned = 2">',
    ])
    expect(await page.$$eval('.band', (bands) => bands.map((band) => (band as HTMLElement).dataset.owner))).to.include('<b onmouseover=window.__pwned=3>row</b>')
    await page.close()
  })

  it('the pages\' policy refuses any asset a later change might add: the browser never requests it and reports the violation', async () => {
    const { page, errors, requests } = await visit('assets.html')
    expect(requests).to.deep.equal([])
    expect(errors).to.have.length(2)
    for (const error of errors) expect(error).to.match(/violates the following Content Security Policy directive/)
    await page.close()
  })

  it('draws the replay as one stacked bar per request and one mark per break, each explained on hover', async () => {
    const { page, errors, failed, requests } = await visit('replay.html', 1000)
    expect({ errors, failed, requests }).to.deep.equal({ errors: [], failed: [], requests: [] })
    const turns = await page.$$eval('.turn', (bars) => bars.map((bar) => ({
      turn: Number((bar as HTMLElement).dataset.turn),
      reused: bar.querySelector('.seg.reused')!.getBoundingClientRect().height,
      fresh: bar.querySelector('.seg.new')!.getBoundingClientRect().height,
    })))
    expect(turns.map((t) => t.turn)).to.deep.equal(replay.turns.map((t) => t.turn))
    const scale = (turns[39].reused + turns[39].fresh) / replay.turns[39].requestTokens
    for (const [i, turn] of turns.entries()) {
      expect(turn.reused, `request ${turn.turn}`).to.be.closeTo(replay.turns[i].reusableTokens * scale, 1.5)
      expect(turn.fresh, `request ${turn.turn}`).to.be.closeTo((replay.turns[i].requestTokens - replay.turns[i].reusableTokens) * scale, 1.5)
    }
    const marks = await page.$$eval('.break', (found) => found.map((mark) => ({ turn: Number((mark as HTMLElement).dataset.turn), cause: (mark as HTMLElement).dataset.cause })))
    expect(marks).to.deep.equal(replay.turns.flatMap((t) => t.breaks.map((b) => ({ turn: t.turn, cause: b.cause }))))
    // Each mark sits above its own request's bar.
    const placed = await page.$$eval('.break', (found) => found.every((mark) => mark.closest('.turn')!.getAttribute('data-turn') === mark.getAttribute('data-turn')))
    expect(placed).to.equal(true)
    await page.hover('.break[data-turn="25"]')
    expect(await page.$eval('#details', (panel) => panel.textContent)).to.equal('request 25: tool added: web\nat tool "web"\nowner dsh-plugin-web, layer global')
    await page.close()
  })

  it('draws the reuse reports of a real conversation of the coding-agent example: one bar per request, one mark per break', async () => {
    expect(reports.map((report) => report.breaks.map((item) => item.cause))).to.deep.equal([[], [], [], [], [], [], [], [], ['tool added: "web_search"'], [], [], []])
    const { page, errors, requests } = await visit('conversation.html', 900)
    expect({ errors, requests }).to.deep.equal({ errors: [], requests: [] })
    const bars = await page.$$eval('.turn', (found) => found.map((bar) => ['turn', 'reusable', 'new', 'predicted'].map((key) => Number(bar.getAttribute(`data-${key}`)))))
    expect(bars).to.deep.equal(reports.map((r) => [r.turn, r.reusableTokens, r.requestTokens - r.reusableTokens, r.predictedCachedTokens]))
    expect(await page.$$eval('.break', (found) => found.map((mark) => [mark.getAttribute('data-turn'), mark.getAttribute('data-section'), mark.getAttribute('data-owner')]))).to.deep.equal([['9', 'web_search', 'web-search']])
    await page.hover('.break')
    await screenshot(page, 'replay.png')
    await page.close()
  })

  it('shows a break whose section is markup as text, in the mark and in the table', async () => {
    const { page, errors } = await visit('replay-small.html')
    expect(errors).to.deep.equal([])
    expect(await page.$$eval('.break', (found) => found.length)).to.equal(2)
    expect(await page.$$eval('script', (found) => found.length)).to.equal(1)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).to.equal(undefined)
    expect(await page.$$eval('.break-row td.mono', (cells) => cells.map((cell) => cell.textContent))).to.deep.equal([
      'section "deployment:persona"', `tool ${JSON.stringify('<script>window.__pwned = 1</script>"\'&')}`,
    ])
    await page.close()
  })

  it('draws the session of session.yml: a mark and a table row per epoch, fork, sub-agent and tool change, with the figures of replay --json', async () => {
    expect(runs.session.code, runs.session.stderr).to.equal(0)
    expect(runs.sessionJson.code, runs.sessionJson.stderr).to.equal(0)
    interface Price { kind: string; costNow: number; costPerRequest: number; total: number }
    interface Turn {
      turn: number; reusableTokens: number; predictedCachedTokens: number; side?: { kind: string }; fork?: { kind: string; parity: null | { cause: string } }
      subagent?: { id: string; start: string }; epoch?: { epoch: number; reanchor: string; offered: Price[]; predicted: Price; reported: null | { costNow: number | null } }
      toolChanges?: Array<{ tool: string; kind: string; owner: string | null; handling: string; breaks: boolean; cost: number }>
    }
    const turns = (JSON.parse(runs.sessionJson.stdout) as { turns: Turn[] }).turns
    const { page, errors, failed, requests } = await visit('session.html', 1200)
    expect({ errors, failed, requests }).to.deep.equal({ errors: [], failed: [], requests: [] })
    const data = (selector: string, keys: string[]) => page.$$eval(selector, (found, names) => found.map((item) => names.map((name) => item.getAttribute(`data-${name}`))), keys)

    // Epochs: the mark above the re-anchor's bar and the table, with both offers and predicted against reported cost.
    const epochs = turns.filter((turn) => turn.epoch)
    expect(epochs).to.have.length(1)
    const expectedEpochs = epochs.map((turn) => [String(turn.turn), String(turn.epoch!.epoch), turn.epoch!.reanchor, String(turn.epoch!.predicted.costNow), null])
    expect(await data('.mark.epoch', ['turn', 'epoch', 'reanchor', 'predicted', 'reported'])).to.deep.equal(expectedEpochs)
    expect(await page.$$eval('.mark.epoch', (found) => found.map((mark) => mark.closest('.turn')!.getAttribute('data-turn')))).to.deep.equal(epochs.map((turn) => String(turn.turn)))
    expect(await data('.epoch-row', ['turn', 'epoch', 'reanchor', 'predicted', 'reported'])).to.deep.equal(expectedEpochs)
    expect(await data('.offer-row', ['turn', 'kind', 'chosen', 'cost-now', 'cost-per-request', 'total'])).to.deep.equal(epochs.flatMap((turn) => turn.epoch!.offered.map((price) =>
      [String(turn.turn), price.kind, String(price.kind === turn.epoch!.reanchor), String(price.costNow), String(price.costPerRequest), String(price.total)])))

    // Side requests: the fork and the sub-agent, hatched, with their parity or start and what they share.
    const sides = turns.filter((turn) => turn.side)
    expect(sides.map((turn) => turn.side!.kind)).to.deep.equal(['title', 'subagent'])
    expect(await page.$$eval('.turn.side', (bars) => bars.map((bar) => bar.getAttribute('data-turn')))).to.deep.equal(sides.map((turn) => String(turn.turn)))
    expect(await data('.side-row', ['turn', 'kind', 'start', 'parity', 'shared', 'predicted'])).to.deep.equal(sides.map((turn) => [
      String(turn.turn), turn.subagent ? 'subagent' : turn.fork!.kind, turn.subagent?.start ?? null, turn.fork ? (turn.fork.parity === null ? 'whole' : turn.fork.parity.cause) : null,
      String(turn.reusableTokens), String(turn.predictedCachedTokens),
    ]))
    expect(await data('.mark.fork, .mark.subagent', ['turn', 'kind'])).to.deep.equal(sides.map((turn) => [String(turn.turn), turn.subagent ? 'subagent' : turn.fork!.kind]))

    // Tool changes: one row each (the inert ones too), and a mark above each request that has some.
    const changes = turns.flatMap((turn) => (turn.toolChanges ?? []).map((change) => [String(turn.turn), change.tool, change.kind, change.handling, change.owner, String(change.breaks), String(change.cost)]))
    expect(changes.some((change) => change[3] === 'inert')).to.equal(true)
    expect(await data('.tool-row', ['turn', 'tool', 'kind', 'handling', 'owner', 'breaks', 'cost'])).to.deep.equal(changes)
    expect(await data('.mark.tools', ['turn'])).to.deep.equal(turns.filter((turn) => turn.toolChanges?.length).map((turn) => [String(turn.turn)]))

    // Hovering the epoch's mark shows both offers and the predicted against the reported cost.
    await page.hover('.mark.epoch')
    const detail = (await page.$eval('#details', (panel) => panel.textContent))!.split('\n')
    expect(detail[0]).to.match(new RegExp(`^request ${epochs[0].turn}: epoch 1: ${epochs[0].epoch!.reanchor}, `))
    expect(detail.slice(1, 3).map((line) => line.split(':')[0])).to.deep.equal(['offered stable-opening', 'offered new-opening'])
    expect(detail[3]).to.match(/^predicted [\d,.]+ now, reported: no usage recorded/)
    await page.hover('.mark.fork')
    expect(await page.$eval('#details', (panel) => panel.textContent)).to.match(new RegExp(`^request ${sides[0].turn}: fork title: repeats the agent's latest request whole; `))
    await screenshot(page, 'replay-session.png')
    await page.close()
  })
})
