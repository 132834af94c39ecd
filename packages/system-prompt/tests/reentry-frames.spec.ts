import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect } from 'chai'

const PROBE = fileURLToPath(new URL('./reentry-frames-probe.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** Runs the probe in a process of its own: the storage is process-wide, and other tests may leave assemblies waiting. */
async function probe(): Promise<{ lone: boolean; during: boolean; chain: { started: number; code?: string; details?: unknown }; after: boolean; code?: string; details?: unknown }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx/esm', PROBE], { cwd: ROOT })
  return JSON.parse(stdout.trim().split('\n').pop()!)
}

describe('dsh-system-prompt: the re-entrancy guard\'s frames', function () {
  this.timeout(120_000)
  let result: Awaited<ReturnType<typeof probe>>
  before(async () => {
    result = await probe()
  })

  it('assemblies with listeners run one at a time never turn the async-context hook on (Node 20 makes every promise pay for it while it is on)', () => {
    expect(result.lone).to.equal(false)
  })

  it('overlapping assemblies turn it on, and it is off once they settled and the event loop turned', () => {
    expect(result.during).to.equal(true)
    expect(result.after).to.equal(false)
  })

  it('a listener that assembles its own scope again after turns of the event loop is still refused (at the third assembly: the first has no frame), after the storage went off and came back', () => {
    expect(result.after).to.equal(false)
    expect(result).to.deep.include({ code: 'PROMPT_ASSEMBLY_REENTRANT', details: { owner: 'loop-listener', depth: 3, limit: 8 } })
  })

  it('a listener that assembles a new scope from every assembly is refused at the ninth nested one (the first, which has no frame, counts), naming its plugin', () => {
    expect(result.chain).to.deep.include({ started: 8, code: 'PROMPT_ASSEMBLY_REENTRANT', details: { owner: 'chain-listener', depth: 9, limit: 8 } })
  })
})
