import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportLedger, readLedger } from 'dsh-agent'
import { bootApp } from 'dsh-testing'
import { partChanges } from '../src/commands/history-parts.js'
import { converse, harness } from '../../agent/tests/ledger-scenario.js'
import { EXAMPLE, fixture, REPO, runInProcess } from './helpers.js'

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

  it('the parts fixture (quoted in docs/cli.md) is what the ledger scenario exports today', async () => {
    const file = await scenarioLedger()
    expect(readFileSync(file, 'utf8')).to.equal(readFileSync(join(REPO, fixture('ledger/conversation-parts.jsonl')), 'utf8'))
  })

  it('a section with a blank line in it is one section, named with its owner and layer, and the break names it', async () => {
    const file = await scenarioLedger()
    const run = await runInProcess(['history', file])
    expect(run.stderr).to.equal('')
    expect(run.code).to.equal(0)
    expect(run.stdout).to.contain('sections are compared by the parts each version records (name, owner, layer, byte range, hash)')
    expect(run.stdout).to.contain([
      '  + system prompt, version 2 (line 8, 36 bytes, 1 section), per section against version 1:',
      '      first change: section "deployment:persona" (owner agent:a, layer agent:a): section text changed: "deployment:persona"',
      '      deployment:persona (owner agent:a, layer agent:a; was owner dsh-system-prompt, layer global): changed',
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

  it('on a ledger of the bundled replay, names deployment:persona and its owner (dsh-system-prompt) for the persona edit, and {{date}} for the day that rolls over', async () => {
    const ledger = join(folder, 'replay.jsonl')
    const played = await runInProcess(['replay', EXAMPLE.coding, '--script', 'examples/coding-agent/replay.yml', '--ledger', ledger])
    expect(played.code, played.stderr).to.equal(0)
    const run = await runInProcess(['history', ledger])
    expect(run.code).to.equal(0)
    expect(run.stdout).to.contain('      first change: section "deployment:persona" (owner dsh-system-prompt, layer global): section text changed: "deployment:persona"\n')
    expect(run.stdout).to.contain('      deployment:persona (owner dsh-system-prompt, layer global): changed\n')
    expect(run.stdout).to.contain('      first change: section "deployment:persona-suffix" (owner dsh-system-prompt, layer global): variable value changed ({{date}}) in section "deployment:persona-suffix"\n')
  })

  it('partChanges: a section moved (and now the agent\'s), one removed, one added, one changed, each by name with its owner', async () => {
    const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'P.' }, agents: true })
    host.systemPrompt.section({ name: 'a', order: 100, text: 'A.' })
    const b = host.systemPrompt.section({ name: 'b', order: 200, text: 'B.' })
    host.systemPrompt.section({ name: 'c', order: 300, text: 'C.' })
    const agent = await host.agents.create({ id: 'x', model: 'm' })
    await agent.step('1')
    agent.record({ role: 'assistant', content: 'ok' })
    b()
    agent.ctx.systemPrompt.section({ name: 'c', order: 50, text: 'C.' })
    agent.ctx.systemPrompt.section({ name: 'd', order: 400, text: 'D.' })
    agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'Q.' })
    await agent.step('2')
    const [v1, v2] = readLedger(exportLedger(agent)).entries.filter((line) => line.source === 'system-prompt')
    expect(partChanges(v1, v2).map(({ patch: _, ...change }) => change)).to.deep.equal([
      { kind: 'changed', section: 'deployment:persona', owner: 'agent:x', layer: 'agent:x', from: 1, to: 1, was: { owner: 'dsh-system-prompt', layer: 'global' } },
      { kind: 'moved', section: 'c', owner: 'agent:x', layer: 'agent:x', from: 4, to: 2, was: { owner: 'host', layer: 'global' } },
      { kind: 'moved', section: 'a', owner: 'host', layer: 'global', from: 2, to: 3 },
      { kind: 'added', section: 'd', owner: 'agent:x', layer: 'agent:x', from: null, to: 4 },
      { kind: 'removed', section: 'b', owner: 'host', layer: 'global', from: 3, to: null },
    ])
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
