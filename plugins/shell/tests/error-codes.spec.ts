import { expect } from 'chai'
import { Config, ShellErrors } from 'dsh-plugin-shell'
import { thrown } from 'dsh-testing'

describe('dsh-plugin-shell: every config error carries a stable code and the fields it is about', () => {
  const made = [ShellErrors.timeoutAboveMax(700_000, 600_000), ShellErrors.emptyText('description')]

  it('each factory makes a ValidationError with its code and details, and the message unchanged', () => {
    expect(made.map((e) => ({ name: e.name, code: e.code, details: e.details, message: e.message }))).to.deep.equal([
      { name: 'ValidationError', code: 'SHELL_TIMEOUT_ABOVE_MAX', details: { defaultTimeoutMs: 700_000, maxTimeoutMs: 600_000 },
        message: 'defaultTimeoutMs (700000) must not exceed maxTimeoutMs (600000)' },
      { name: 'ValidationError', code: 'SHELL_EMPTY_TEXT', details: { key: 'description' }, message: 'description must not be empty (leave it out to keep the built-in text)' },
    ])
    expect(made.length).to.equal(Object.values(ShellErrors).length)
  })

  it('the schema throws the coded error itself', () => {
    const error = thrown(() => Config({ guidance: ' ' })) as Error & { code?: string; details?: object }
    expect([error.code, error.details]).to.deep.equal(['SHELL_EMPTY_TEXT', { key: 'guidance' }])
  })
})
