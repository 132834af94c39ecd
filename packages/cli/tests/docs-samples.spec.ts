import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { REPO, runAll, sh, type Run } from './helpers.js'

// docs/cli.md says its output is real, and the README shows the same commands: every `$ dsh-prompt …`
// sample of both (but --help, which docs-help.spec.ts compares) is run from the repository root with the
// built CLI and compared with what the page shows.
// A `[…]` line (or one starting `[…`, a cut with a word on what was cut) stands for lines cut from the
// page: the lines between two cuts must appear, in order;
// a line that ends in ` …` was cut short on the page: the real line starts with what it shows.

const PAGES = ['docs/cli.md', 'README.md']

interface Sample { page: string; command: string; expected: string[] }

function samples(page: string): Sample[] {
  const doc = readFileSync(new URL(`../../../${page}`, import.meta.url), 'utf8')
  const found: Sample[] = []
  for (const [, body] of doc.matchAll(/```text\n([\s\S]*?)```/g)) {
    let current: Sample | undefined
    for (const line of body.replace(/\n$/, '').split('\n')) {
      if (line.startsWith('$ dsh-prompt ')) found.push(current = { page, command: line.slice(2), expected: [] })
      else current?.expected.push(line)
    }
  }
  return found.filter((sample) => !/ --help\b/.test(sample.command))
}

/** Whether `actual` shows every chunk of `expected` between `[…]` lines, in order (the first from its start, the last to its end). */
function shows(actual: string[], expected: string[]): boolean {
  const chunks: string[][] = [[]]
  for (const line of expected) if (line.startsWith('[…')) chunks.push([]); else chunks[chunks.length - 1].push(line)
  let at = 0
  for (const [index, chunk] of chunks.entries()) {
    const last = index === chunks.length - 1
    let found = -1
    for (let i = at; i + chunk.length <= actual.length; i++) {
      if (index === 0 && i > 0) break
      if (chunk.every((line, j) => same(actual[i + j], line)) && (!last || i + chunk.length === actual.length)) { found = i; break }
    }
    if (found < 0) return false
    at = found + chunk.length
  }
  return true
}

function same(actual: string, shown: string): boolean {
  return actual === shown || (shown.endsWith(' …') && actual.startsWith(shown.slice(0, -2)))
}

const SAMPLES = PAGES.flatMap((page) => samples(page))
// A command shown on both pages is run once.
const COMMANDS = [...new Set(SAMPLES.map((sample) => sample.command))]
// The ledger the page edits by hand ("line 3 was edited"): the fixture with line 3's content changed.
const EDITED = join(REPO, 'edited.jsonl')
const HTML = join(REPO, 'reviewer.html')

describe('dsh-prompt: docs/cli.md and the README show each command\'s real output (issue 24)', function () {
  this.timeout(10 * 60_000)
  let results: Record<string, Run>
  before(async () => {
    const ledger = readFileSync(join(REPO, 'packages/cli/tests/fixtures/ledger/conversation.jsonl'), 'utf8').split('\n')
    ledger[2] = ledger[2].replace(/"content":"([^"]*)"/, '"content":"$1 (edited)"')
    writeFileSync(EDITED, ledger.join('\n'))
    try {
      results = await runAll(Object.fromEntries(COMMANDS.map((command) => [command, () => sh(`{ ${command.replace(/^dsh-prompt /, '$CLI ')}; } 2>&1`, { env: { COLUMNS: '80' } })])))
    } finally {
      rmSync(EDITED, { force: true })
      rmSync(HTML, { force: true })
    }
  })

  it('finds the samples', () => {
    expect(SAMPLES.length).to.be.at.least(15)
  })

  // The page was captured on 2026-11-30 ({{date}} of the examples reads the day of the run).
  const today = new Date()
  const yesterday = new Date(today)
  yesterday.setUTCDate(today.getUTCDate() - 1)
  const days = new Set([today, yesterday].map((day) => day.toISOString().slice(0, 10)))
  const onCaptureDay = (text: string) => text.replace(/\d{4}-\d{2}-\d{2}/g, (day) => (days.has(day) ? '2026-11-30' : day))

  for (const sample of SAMPLES) {
    it(`${sample.page}: ${sample.command}`, () => {
      const actual = onCaptureDay(results[sample.command].stdout).replace(/\n$/, '').split('\n')
      if (!shows(actual, sample.expected)) expect(actual.join('\n')).to.equal(sample.expected.join('\n'))
    })
  }
})
