import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { DeploymentError, loadDeployment } from 'dsh-loader'
import { bootApp } from 'dsh-testing'

/** The one problem of a load that must fail, as `[code, message]`. */
async function refusal(file: string, options: { maxFileBytes?: number } = {}): Promise<[string | undefined, string]> {
  const { host } = await bootApp()
  try {
    await loadDeployment(host, file, { env: {}, ...options })
  } catch (error) {
    if (!DeploymentError.is(error)) throw error
    return [error.problems[0].code, error.problems[0].message]
  }
  throw new Error('the load did not fail')
}

describe('dsh-loader: what it reads as a deployment file', () => {
  let dir: string
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-file-limits-')) })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('refuses a FIFO at once, without opening it (a FIFO with no writer would wait forever)', async () => {
    const fifo = join(dir, 'deployment.yml')
    execFileSync('mkfifo', [fifo])
    expect(await refusal(fifo)).to.deep.equal(['LOADER_NOT_A_FILE', 'cannot read the deployment file: it is a FIFO, not a regular file'])
  })

  it('refuses a character device such as /dev/zero, which would otherwise be read without end', async () => {
    expect(await refusal('/dev/zero')).to.deep.equal(['LOADER_NOT_A_FILE', 'cannot read the deployment file: it is a character device, not a regular file'])
  })

  it('refuses a file over the size limit before reading it, and reads it once the limit is raised', async () => {
    const file = join(dir, 'deployment.yml')
    writeFileSync(file, 'plugins:\n  - name: dsh-system-prompt\n' + '# padding\n'.repeat(200))
    expect(await refusal(file, { maxFileBytes: 1000 })).to.deep.equal([
      'LOADER_FILE_TOO_LARGE', 'cannot read the deployment file: it is 2037 bytes, more than the limit of 1000 bytes (raise it with --max-file-size <bytes>, or maxFileBytes when loading)',
    ])
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, file, { env: {}, maxFileBytes: 4096 })
    expect(deployment.entries.map((entry) => entry.name)).to.deep.equal(['dsh-system-prompt'])
    await deployment.dispose()
  })

  it('says once that a file with CR-only line endings must be saved with LF, instead of the YAML errors that follow from it', async () => {
    const file = join(dir, 'deployment.yml')
    writeFileSync(file, 'plugins:\r  - name: dsh-system-prompt\r    config:\r      persona: Hello\r')
    expect(await refusal(file)).to.deep.equal([
      'LOADER_CR_LINE_ENDINGS', 'the deployment file ends its lines with CR alone (classic Mac OS line endings), so it reads as one line: save it with LF (or CRLF) line endings',
    ])
  })
})
