import { expect } from 'chai'
import { Config, PolicyErrors } from 'dsh-plugin-policies'
import { thrown } from 'dsh-testing'

describe('dsh-plugin-policies: every config error carries a stable code and the fields it is about', () => {
  const made = [
    PolicyErrors.emptyText('plan'),
    PolicyErrors.rootsNeedWorkspaceWrite(undefined),
    PolicyErrors.relativeRoot(1, 'src'),
    PolicyErrors.repeatedRoot('/srv/app'),
  ]

  it('each factory makes a ValidationError with its code and details, and the message unchanged', () => {
    expect(made.map((e) => ({ name: e.name, code: e.code, details: e.details, message: e.message }))).to.deep.equal([
      { name: 'ValidationError', code: 'POLICIES_EMPTY_TEXT', details: { part: 'plan' }, message: 'plan.text must not be empty (set plan.enabled: false to leave it out)' },
      { name: 'ValidationError', code: 'POLICIES_ROOTS_NEED_WORKSPACE_WRITE', details: { mode: undefined },
        message: 'sandbox.writableRoots only applies when sandbox.mode is "workspace-write" (sandbox.mode is not set)' },
      { name: 'ValidationError', code: 'POLICIES_RELATIVE_ROOT', details: { index: 1, root: 'src' },
        message: 'sandbox.writableRoots[1] "src" is not an absolute path (write /srv/app, C:\\work, or a variable such as {{cwd}})' },
      { name: 'ValidationError', code: 'POLICIES_REPEATED_ROOT', details: { root: '/srv/app' }, message: 'sandbox.writableRoots lists "/srv/app" more than once' },
    ])
    expect(made.length).to.equal(Object.values(PolicyErrors).length)
    expect(new Set(made.map((e) => e.code)).size).to.equal(made.length)
  })

  it('the schema throws the coded error itself', () => {
    const error = thrown(() => Config({ sandbox: { mode: 'workspace-write', writableRoots: ['src'] } })) as Error & { code?: string; details?: object }
    expect([error.code, error.details]).to.deep.equal(['POLICIES_RELATIVE_ROOT', { index: 0, root: 'src' }])
  })
})
