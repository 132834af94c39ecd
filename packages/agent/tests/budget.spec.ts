import { expect } from 'chai'
import fc from 'fast-check'
import { ADVICE_THRESHOLDS, nextAdvice, type CompactionAdvice } from 'dsh-agent'
import { bootApp } from 'dsh-testing'

const ADVICE: readonly CompactionAdvice[] = ['none', 'soon', 'now']
const LEVEL = (advice: CompactionAdvice) => ADVICE.indexOf(advice)
/** A fill: anywhere up to 150%, often right at a threshold, where flapping would show. */
const fill = fc.oneof(fc.double({ min: 0, max: 1.5, noNaN: true }), fc.constantFrom(...Object.values(ADVICE_THRESHOLDS).flatMap((t) => [t - 0.001, t, t + 0.001])))

/** The advice after each fill of `fills`, from `none`. */
function advise(fills: readonly number[]): CompactionAdvice[] {
  let advice: CompactionAdvice = 'none'
  return fills.map((f) => (advice = nextAdvice(advice, f)))
}

describe('dsh-agent: the compaction advice', () => {
  it('rises at 70% (soon) and 85% (now) of the input budget, and falls only 10 points lower', () => {
    expect(advise([0.5, 0.69, 0.7, 0.84, 0.85])).to.deep.equal(['none', 'none', 'soon', 'soon', 'now'])
    expect(advise([0.9, 0.76, 0.74, 0.61, 0.59])).to.deep.equal(['now', 'now', 'soon', 'soon', 'none'])
  })

  it('is monotone in the fill: for any previous advice, more fill never advises less', () => {
    fc.assert(fc.property(fc.constantFrom(...ADVICE), fill, fill, (previous, a, b) => {
      const [low, high] = a <= b ? [a, b] : [b, a]
      expect(LEVEL(nextAdvice(previous, low))).to.be.at.most(LEVEL(nextAdvice(previous, high)))
    }))
  })

  it('does not flap: a fill that oscillates inside a band never changes the advice it had', () => {
    // Each band with the advice a conversation can have inside it: below `soon` none or soon, below `now` soon or now.
    const bands: Array<[number, number, CompactionAdvice[]]> = [
      [ADVICE_THRESHOLDS.clearSoon, ADVICE_THRESHOLDS.soon, ['none', 'soon']], [ADVICE_THRESHOLDS.clearNow, ADVICE_THRESHOLDS.now, ['soon', 'now']],
    ]
    const band = fc.constantFrom(...bands).chain(([low, high, starts]) => fc.tuple(fc.constant([low, high] as const), fc.constantFrom(...starts)))
    fc.assert(fc.property(band, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }), ([[low, high], start], shares) => {
      const fills = shares.map((share) => low + share * (high - low) * 0.999)
      let advice = start
      const seen = fills.map((f) => (advice = nextAdvice(advice, f)))
      expect(new Set([start, ...seen])).to.deep.equal(new Set([start]))
    }))
  })

  it('turns back only after the fill has moved by the whole band: a rise and the next fall are at least 10 points of fill apart', () => {
    const gap = Math.min(ADVICE_THRESHOLDS.soon - ADVICE_THRESHOLDS.clearSoon, ADVICE_THRESHOLDS.now - ADVICE_THRESHOLDS.clearNow)
    fc.assert(fc.property(fc.array(fill, { minLength: 2, maxLength: 60 }), (fills) => {
      const seen = advise(fills)
      let last: { direction: number; fill: number } | undefined
      for (let i = 1; i < seen.length; i++) {
        const direction = Math.sign(LEVEL(seen[i]) - LEVEL(seen[i - 1]))
        if (direction === 0) continue
        if (last && last.direction !== direction) expect(Math.abs(fills[i] - last.fill)).to.be.at.least(gap - 1e-9)
        last = { direction, fill: fills[i] }
      }
    }))
  })
})

describe('dsh-agent: a step\'s context budget', () => {
  it('reports the request\'s tokens against the model\'s profile, with the advice, on the result and the agent/step event', async () => {
    const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, tools: true, agents: true })
    const agent = await host.agents.create({ id: 'a', model: 'gpt-4o' })
    const events: unknown[] = []
    host.on('agent/step', (_agent, result) => events.push(result.budget))
    const step = await agent.stepDetailed('Hello.')
    expect(step.budget).to.deep.equal({
      profile: 'gpt-4o*', origin: 'table', window: 128_000, inputCap: 128_000, outputReserve: 16_384, budget: 128_000 - 16_384,
      requestTokens: step.report.requestTokens, fill: Math.round((step.report.requestTokens / (128_000 - 16_384)) * 10_000) / 10_000, advice: 'none', exact: true,
    })
    expect(step.report.requestTokens).to.be.above(0)
    expect(events).to.deep.equal([step.budget])
  })

  it('advises compaction once the conversation fills the budget, keeps the advice per agent, and labels an unknown model\'s default', async () => {
    const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, tools: true, agents: true })
    // An unknown model gets the conservative default; a small override makes a few turns fill it.
    const small = await host.agents.create({ id: 'small', model: 'local-model', profile: { contextWindow: 400, outputReserve: 100 } })
    const other = await host.agents.create({ id: 'other', model: 'local-model' })
    const advice: string[] = []
    for (let turn = 0; turn < 12; turn++) {
      const step = await small.stepDetailed(`Turn ${turn}: ${'word '.repeat(12)}`)
      advice.push(step.budget.advice)
      small.record({ role: 'assistant', content: 'ok' })
    }
    expect(advice[0]).to.equal('none')
    expect(advice.at(-1)).to.equal('now')
    expect(advice.indexOf('soon')).to.be.above(0)
    const fresh = await other.stepDetailed('Hi.')
    expect([fresh.budget.profile, fresh.budget.origin, fresh.budget.window, fresh.budget.advice, fresh.budget.exact]).to.deep.equal(['default', 'default', 32_768, 'none', false])
    expect([small.profile.origin, small.profile.name]).to.deep.equal(['deployment', 'default'])
  })

  it('refuses a profile override that cannot be a profile, with AGENT_INVALID_PROFILE naming the key', async () => {
    const { host } = await bootApp({ systemPrompt: {}, tools: true, agents: true })
    const error = await host.agents.create({ id: 'a', model: 'deepseek-chat', profile: { outputReserve: 128_000 } }).then(() => undefined, (caught: { code?: string; details?: { key?: string } }) => caught)
    expect([error?.code, error?.details?.key]).to.deep.equal(['AGENT_INVALID_PROFILE', 'outputReserve'])
    expect(host.agents.get('a')).to.equal(undefined)
  })
})
