import { expect } from 'chai'
import { Config, DateErrors } from 'dsh-plugin-date'
import { thrown } from 'dsh-testing'

describe('dsh-plugin-date: every error carries a stable code and the fields it is about', () => {
  const made = [DateErrors.unknownTimeZone('Mars/Olympus_Mons'), DateErrors.invalidNow('an invalid Date')]

  it('each factory makes its error with its code and details, and the message unchanged', () => {
    expect(made.map((e) => ({ name: e.name, code: e.code, details: e.details, message: e.message }))).to.deep.equal([
      { name: 'ValidationError', code: 'DATE_UNKNOWN_TIME_ZONE', details: { zone: 'Mars/Olympus_Mons' },
        message: 'timeZone "Mars/Olympus_Mons" is not a time zone this runtime knows (use an IANA name such as "UTC" or "Europe/Berlin")' },
      { name: 'TypeError', code: 'DATE_INVALID_NOW', details: { received: 'an invalid Date' },
        message: 'now() returned an invalid Date; expected a valid Date or a millisecond timestamp' },
    ])
    expect(made.length).to.equal(Object.values(DateErrors).length)
  })

  it('the schema throws the coded error itself', () => {
    const error = thrown(() => Config({ timeZone: 'Mars/Olympus_Mons' })) as Error & { code?: string; details?: object }
    expect([error.code, error.details]).to.deep.equal(['DATE_UNKNOWN_TIME_ZONE', { zone: 'Mars/Olympus_Mons' }])
  })
})
