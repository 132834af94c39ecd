import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportLedger } from 'dsh-agent'
import { converse, harness } from '../../agent/tests/ledger-scenario.js'
import { fixture, REPO, runInProcess } from './helpers.js'

/** `history` on ledgers whose versions record their parts (format version 2): sections by name and owner. */
describe('dsh-prompt history on a ledger that records its parts', () => {
  let folder: string
  beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'dsh-history-parts-')) })
  afterEach(() => rmSync(folder, { recursive: true, force: true }))

  /** The ledger scenario's conversation (its persona edit is one section with a blank line in it), as a file. */
  async function scenarioLedger(): Promise<string> {
    const { host } = await harness('append')
    const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek', cwd: '/work' })
    await converse(agent, 'openai-chat')
    const file = join(folder, 'a.jsonl')
    writeFileSync(file, exportLedger(agent))
    return file
  }

  it('a section with a blank line in it is one section, named with its owner and layer, and the break names it', async () => {
    const file = await scenarioLedger()
    const run = await runInProcess(['history', file])
    expect(run.stderr).to.equal('')
    expect(run.code).to.equal(0)
    expect(run.stdout).to.contain('sections are compared by the parts each version records (name, owner, layer, byte range, hash)')
    expect(run.stdout).to.contain([
      '  + system prompt, version 2 (line 8, 36 bytes, 1 section), per section against version 1:',
      '      cache break: section "deployment:persona" (owner agent:a, layer agent:a): section text changed: "deployment:persona"',
      '      deployment:persona (owner agent:a, layer agent:a; was owner SystemPrompt, layer global): changed',
      '        --- v1 deployment:persona',
      '        +++ v2 deployment:persona',
      '        @@ -1,1 +1,3 @@',
      '        -Be brief.',
      '        +Be careful.',
      '        +',
      '        +Check every path twice.',
    ].join('\n'))
  })

  it('--json gives each version its parts, its changes by section and the break recomputed from the ledger', async () => {
    const file = await scenarioLedger()
    const run = await runInProcess(['history', file, '--json'])
    expect(run.code).to.equal(0)
    const doc = JSON.parse(run.stdout)
    expect(doc.parts).to.equal(true)
    const [v1, v2] = doc.promptVersions
    expect(v1.comparedBy).to.equal('parts')
    expect(v1.parts.map((part: { name: string }) => part.name)).to.deep.equal(['deployment:persona'])
    expect(v2.sections).to.equal(1)
    expect(v2.break).to.deep.equal({ kind: 'section', section: 'deployment:persona', owner: 'agent:a', layer: 'agent:a', cause: 'section text changed: "deployment:persona"' })
    expect(v2.changes.map((change: { kind: string; section: string }) => [change.kind, change.section])).to.deep.equal([['changed', 'deployment:persona']])
  })

  it('an old ledger (format version 1) still reads, and says that it carries no parts', async () => {
    const ledger = join(REPO, fixture('ledger/conversation.jsonl'))
    const run = await runInProcess(['history', ledger])
    expect(run.code).to.equal(0)
    expect(run.stdout).to.contain('this ledger carries no parts (format version 1): sections are compared at blank lines')
    const json = JSON.parse((await runInProcess(['history', ledger, '--json'])).stdout)
    expect(json.parts).to.equal(false)
    expect(json.promptVersions[1].comparedBy).to.equal('blank-lines')
    expect(json.promptVersions[1].break).to.equal(null)
  })
})
