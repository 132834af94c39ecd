import { expect } from 'chai'
import { costOf, planTtl, segmentCost } from 'dsh-wire'

// The priced TTL plan (issue 23, item 4): one test per rule (R-WIRE-12 to 15), the cost figures
// checked against cases computed by hand, and the price table's money.

const MIN = 60_000
const HEAD = [{ kind: 'tools', prefixTokens: 1000 }, { kind: 'system', prefixTokens: 4000 }] as const

describe('dsh-wire: the priced TTL plan', () => {
  it('rule 1: a segment costs n * (p * 0.1 + (1 - p) * write), p the share of gaps within the TTL (hand-computed)', () => {
    // Gaps of 1, 10, 15 and 20 minutes: a quarter within 5 minutes, all within an hour.
    const plan = planTtl(HEAD, [1 * MIN, 10 * MIN, 15 * MIN, 20 * MIN])
    expect(plan.within).to.deep.equal({ '5m': 0.25, '1h': 1 })
    // tools: 1000 tokens; 5m: 1000 * (0.25 * 0.1 + 0.75 * 1.25) = 962.5; 1h: 1000 * 0.1 = 100.
    // system: the 3000 tokens after the tools; 5m: 2887.5; 1h: 300.
    expect(plan.segments.map((s) => [s.kind, s.tokens, s.cost['5m'], s.cost['1h']])).to.deep.equal([['tools', 1000, 962.5, 100], ['system', 3000, 2887.5, 300]])
    expect(plan.expected).to.deep.equal({ '5m': 3850, '1h': 400, plan: 400 })
    expect(segmentCost(1000, '5m', 0.9) + segmentCost(1000, '1h', 0.9)).to.be.closeTo(215 + 290, 1e-9)
  })

  it('rule 2: each breakpoint takes the cheaper TTL, a tie keeps 5m', () => {
    expect(planTtl(HEAD, [10 * MIN, 20 * MIN]).ttl).to.include({ tools: '1h', system: '1h' })
    // Every gap within 5 minutes: both read at 0.1, a tie: 5m.
    expect(planTtl(HEAD, [30_000, MIN]).ttl).to.include({ tools: '5m', system: '5m' })
    // Every gap past an hour: both write again, 1.25 < 2: 5m.
    expect(planTtl(HEAD, [2 * 60 * MIN]).ttl).to.include({ tools: '5m', system: '5m' })
    // 90% within 5 minutes (and within the hour): 5m costs 0.215 a token, 1h 0.29.
    expect(planTtl(HEAD, [...Array(9).fill(MIN), 2 * 60 * MIN]).ttl).to.include({ tools: '5m' })
  })

  it('rule 3: never a 1h breakpoint after a 5m one, also when the caller fixes an earlier kind to 5m', () => {
    const plan = planTtl(HEAD, [10 * MIN, 20 * MIN], { tools: '5m' })
    expect(plan.ttl).to.deep.equal({ tools: '5m', system: '5m', stable: '5m', tail: '5m' })
    expect(plan.expected.plan).to.equal(plan.expected['5m'])
    // Kinds without a breakpoint follow the order too: 1h before a later 1h, 5m after a 5m.
    expect(planTtl([{ kind: 'system', prefixTokens: 4000 }], [10 * MIN]).ttl).to.deep.equal({ tools: '1h', system: '1h', stable: '5m', tail: '5m' })
  })

  it('rule 4: with no measured gap yet, every breakpoint is 5m', () => {
    const plan = planTtl(HEAD, [])
    expect(plan.ttl).to.deep.equal({ tools: '5m', system: '5m', stable: '5m', tail: '5m' })
    expect(plan.gaps).to.equal(0)
  })

  it('prices a usage: written (5m and 1h), read, uncached and output, per million tokens (hand-computed)', () => {
    const usage = { inputTokens: 10_000, cachedReadTokens: 6000, cacheWriteTokens: 3000, outputTokens: 500 }
    const cost = costOf(usage, { input: 3, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 }, 1000)
    // written: (2000 * 3.75 + 1000 * 6) / 1e6; read: 6000 * 0.3 / 1e6; uncached: 1000 * 3 / 1e6; output: 500 * 15 / 1e6.
    expect(cost.written).to.be.closeTo(0.0135, 1e-12)
    expect(cost.read).to.be.closeTo(0.0018, 1e-12)
    expect(cost.uncached).to.be.closeTo(0.003, 1e-12)
    expect(cost.output).to.be.closeTo(0.0075, 1e-12)
    expect(cost.total).to.be.closeTo(0.0258, 1e-12)
  })
})
