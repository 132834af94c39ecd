import { expect } from 'chai'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cli, EXAMPLE, fixture, lines, runBeforeAll } from './helpers.js'

/** The context-budget warning of `check` and `explain` (docs/sessions.md): the head's share of an agent's input budget. */
describe('dsh-prompt check and explain: the system prompt and tools against the agent\'s input budget', function () {
  this.timeout(60000)
  const heavy = fixture('budget-heavy.yml')
  const page = join(mkdtempSync(join(tmpdir(), 'dsh-budget-')), 'explain.html')
  const r = runBeforeAll({
    check: () => cli(['check', heavy]),
    checkJson: () => cli(['check', heavy, '--json']),
    explain: () => cli(['explain', heavy, '--agent', 'small']),
    explainJson: () => cli(['explain', heavy, '--agent', 'small', '--json']),
    roomy: () => cli(['explain', heavy, '--agent', 'roomy', '--json']),
    coding: () => cli(['check', EXAMPLE.coding]),
    html: () => cli(['explain', heavy, '--agent', 'small', '--html', page]),
  })

  it('check warns, naming the agent, its row, the share and the threshold, and does not fail', () => {
    expect(r.check.code).to.equal(0)
    const warning = lines(r.check.stdout).filter((line) => line.includes('warning:'))
    expect(warning).to.have.length(1)
    expect(warning[0]).to.match(/^packages\/cli\/tests\/fixtures\/budget-heavy\.yml:18:5: warning: agent "small": the system prompt and tools take \d+\.\d% of the input budget \([\d,]+ of 3,500 tokens, estimated, profile deepseek-chat\), above the 25% threshold/)
    expect(r.check.stdout).to.include('(1 warning)')
  })

  it('check --json carries the warning with its code and the figures', () => {
    const json = JSON.parse(r.checkJson.stdout)
    expect(json.ok).to.equal(true)
    expect(json.warnings.map((w: { code: string; where: string[] }) => [w.code, w.where])).to.deep.equal([['CLI_HEAD_OVER_BUDGET', ['agent "small"']]])
  })

  it('explain prints the budget line and the warning; --json carries both', () => {
    const out = lines(r.explain.stdout)
    expect(out.find((line) => line.startsWith('Budget: '))).to.match(/^Budget: profile deepseek-chat \(overridden by the deployment\): window 4,000, input cap 4,000, output reserve 500; system prompt \+ tools [\d,]+ tokens \(estimated\) = \d+\.\d% of the 3,500-token input budget \(warning above 25\.0%\)$/)
    expect(out.at(-1)).to.match(/^warning: agent "small": the system prompt and tools take .* \[CLI_HEAD_OVER_BUDGET\]$/)
    const json = JSON.parse(r.explainJson.stdout)
    expect(json.budget).to.include({ profile: 'deepseek-chat', origin: 'deployment', window: 4000, inputCap: 4000, outputReserve: 500, budget: 3500, limit: 0.25, exact: false })
    expect(json.budget.headTokens).to.equal(json.totals.system.tokens + json.totals.tools.tokens)
    expect(json.budget.share).to.be.above(0.25)
    expect(json.warnings.map((w: { code: string; details: { agent: string } }) => [w.code, w.details.agent])).to.deep.equal([['CLI_HEAD_OVER_BUDGET', 'small']])
  })

  it('explain --html puts the budget line and the warning in the page header', () => {
    expect(r.html.code).to.equal(0)
    const html = readFileSync(page, 'utf8')
    expect(html).to.match(/<p class="sub" id="budget">Budget: profile deepseek-chat \(overridden by the deployment\): window 4,000, /)
    expect(html).to.match(/<p class="sub" id="budget-warning"><strong>warning:<\/strong> the system prompt and tools take \d+\.\d% of the input budget/)
  })

  it('gives no warning where the head fits: the same prompt on the table\'s 128,000-token profile, and the coding example', () => {
    const roomy = JSON.parse(r.roomy.stdout)
    expect(roomy.budget).to.include({ profile: 'deepseek-chat', origin: 'table', budget: 128_000 - 8_192 })
    expect(roomy.budget.share).to.be.below(0.25)
    expect(roomy.warnings).to.equal(undefined)
    expect(r.coding.stdout).not.to.include('CLI_HEAD_OVER_BUDGET')
    expect(r.coding.stdout).not.to.include('of the input budget')
  })
})
