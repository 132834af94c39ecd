import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { arrayDiff, createTwoFilesPatch, lineDiff } from 'diff'
import { exportLedger } from 'dsh-agent'
import { harness } from '../../agent/tests/ledger-scenario.js'
import { rechain } from '../../agent/tests/helpers.js'
import { boundedPatch, MAX_DIFF_EDITS } from '../src/bounded-diff.js'
import { sectionChanges } from '../src/commands/history.js'
import { assertBuilt, cli } from './helpers.js'

// Issue 20, item 9: jsdiff's cost is about (lines of A + lines of B) × edits, so two large texts that
// differ throughout took minutes (`history` on two 181 KB prompt versions 40 s, `diff` of two 16,000-line
// personas 87 s). Diffs stop after MAX_DIFF_EDITS edits and say so. The tests count jsdiff's line (or
// block) comparisons, never the time; a comparison count far above the bound's fails at once.

/** A budget of comparisons the bounded diff stays within: the furthest-reaching paths up to the bound, and one pass over both sides. */
const budget = (lines: number) => (MAX_DIFF_EDITS + 1) ** 2 + 4 * lines

/** Runs `body` counting the comparisons `differ` makes; throws once they pass `limit`. */
function comparisons<T>(differ: { equals(left: unknown, right: unknown, options: unknown): boolean }, limit: number, body: () => T): { result: T; count: number } {
  const own = differ as { equals: (left: unknown, right: unknown, options: unknown) => boolean }
  const original = own.equals
  let count = 0
  own.equals = function (this: unknown, left: unknown, right: unknown, options: unknown) {
    if (++count > limit) throw new Error(`more than ${limit} comparisons`)
    return original.call(this, left, right, options)
  }
  try {
    return { result: body(), count }
  } finally {
    delete (differ as { equals?: unknown }).equals
  }
}

const numbered = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word} ${i}`).join('\n') + '\n'

describe('dsh-prompt: diffs with a bounded cost', () => {
  it('two 3,000-line texts that differ on every line get a summary, saying so, after a bounded number of comparisons', () => {
    const a = numbered(3000, 'old')
    const b = numbered(3000, 'new')
    const { result, count } = comparisons(lineDiff, budget(6000), () => boundedPatch('a', 'b', a, b))
    expect(result).to.deep.equal({ summary: 'no line diff: more than 1,000 lines differ (A 3,000 lines, 25,890 bytes; B 3,000 lines, 25,890 bytes)' })
    expect(count).to.be.at.most(budget(6000))
  })

  it('a diff within the bound is the plain unified diff', () => {
    const a = numbered(3000, 'line')
    const b = a.replace('line 1500\n', 'line 1500 changed\n')
    expect(boundedPatch('a', 'b', a, b)).to.deep.equal({ patch: createTwoFilesPatch('a', 'b', a, b, undefined, undefined, { context: 3 }).replace(/^=+\n/, '') })
  })

  it('history: versions of 3,000 sections that all differ are compared by position, each section\'s diff bounded, and say so', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `rule ${i}`).join('\n\n')
    const b = Array.from({ length: 3000 }, (_, i) => `rule ${i} (revised)`).join('\n\n')
    const { result: changes, count } = comparisons(arrayDiff, budget(6000), () => sectionChanges(a, b, 1, 2))
    expect(count).to.be.at.most(budget(6000))
    expect(changes).to.have.length(3000)
    expect(changes.every((change) => change.aligned === 'position' && change.kind === 'changed')).to.equal(true)
    expect(changes[7]).to.deep.equal({
      kind: 'changed', from: 8, to: 8, count: 1, aligned: 'position',
      patch: '--- v1 section 8\n+++ v2 section 8\n@@ -1,1 +1,1 @@\n-rule 7\n+rule 7 (revised)\n',
    })
  })

  it('history: one section of 3,000 lines that all differ gets a summary in its patch\'s place', () => {
    const changes = comparisons(lineDiff, budget(6000), () => sectionChanges(`intro\n\n${numbered(3000, 'old').trimEnd()}`, `intro\n\n${numbered(3000, 'new').trimEnd()}`, 1, 2)).result
    expect(changes.map((change) => [change.kind, change.aligned])).to.deep.equal([['unchanged', undefined], ['changed', undefined]])
    expect(changes[1].patch).to.equal(undefined)
    expect(changes[1].summary).to.equal('no line diff: more than 1,000 lines differ (A 3,000 lines, 25,890 bytes; B 3,000 lines, 25,890 bytes)')
  })

  describe('dsh-prompt history of two versions of 3,000 sections that all differ', function () {
    this.timeout(60_000)
    before(assertBuilt)
    let dir: string
    before(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-bounded-history-')) })
    after(() => rmSync(dir, { recursive: true, force: true }))

    it('says the sections are compared by position, and --json marks each change', async () => {
      const { host } = await harness('append')
      const agent = await host.agents.create({ id: 'a', model: 'm' })
      const rules = (word: string) => Array.from({ length: 3000 }, (_, i) => `${word} rule ${i}`).join('\n\n')
      const dispose = agent.ctx.systemPrompt.section({ name: 'rules', order: 10, text: rules('old') })
      await agent.step('Hi.')
      agent.record({ role: 'assistant', content: 'Hello.' })
      dispose()
      agent.ctx.systemPrompt.section({ name: 'rules', order: 10, text: rules('new') })
      await agent.step('Again.')
      // A ledger of format version 1 (no parts, no tools), where versions are compared block by block at blank lines.
      const lines = exportLedger(agent).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
      const file = join(dir, 'ledger.jsonl')
      writeFileSync(file, rechain(lines.map(({ sections: _, tools: _tools, toolOwners: _owners, ...fields }, i) => (i === 0 ? { ...fields, version: 1 } : fields))))
      const text = await cli(['history', file], { timeout: 40_000 })
      expect(text.code).to.equal(0)
      expect(text.stdout).to.contain('\n      (more than 1,000 sections were added or removed: section n is compared with section n)\n      section 1: unchanged\n      section 2: changed\n')
      const json = await cli(['history', file, '--json'], { timeout: 40_000 })
      const changes = JSON.parse(json.stdout).promptVersions[1].changes as Array<{ aligned?: string }>
      expect(changes.filter((change) => change.aligned === 'position')).to.have.length(changes.length)
      // With its parts (format version 2) the rules are one section, changed, its diff a summary.
      const parts = join(dir, 'parts.jsonl')
      writeFileSync(parts, exportLedger(agent))
      const byParts = JSON.parse((await cli(['history', parts, '--json'], { timeout: 40_000 })).stdout).promptVersions[1].changes as Array<{ kind: string; section: string; summary?: string }>
      expect(byParts.map((change) => [change.kind, change.section, change.summary?.startsWith('no line diff: more than 1,000 lines differ')])).to.deep.equal([['unchanged', 'deployment:persona', undefined], ['changed', 'rules', true]])
    })
  })

  describe('dsh-prompt diff of two 16,000-line personas', function () {
    this.timeout(60_000)
    before(assertBuilt)
    let dir: string
    before(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-bounded-diff-')) })
    after(() => rmSync(dir, { recursive: true, force: true }))

    it('prints a summary where the system prompt\'s patch would be, and --json carries it', async () => {
      const deployment = (word: string) => [
        'plugins:',
        '  - name: dsh-system-prompt',
        '    config:',
        '      includeHarnessIdentity: false',
        '      persona: |',
        ...Array.from({ length: 16_000 }, (_, i) => `        ${word} rule ${i}`),
      ].join('\n') + '\n'
      writeFileSync(join(dir, 'a.yml'), deployment('old'))
      writeFileSync(join(dir, 'b.yml'), deployment('new'))
      const text = await cli(['diff', join(dir, 'a.yml'), join(dir, 'b.yml')], { timeout: 40_000 })
      expect(text.timedOut).to.equal(false)
      expect(text.code).to.equal(1)
      expect(text.stdout).to.match(/\nno line diff: more than 1,000 lines differ \(A 16,001 lines, [\d,]+ bytes; B 16,001 lines, [\d,]+ bytes\)\n/)
      const json = await cli(['diff', join(dir, 'a.yml'), join(dir, 'b.yml'), '--json'], { timeout: 40_000 })
      const system = JSON.parse(json.stdout).parts.system
      expect(system.patch).to.equal(null)
      expect(system.summary).to.match(/^no line diff: more than 1,000 lines differ/)
    })
  })
})
