import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import { declaredTools, exportLedger, LedgerWriter, readLedger, type LedgerStore } from 'dsh-agent'
import { bootApp, thrown, tool } from 'dsh-testing'
import { rechain } from './helpers.js'

const objects = (text: string) => text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
/** The ledger scenario as format version 2 wrote it (parts, no tools; kept as it was). */
const V2_LEDGER = readFileSync(new URL('../../cli/tests/fixtures/ledger/conversation-v2.jsonl', import.meta.url), 'utf8')

/** An app with the tool `read`. */
async function app() {
  const booted = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, tools: true, agents: true })
  booted.host.tools.register(tool('read'))
  return booted
}

/** An app with the tool `read` and an agent `a`. */
async function withTools() {
  const booted = await app()
  return { ...booted, agent: await booted.host.agents.create({ id: 'a', model: 'deepseek-chat' }) }
}

/** Which lines (by number) carry `tools`, and the tool names each carries. */
const toolLines = (text: string) => objects(text).flatMap((line, index) => line.tools === undefined ? [] : [[index + 1, (line.tools as { name: string }[]).map((t) => t.name)]])

describe('dsh-agent: the ledger records the declared tools where they change (R-LEDGER-9)', () => {
  it('the first step\'s first line carries the tool schemas as the request declared them; steps that declare the same carry none', async () => {
    const { agent } = await withTools()
    const request = await agent.step('hi')
    agent.record({ role: 'assistant', content: 'Hello.' })
    await agent.step('again')
    const ledger = exportLedger(agent)
    expect(toolLines(ledger)).to.deep.equal([[2, ['read']]])
    const parsed = readLedger(ledger)
    expect(parsed.tools).to.equal(true)
    expect(parsed.header.version).to.equal(4)
    expect(declaredTools(parsed.entries)).to.deep.equal([tool('read')])
    expect(request.tools!.map((t) => t.function.name)).to.deep.equal(['read'])
  })

  it('a tool added before a step that adds no entry is carried by the reply that answers it', async () => {
    const { host, agent } = await withTools()
    await agent.step('list the files')
    agent.record({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] })
    agent.record({ role: 'tool', tool_call_id: 'c1', content: 'a.txt' })
    host.tools.register(tool('write'))
    const request = await agent.step()
    expect(request.tools!.map((t) => t.function.name)).to.deep.equal(['read', 'write'])
    // The request added no entry: nothing carries the new list yet.
    expect(toolLines(exportLedger(agent))).to.deep.equal([[2, ['read']]])
    agent.record({ role: 'assistant', content: 'Done.' })
    const ledger = exportLedger(agent)
    expect(toolLines(ledger)).to.deep.equal([[2, ['read']], [6, ['read', 'write']]])
    expect(declaredTools(readLedger(ledger).entries).map((t) => t.name)).to.deep.equal(['read', 'write'])
  })

  it('a restored agent writes its ledger again byte for byte, and declares no change while its tools stay the same', async () => {
    const { agent } = await withTools()
    await agent.step('hi')
    agent.record({ role: 'assistant', content: 'Hello.' })
    const ledger = exportLedger(agent)
    const lines: string[] = []
    const store: LedgerStore = { append: async (added) => { lines.push(...added) }, read: async () => lines }
    const { host } = await app()
    const again = await host.agents.restore(ledger, { resume: 'authoritative' })
    expect(exportLedger(again)).to.equal(ledger)
    const writer = new LedgerWriter(again, store, { stored: 0 })
    await again.step('more')
    await writer.sync()
    expect(lines.map((line) => line + '\n').join('')).to.equal(exportLedger(again))
    expect(toolLines(exportLedger(again))).to.deep.equal([[2, ['read']]])
  })

  it('an older ledger (format version 2) reads and says it carries no tools; a restored agent goes on writing version 2', async () => {
    const parsed = readLedger(V2_LEDGER)
    expect(parsed).to.deep.include({ tools: false, parts: true })
    expect(declaredTools(parsed.entries)).to.deep.equal([])
    const { host } = await app()
    const agent = await host.agents.restore(V2_LEDGER)
    await agent.step('And now?')
    const again = exportLedger(agent)
    expect(readLedger(again)).to.deep.include({ tools: false })
    expect(objects(again).some((line) => 'tools' in line)).to.equal(false)
  })

  it('a line whose tools are not tool schemas is AGENT_LEDGER_BAD_LINE naming the line and the tool; a version 2 line with tools is refused', async () => {
    const { agent } = await withTools()
    await agent.step('hi')
    const good = objects(exportLedger(agent))
    const edited = good.map((line, index) => index === 1 ? { ...line, tools: [{ name: 'read' }, { name: 'read' }] } : line)
    const error = thrown(() => readLedger(rechain(edited))) as Error & { code: string; details: Record<string, unknown> }
    expect(error.code).to.equal('AGENT_LEDGER_BAD_LINE')
    expect(error.details.line).to.equal(2)
    expect(error.message).to.contain('tool 2: the tool "read" is declared twice')
    const older = good.map((line, index) => index === 0 ? { ...line, version: 2 } : line)
    expect(thrown(() => readLedger(rechain(older)))).to.have.property('message').that.contains('has no key "tools"')
  })

  it('format 4 records the plugin behind each declared tool (toolOwners, R-LEDGER-11); a list of another length, or owners without tools, is AGENT_LEDGER_BAD_LINE; a format-3 line with them is refused', async () => {
    const { agent } = await withTools()
    await agent.step('hi')
    const good = objects(exportLedger(agent))
    expect([good[0].version, good[1].tools !== undefined, good[1].toolOwners]).to.deep.equal([4, true, ['host']])
    expect(readLedger(rechain(good)).entries[0].toolOwners).to.deep.equal(['host'])
    const long = good.map((line, index) => index === 1 ? { ...line, toolOwners: ['host', 'other'] } : line)
    expect(thrown(() => readLedger(rechain(long)))).to.deep.include({ code: 'AGENT_LEDGER_BAD_LINE', message: 'ledger line 2: toolOwners: must be one plugin name (or null) per tool, 1 in all' })
    const alone = good.map((line, index) => index === 2 ? { ...line, toolOwners: ['host'] } : line)
    expect(thrown(() => readLedger(rechain(alone)))).to.have.property('message').that.equals('ledger line 3: toolOwners: a line has them only beside its tools')
    const three = good.map((line, index) => index === 0 ? { ...line, version: 3 } : line)
    expect(thrown(() => readLedger(rechain(three)))).to.have.property('message').that.contains('has no key "toolOwners"')
  })
})
