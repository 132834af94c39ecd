import { readFile } from 'node:fs/promises'
import { expect } from 'chai'
import type { Context } from 'cordis'
import fc from 'fast-check'
import DatePlugin, { DATE_VARIABLE, dayFormatter, DateErrors } from 'dsh-plugin-date'
import { bootApp, promptText, rejection, type BootOptions } from 'dsh-testing'

const at = (iso: string) => Date.parse(iso)
const DAY = 86_400_000

/** The prompt (no identity line, a persona showing the date as a deployment would) and the agents service. */
const SERVICES: BootOptions = { systemPrompt: { includeHarnessIdentity: false, persona: 'Today is {{date}}.' }, agents: true }

describe('dsh-plugin-date', () => {
  let app: Context
  let host: Context
  let clock: number
  const now = () => clock
  beforeEach(async () => {
    ({ app, host } = await bootApp(SERVICES))
    clock = at('2026-11-30T09:15:00Z')
  })

  describe('the {{date}} variable', () => {
    it('renders today\'s date as YYYY-MM-DD in a section', async () => {
      await app.plugin(DatePlugin, { now })
      expect(await promptText(app)).to.equal('Today is 2026-11-30.')
    })

    it('without a clock of its own, reads Date.now() at each assembly, so a clock installed after apply (a replay\'s) moves it', async () => {
      await app.plugin(DatePlugin, {})
      const system = Date.now
      try {
        Date.now = () => at('2026-11-30T23:00:00Z')
        expect(await promptText(app)).to.equal('Today is 2026-11-30.')
        Date.now = () => at('2026-12-01T01:00:00Z')
        expect(await promptText(app)).to.equal('Today is 2026-12-01.')
      } finally {
        Date.now = system
      }
    })

    it('is registered globally under the name date, owned by the plugin', async () => {
      await app.plugin(DatePlugin, { now })
      expect(DATE_VARIABLE).to.equal('date')
      expect((await app.systemPrompt.assemble()).variables).to.deep.equal({ date: '2026-11-30', model: undefined, provider: undefined, cwd: undefined })
    })

    it('declares itself daily, so check accepts its change at midnight (R-CACHE-8); the agent loop variables are per conversation', async () => {
      await app.plugin(DatePlugin, { now })
      expect(app.systemPrompt.inspect().variables.map((v) => [v.name, v.volatility])).to.deep.equal([
        ['cwd', 'conversation'], ['date', 'daily'], ['model', 'conversation'], ['provider', 'conversation'],
      ])
    })

    it('stays the same from the first to the last millisecond of a day and changes at midnight', async () => {
      await app.plugin(DatePlugin, { now })
      const seen: string[] = []
      for (const instant of ['2026-11-30T00:00:00.000Z', '2026-11-30T12:00:00Z', '2026-11-30T23:59:59.999Z', '2026-12-01T00:00:00.000Z']) {
        clock = at(instant)
        seen.push(await promptText(app))
      }
      expect(seen).to.deep.equal(['Today is 2026-11-30.', 'Today is 2026-11-30.', 'Today is 2026-11-30.', 'Today is 2026-12-01.'])
    })

    it('shows the calendar day of the configured time zone', async () => {
      clock = at('2026-11-30T23:30:00Z')
      await app.plugin(DatePlugin, { now, timeZone: 'Asia/Tokyo' })
      expect(await promptText(app)).to.equal('Today is 2026-12-01.')
      const { app: other } = await bootApp(SERVICES)
      await other.plugin(DatePlugin, { now, timeZone: 'America/Los_Angeles' })
      clock = at('2026-12-01T07:30:00Z')
      expect(await promptText(other)).to.equal('Today is 2026-11-30.')
    })

    it('defaults to UTC', async () => {
      clock = at('2026-11-30T23:30:00-05:00')
      await app.plugin(DatePlugin, { now })
      expect(await promptText(app)).to.equal('Today is 2026-12-01.')
    })

    it('accepts a clock returning a Date', async () => {
      await app.plugin(DatePlugin, { now: () => new Date(Date.UTC(2027, 0, 2, 3)) })
      expect(await promptText(app)).to.equal('Today is 2027-01-02.')
    })

    it('reads the real clock when no now is given', async () => {
      const before = new Date().toISOString().slice(0, 10)
      await app.plugin(DatePlugin)
      const shown = await promptText(app)
      const after = new Date().toISOString().slice(0, 10)
      expect([`Today is ${before}.`, `Today is ${after}.`]).to.include(shown)
    })
  })

  describe('formatting', () => {
    it('in UTC it is the ISO date of the instant (property)', () => {
      const format = dayFormatter('UTC')
      fc.assert(fc.property(fc.integer({ min: at('1970-01-01T00:00:00Z'), max: at('9999-12-31T23:59:59Z') }), (t) => {
        expect(format(t)).to.equal(new Date(t).toISOString().slice(0, 10))
      }))
    })

    it('in any zone, less than 23 hours later shows the same date or the next one, never another (property)', () => {
      const zones = ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'America/New_York', 'Pacific/Chatham']
      const nextDay = (day: string) => new Date(Date.parse(day + 'T00:00:00Z') + DAY).toISOString().slice(0, 10)
      fc.assert(fc.property(
        fc.constantFrom(...zones), fc.integer({ min: 0, max: at('2200-01-01T00:00:00Z') }), fc.integer({ min: 0, max: DAY - 3_600_001 }),
        (zone, t, later) => {
          const format = dayFormatter(zone)
          const [a, b] = [format(t), format(t + later)]
          expect(a).to.match(/^\d{4}-\d{2}-\d{2}$/)
          expect([a, nextDay(a)]).to.include(b)
        },
      ))
    })

    it('pads early years to four digits', () => {
      expect(dayFormatter('UTC')(Date.UTC(999, 0, 1))).to.equal('0999-01-01')
    })

    it('refuses an invalid instant', () => {
      expect(() => dayFormatter('UTC')(new Date('not a date'))).to.throw(TypeError, 'now() returned an invalid Date; expected a valid Date or a millisecond timestamp')
    })
  })

  describe('configuration', () => {
    it('refuses an unknown time zone with a message naming it', async () => {
      const error = await rejection(app.plugin(DatePlugin, { timeZone: 'Mars/Olympus_Mons' }))
      expect(error.message).to.equal('invalid config:\n  - timeZone "Mars/Olympus_Mons" is not a time zone this runtime knows (use an IANA name such as "UTC" or "Europe/Berlin")')
      expect(error.message).to.include(DateErrors.unknownTimeZone('Mars/Olympus_Mons').message)
    })

    it('refuses a time zone of the wrong type', async () => {
      const error = await rejection(app.plugin(DatePlugin, { timeZone: 2 as unknown as string }))
      expect(error.message).to.equal('invalid config:\n  - $.timeZone expected string but got 2 (at timeZone)')
    })

    it('a refused config registers no variable', async () => {
      await rejection(app.plugin(DatePlugin, { timeZone: 'Nowhere' }))
      expect((await app.systemPrompt.assemble()).variables).to.not.have.property('date')
    })

    it('a clock that returns garbage fails the assembly, naming the variable and the plugin', async () => {
      await app.plugin(DatePlugin, { now: () => Number.NaN })
      const error = await rejection(app.systemPrompt.assemble())
      expect(error.message).to.equal('prompt variable "date" provider of plugin "dsh-plugin-date" failed: now() returned NaN; expected a valid Date or a millisecond timestamp')
    })
  })

  describe('disposal', () => {
    it('disposing the plugin removes the variable, so a text still using it fails loudly', async () => {
      const fiber = app.plugin(DatePlugin, { now })
      await fiber
      await fiber.dispose()
      const error = await rejection(promptText(app))
      expect(error.message).to.equal('unknown prompt variable "{{date}}" in section "deployment:persona"; registered variables: cwd, model, provider')
    })
  })

  describe('through an agent', () => {
    it('the system prompt is recorded once per day: requests within a day share their prefix', async () => {
      await app.plugin(DatePlugin, { now })
      const agent = await host.agents.create({ id: 'coder', model: 'm' })
      const morning = await agent.step('Good morning.')
      clock += 10 * 3_600_000
      const evening = await agent.step('Still here.')
      expect(evening.messages.slice(0, morning.messages.length)).to.deep.equal(morning.messages)
      expect(evening.messages.slice(morning.messages.length)).to.deep.equal([{ role: 'user', content: 'Still here.' }])
      clock += DAY
      const tomorrow = await agent.step('New day.')
      expect(tomorrow.messages.slice(0, evening.messages.length)).to.deep.equal(evening.messages)
      expect(tomorrow.messages.slice(evening.messages.length)).to.deep.equal([
        { role: 'system', content: 'Today is 2026-12-01.' },
        { role: 'user', content: 'New day.' },
      ])
    })
  })

  it('the README shows the rendered example', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
    expect(readme).to.include('Today is 2026-11-30.')
    expect(readme).to.include('`timeZone "Mars/Olympus_Mons" is not a time zone this runtime knows (use an IANA name such as "UTC" or "Europe/Berlin")`')
  })
})
