import { expect } from 'chai'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { postgresSocket } from './server.js'

const EXAMPLE = fileURLToPath(new URL('../../../examples/fleet/run.ts', import.meta.url))

describe('examples/fleet: two workers, the openai client and the local mock, on a PostgreSQL server (issue 22)', function () {
  this.timeout(240_000)

  it('runs: every request extends the one before (the mock checks it), and the turn that lost the race is played again after the winner\'s', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx/esm', EXAMPLE], {
      env: { ...process.env, DSH_POSTGRES_SOCKET: postgresSocket() },
    })
    const lines = stdout.trim().split('\n')
    expect(lines.at(-1)).to.equal('ok: 7 requests from two workers, each extending the one before; 16 ledger lines; 1 input played again after the other worker appended first')
    expect(lines.filter((line) => line.includes('(lost the race: reloaded and retried)'))).to.have.length(1)
  })
})
