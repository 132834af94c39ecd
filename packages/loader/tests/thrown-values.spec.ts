import { expect } from 'chai'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DeploymentError, LoaderErrors, loadDeployment } from 'dsh-loader'
import { bootApp, rejection } from 'dsh-testing'
import { fixture } from './helpers.js'

describe('dsh-loader: an apply that throws something other than an Error', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dsh-thrown-'))
  const cases: Array<[string, string]> = [
    // Cordis wraps what apply throws before the loader sees it: undefined becomes an Error with no
    // message, and the values it cannot convert are lost (its own TypeError is what arrives).
    ['undefined', 'an Error with no message (Cordis turns a thrown undefined into one)'],
    ['symbol', 'a value that is not an Error was thrown, and Cordis could not turn it into one (a Symbol, a null-prototype object or a revoked Proxy?)'],
    ['null-prototype', 'a value that is not an Error was thrown, and Cordis could not turn it into one (a Symbol, a null-prototype object or a revoked Proxy?)'],
    ['revoked', 'a value that is not an Error was thrown, and Cordis could not turn it into one (a Symbol, a null-prototype object or a revoked Proxy?)'],
    ['empty-error', 'an Error with no message (Cordis turns a thrown undefined into one)'],
  ]
  for (const [kind, described] of cases) {
    it(`describes a thrown ${kind} readably, naming the row`, async () => {
      const file = join(folder, `${kind}.yml`)
      writeFileSync(file, `plugins:\n  - name: ${JSON.stringify(fixture('plugins/throws-value.ts'))}\n    id: thrower\n    config: { kind: ${kind} }\n`)
      const { host } = await bootApp()
      const error = await rejection(() => loadDeployment(host, file))
      expect(error).to.be.instanceOf(DeploymentError)
      const problem = (error as DeploymentError).problems[0]
      expect(problem.code).to.equal('LOADER_APPLY_FAILED')
      expect(problem.message).to.equal(`apply failed: ${described}`)
      expect(error.message).to.include('(id "thrower"): apply failed: ')
    })
  }

  it('describeError describes every thrown value it is handed directly, and never throws', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect([undefined, Symbol('odd'), Object.create(null), proxy, 'boom', 42].map(LoaderErrors.describeError)).to.deep.equal([
      'undefined was thrown, not an Error', 'a symbol (Symbol(odd)) was thrown, not an Error', 'an object was thrown, not an Error',
      'an unreadable value (a revoked Proxy?) was thrown, not an Error', 'boom', '42',
    ])
  })
})
