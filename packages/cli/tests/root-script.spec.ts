import { basename } from 'node:path'
import { expect } from 'chai'
import { EXAMPLE, run } from './helpers.js'

/** Yarn as the test run was started with (`yarn test` sets npm_execpath), else the `yarn` on PATH. */
const YARN = process.env.npm_execpath && basename(process.env.npm_execpath) === 'yarn' ? process.env.npm_execpath : 'yarn'

describe('yarn dsh-prompt from the repository root', function () {
  this.timeout(60000)

  it('runs the CLI from its TypeScript sources, so it works right after install, before any build', async () => {
    const result = await run(YARN, ['dsh-prompt', 'check', EXAMPLE.minimal], { timeout: 30000 })
    expect(result.stderr).to.equal('')
    expect([result.code, result.stdout]).to.deep.equal([0, 'ok: examples/minimal/deployment.yml: 2 plugins; 1 agent (assistant) assembled, rendered twice and checked: no problem found\n'])
  })
})
