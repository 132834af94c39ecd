import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect } from 'chai'
import { ABSENT_MESSAGE, loadOpenTelemetry } from 'dsh-plugin-telemetry'
import { rejection } from 'dsh-testing'

const run = promisify(execFile)
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

describe('dsh-plugin-telemetry without OpenTelemetry installed (issue 23, item 5)', () => {
  it('loads, logs one info line, registers no listener and lets the agent step and record', async function () {
    this.timeout(60_000) // a child Node process compiling TypeScript through tsx; bounds a hang only
    const { stdout } = await run(process.execPath, ['--conditions=source', '--import', 'tsx/esm', '--import', fixture('hide-otel.mjs'), fixture('absent-step.ts')], { cwd: fileURLToPath(new URL('../../..', import.meta.url)) })
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>
    expect(seen).to.deep.equal({
      resolvable: false,
      before: { step: 0, usage: 0 },
      after: { step: 0, usage: 0 },
      messages: 2,
      logs: [`info dsh-plugin-telemetry: ${ABSENT_MESSAGE}`],
    })
  })

  it('takes a module that cannot be resolved as absent', async () => {
    const missing = Object.assign(new Error('Cannot find package \'@opentelemetry/api\''), { code: 'ERR_MODULE_NOT_FOUND' })
    expect(await loadOpenTelemetry(() => Promise.reject(missing))).to.equal(undefined)
  })

  it('throws any other failure of the import: a broken install is not an absent one', async () => {
    const broken = Object.assign(new SyntaxError('Unexpected token'), { code: undefined })
    expect(await rejection(loadOpenTelemetry(() => Promise.reject(broken)))).to.equal(broken)
  })
})
