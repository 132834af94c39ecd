import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MAX_RENDERED_CHARS } from 'dsh-system-prompt'
import { assertBuilt, cli } from './helpers.js'

// Issue 20, item 8: `check` passed a deployment whose render fails: 100,000 {{model}} references with a
// 6 KB model name made `render` fail with V8's `RangeError: Invalid string length`, no code, no section.

describe('dsh-prompt: a prompt that renders past the size a rendered text may hold', function () {
  this.timeout(60_000)
  before(assertBuilt)
  let dir: string
  let file: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-render-size-'))
    file = join(dir, 'deployment.yml')
    writeFileSync(file, [
      'plugins:',
      '  - name: dsh-system-prompt',
      '    config:',
      '      includeHarnessIdentity: false',
      `      persona: '${'Model {{model}}. '.repeat(100_000)}'`,
      '  - name: dsh-tools',
      '  - name: dsh-agent',
      'agents:',
      `  - { id: main, model: ${'m'.repeat(6 * 1024)} }`,
    ].join('\n') + '\n')
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('check reports PROMPT_TEXT_TOO_LONG for the agent, naming the section and the variable', async () => {
    const run = await cli(['check', file, '--json'])
    expect(run.code).to.equal(1)
    const problems = JSON.parse(run.stdout).problems as Array<{ code: string; message: string }>
    const problem = problems.find((p) => p.code === 'PROMPT_TEXT_TOO_LONG')
    expect(problem?.message).to.contain(`section "deployment:persona" renders to more than ${MAX_RENDERED_CHARS} characters at "{{model}}"`)
  })

  it('render fails with CLI_RENDER_FAILED naming the section and the variable, not with a RangeError', async () => {
    const run = await cli(['render', file, '--json'])
    expect(run.code).to.equal(1)
    const { error } = JSON.parse(run.stdout)
    expect(error.code).to.equal('CLI_RENDER_FAILED')
    expect(error.message).to.equal(`cannot render agent "main": section "deployment:persona" renders to more than ${MAX_RENDERED_CHARS} characters at "{{model}}" (its value has 6144 characters and the text references it 100000 times), more than a rendered text may hold (run "dsh-prompt check" to list every problem)`)
  })
})
