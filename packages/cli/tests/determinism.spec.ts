import { expect } from 'chai'
import { bootDeployment } from 'dsh-boot'
import { checkTarget, dayBoundaryBetween } from '../src/checks.js'
import { fixture } from './helpers.js'

/**
 * A clock standing at `start` that moves only when `check` waits between its renders, except that the
 * date plugin's first reading (`read`, in the first render) is followed at once by a jump of `jump` ms:
 * a day boundary may fall right after the first render, whatever the code reads the clock for.
 */
function manualClock(start: number, jump = 0) {
  let time = start
  let jumped = false
  return {
    now: () => time,
    read: () => {
      const at = time
      if (!jumped) time += jump
      jumped = true
      return at
    },
    wait: async (ms: number) => { time += ms },
  }
}

/** 23:59:59.995 in Asia/Kathmandu (UTC+05:45): a day boundary of that zone is 5 ms away. */
const BEFORE_MIDNIGHT = Date.UTC(2026, 11, 1, 18, 14, 59, 995)

describe('dsh-prompt check: the determinism check and the day boundary', () => {
  const holder = globalThis as { __dshTestClock?: ReturnType<typeof manualClock> }
  afterEach(() => delete holder.__dshTestClock)

  async function findings(file: string, clock: ReturnType<typeof manualClock>) {
    holder.__dshTestClock = clock
    const booted = await bootDeployment(fixture(file), { logLevel: 'silent' })
    try {
      // Problems only: volatility-order warnings are not what this file is about.
      return (await checkTarget(booted, { label: 'the deployment' }, 10, clock)).filter((finding) => finding.kind !== 'volatility')
    } finally {
      await booted.dispose()
    }
  }

  it('passes a {{date}} section whose two renders fall on two days, by rendering the pair again', async () => {
    expect(await findings('midnight.yml', manualClock(BEFORE_MIDNIGHT, 10))).to.deep.equal([])
  })

  it('still reports a section showing a clock value, also when a day boundary fell between its renders', async () => {
    const found = await findings('midnight-clock.yml', manualClock(BEFORE_MIDNIGHT, 10))
    expect(found.map((f) => [f.kind, f.origin?.name])).to.deep.equal([['unstable', 'clock:ms']])
  })

  it('reports the clock section on an ordinary afternoon too', async () => {
    const found = await findings('midnight-clock.yml', manualClock(Date.UTC(2026, 11, 1, 12, 0, 0)))
    expect(found.map((f) => [f.kind, f.origin?.name])).to.deep.equal([['unstable', 'clock:ms']])
  })

  it('counts every quarter hour of UTC as a possible day boundary (the start of a day in some zone), and nothing else', () => {
    const at = (h: number, m: number, s = 0) => Date.UTC(2026, 11, 1, h, m, s)
    expect(dayBoundaryBetween(at(18, 14, 59), at(18, 15, 0))).to.equal(true)
    expect(dayBoundaryBetween(at(23, 59, 59), at(0, 0, 1) + 86400000)).to.equal(true)
    expect(dayBoundaryBetween(at(12, 0, 1), at(12, 14, 59))).to.equal(false)
  })
})
