import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { exportLedger, firstSectionBreak, partText, readLedger, WIRE_FORMATS, type LedgerLine, type PromptChangePolicy } from 'dsh-agent'
import { bootApp, rejection, thrown } from 'dsh-testing'
import { changePersona, converse, harness } from './ledger-scenario.js'
import { rechain } from './helpers.js'

const hex = (text: string) => createHash('sha256').update(text).digest('hex')
const objects = (text: string) => text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
/** The ledger scenario as format version 1 wrote it, before versions recorded their parts (kept as it was). */
const OLD_LEDGER = readFileSync(new URL('../../cli/tests/fixtures/ledger/conversation.jsonl', import.meta.url), 'utf8')

/** An app whose prompt has a section with a blank line in it, one with a {{variable}}, and the persona; `day` is the variable's value. */
async function sectioned(promptChange: PromptChangePolicy) {
  const booted = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, agents: { promptChange } })
  const state = { day: 'Monday' }
  booted.host.systemPrompt.variable('day', () => state.day)
  booted.host.systemPrompt.section({ name: 'rules', order: 100, text: 'Rule one.\n\nRule two: é and 😀.' })
  booted.host.systemPrompt.section({ name: 'today', order: 200, text: 'Today is {{day}}.' })
  return { ...booted, state }
}

const versionsOf = (text: string): LedgerLine[] => readLedger(text).entries.filter((line) => line.source === 'system-prompt')

describe('dsh-agent: the ledger records the parts of each system-prompt version (R-LEDGER-7)', () => {
  it('each part names its section, owner and layer, cuts the version at its byte range, and carries the hashes of its text, template and variables', async () => {
    const { host } = await sectioned('append')
    const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
    agent.ctx.systemPrompt.section({ name: 'local', order: 300, text: 'Only for a.' })
    await agent.step('hi')
    const [version] = versionsOf(exportLedger(agent))
    const content = version.content as string
    expect(version.sections!.map((part) => [part.name, part.owner, part.layer])).to.deep.equal([
      ['deployment:persona', 'dsh-system-prompt', 'global'], ['rules', 'host', 'global'], ['today', 'host', 'global'], ['local', 'agent:a', 'agent:a'],
    ])
    expect(version.sections!.map((part) => partText(content, part))).to.deep.equal(['Be brief.', 'Rule one.\n\nRule two: é and 😀.', 'Today is Monday.', 'Only for a.'])
    for (const part of version.sections!) expect(part.hash).to.equal(hex(partText(content, part)))
    const today = version.sections![2]
    expect(today).to.deep.include({ template: hex('Today is {{day}}.'), variables: [['day', hex('Monday')]] })
    expect(version.sections![1]).to.not.have.property('variables')
    expect(version.sections!.at(-1)!.end).to.equal(Buffer.byteLength(content))
  })

  it('an old ledger (format version 1) still reads, says it carries no parts, and a restored agent goes on writing version 1', async () => {
    const parsed = readLedger(OLD_LEDGER)
    expect(parsed.parts).to.equal(false)
    expect(parsed.header.version).to.equal(1)
    expect(parsed.entries.filter((line) => line.sections !== undefined)).to.deep.equal([])
    const { host } = await harness('append')
    const agent = await host.agents.restore(OLD_LEDGER)
    changePersona(agent) // the restarted harness registers the mid-way change again
    expect(exportLedger(agent)).to.equal(OLD_LEDGER)
    agent.ctx.systemPrompt.section({ name: 'later', order: 50, text: 'A later section.' })
    await agent.step('And now?')
    const again = exportLedger(agent)
    expect(again.startsWith(OLD_LEDGER)).to.equal(true)
    expect(readLedger(again)).to.deep.include({ parts: false })
    expect(objects(again).some((line) => 'sections' in line)).to.equal(false)
  })

  it('a restored ledger of version 2 exports again byte for byte, its parts included', async () => {
    const { host } = await harness('append')
    const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek', cwd: '/work' })
    await converse(agent, 'openai-chat')
    const text = exportLedger(agent)
    expect(readLedger(text).parts).to.equal(true)
    const later = await harness('append')
    expect(exportLedger(await later.host.agents.restore(text))).to.equal(text)
  })

  it('refuses parts that do not fit their version: AGENT_LEDGER_BAD_LINE naming the line and the part', async () => {
    const { host } = await sectioned('append')
    const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
    await agent.step('hi')
    const text = exportLedger(agent)
    const forged = (change: (parts: Array<Record<string, unknown>>) => void) => {
      const all = objects(text)
      change(all[1].sections as Array<Record<string, unknown>>)
      return rechain(all)
    }
    const problems = [
      forged((parts) => { parts[1].hash = hex('Rule one.') }),
      forged((parts) => { parts[1].start = (parts[1].start as number) + 1 }),
      forged((parts) => { parts.pop() }),
      forged((parts) => { parts[2].name = 'rules' }),
    ].map((ledger) => thrown(() => readLedger(ledger)) as Error & { code: string; details: { line: number; problem: string } })
    expect(problems.map((error) => [error.code, error.details.line, error.details.problem])).to.deep.equal([
      ['AGENT_LEDGER_BAD_LINE', 2, 'sections: part 2 ("rules"): "hash" is not the SHA-256 of bytes 11-44 of the version\'s text'],
      ['AGENT_LEDGER_BAD_LINE', 2, 'sections: part 2 ("rules"): "start" must be 11 (the byte after the previous part and the blank line that joins them), found 12'],
      ['AGENT_LEDGER_BAD_LINE', 2, 'sections: the parts cover 44 of the version\'s 62 bytes'],
      ['AGENT_LEDGER_BAD_LINE', 2, 'sections: part 3: the section "rules" is named twice'],
    ])
    const later = await bootApp({ systemPrompt: true, agents: true })
    expect(await rejection(later.host.agents.restore(forged((parts) => { parts[0].owner = 7 })))).to.deep.include({ code: 'AGENT_LEDGER_BAD_LINE' })
  })

  for (const format of WIRE_FORMATS) {
    it(`the break recomputed from the ledger alone equals the report's, for every section change (${format}, replace)`, async () => {
      const { host, state } = await sectioned('replace')
      const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
      const breaks: unknown[] = []
      const step = async (input: string) => {
        const result = await agent.stepDetailed(input, { format })
        agent.record({ role: 'assistant', content: `re: ${input}` })
        const cut = result.report.breaks[0]
        if (cut?.kind === 'section') breaks.push({ kind: cut.kind, section: cut.section, owner: cut.owner, layer: cut.layer, cause: cut.cause })
      }
      await step('one')
      state.day = 'Tuesday'
      await step('two')
      const extra = agent.ctx.systemPrompt.section({ name: 'extra', order: 150, text: 'Extra.' })
      await step('three')
      changePersona(agent)
      await step('four')
      extra()
      await step('five')
      const versions = versionsOf(exportLedger(agent))
      const recomputed = versions.slice(1).map((version, i) => firstSectionBreak(versions[i].sections!, version.sections!))
      expect(recomputed).to.deep.equal(breaks)
      expect(breaks.map((cut) => (cut as { cause: string }).cause)).to.deep.equal([
        'variable value changed ({{day}}) in section "today"', 'section added: "extra"', 'section text changed: "deployment:persona"', 'section removed: "extra"',
      ])
    })
  }
})

