import { expect } from 'chai'
import { exportLedger, LEDGER_FORMAT, LEDGER_VERSION, readLedger, WIRE_FORMATS, type Agent, type PromptChangePolicy } from 'dsh-agent'
import { rejection, thrown } from 'dsh-testing'
import { changePersona, converse, harness } from './ledger-scenario.js'
import { rechain, sha } from './helpers.js'

const POLICIES: PromptChangePolicy[] = ['append', 'replace']

/** SHA-256 hex of the previous hash followed by the JSON of the line's other fields: the chain as the Agent Note defines it. */

async function ledgerOf(policy: PromptChangePolicy = 'append') {
  const booted = await harness(policy)
  const agent = await booted.host.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek', cwd: '/work' })
  await converse(agent, 'openai-chat')
  return { ...booted, agent, text: exportLedger(agent) }
}

const objects = (text: string) => text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)

describe('dsh-agent: the ledger (R-LEDGER)', () => {
  describe('export', () => {
    it('writes a header and one line per entry, each the JSON of its fields with a chained SHA-256 last', async () => {
      const { agent, text } = await ledgerOf()
      const lines = objects(text)
      expect(lines).to.have.length(agent.conversation.length + 1)
      expect(lines[0]).to.deep.include({ format: LEDGER_FORMAT, version: LEDGER_VERSION, agent: 'a', model: 'deepseek-chat', promptChange: 'append', provider: 'deepseek', cwd: '/work' })
      let previous = ''
      text.trimEnd().split('\n').forEach((line, i) => {
        const { hash, ...fields } = lines[i]
        expect(hash, `line ${i + 1}`).to.equal(sha(previous, fields))
        expect(line).to.equal(JSON.stringify(lines[i]))
        expect(Object.keys(lines[i]).at(-1)).to.equal('hash')
        previous = hash as string
      })
    })

    it('gives each entry its role, source, content, prompt version and usage', async () => {
      const { text } = await ledgerOf()
      const entries = objects(text).slice(1).map(({ hash: _, ...fields }) => fields)
      expect(entries.map((e) => [e.source, e.promptVersion])).to.deep.equal([
        ['system-prompt', 1], ['user', 1], ['runtime-context', 1], ['assistant', 1], ['tool', 1], ['assistant', 1],
        ['system-prompt', 2], ['user', 2], ['assistant', 2],
      ])
      expect(entries[3]).to.deep.equal({
        role: 'assistant', source: 'assistant', content: null, promptVersion: 1,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }],
        usage: { inputTokens: 40, cachedReadTokens: null, cacheWriteTokens: null, outputTokens: 7 },
      })
      expect(entries[4]).to.deep.equal({ role: 'tool', source: 'tool', content: 'hello', tool_call_id: 'c1', name: 'read', promptVersion: 1 })
      expect(entries[5].usage).to.deep.equal({ inputTokens: 1200, cachedReadTokens: 1024, cacheWriteTokens: null, outputTokens: 9 })
      const { sections, ...version2 } = entries[6] as { sections: Array<{ name: string }> }
      expect(version2).to.deep.equal({ role: 'system', source: 'system-prompt', content: 'Be careful.\n\nCheck every path twice.', promptVersion: 2 })
      expect(sections.map((part) => part.name)).to.deep.equal(['deployment:persona'])
    })

    it('is deterministic: the same record exports the same bytes, in another app too', async () => {
      const first = await ledgerOf()
      const second = await ledgerOf()
      expect(exportLedger(first.agent)).to.equal(first.text)
      expect(second.text).to.equal(first.text)
    })
  })

  describe('restore: the next request is byte-identical to the one the agent would have sent', () => {
    for (const policy of POLICIES) {
      for (const format of WIRE_FORMATS) {
        it(`${format}, promptChange ${policy}`, async () => {
          const before = await harness(policy)
          const original = await before.host.agents.create({ id: 'a', model: 'deepseek-chat', provider: 'deepseek', cwd: '/work' })
          await converse(original, format)
          const ledger = exportLedger(original)
          const expected = JSON.stringify(await original.step('One more.', { format }))

          const after = await harness(policy)
          const restored = await after.host.agents.restore(ledger)
          changePersona(restored)
          expect(exportLedger(restored)).to.equal(ledger)
          expect(JSON.stringify(await restored.step('One more.', { format }))).to.equal(expected)
          expect(exportLedger(restored)).to.equal(exportLedger(original))
        })
      }
    }

    it('restores a live agent with its scope: registered by id, agent-local registrations reach its requests, dispose ends it', async () => {
      const { text } = await ledgerOf()
      const after = await harness('append')
      const agent: Agent = await after.host.agents.restore(text)
      expect(after.host.agents.get('a')).to.equal(agent)
      expect(agent).to.include({ id: 'a', model: 'deepseek-chat', provider: 'deepseek', cwd: '/work', promptChange: 'append' })
      agent.ctx.systemPrompt.section({ name: 'notes:local', order: 500, text: 'Local note.' })
      const request = await agent.step('Go.')
      expect(request.messages.at(-2)).to.deep.include({ role: 'system' })
      expect(request.messages.at(-2)!.content).to.contain('Local note.')
      await agent.dispose()
      expect(after.host.agents.get('a')).to.equal(undefined)
    })

    it('restores the policy from the header, whatever the service default', async () => {
      const { text } = await ledgerOf('replace')
      const after = await harness('append')
      expect((await after.host.agents.restore(text)).promptChange).to.equal('replace')
    })

    it('restores from the lines of a store as from the text', async () => {
      const { text } = await ledgerOf()
      const after = await harness('append')
      const agent = await after.host.agents.restore(text.trimEnd().split('\n'))
      expect(exportLedger(agent)).to.equal(text)
    })
  })

  describe('a tampered or damaged ledger is refused with its line number, and nothing is restored', () => {
    /** The refusal of `text` by restore (which must leave no agent behind) and by readLedger alike. */
    async function refusal(text: string | string[], options = {}) {
      const after = await harness('append')
      const error = await rejection(after.host.agents.restore(text, options))
      expect(after.host.agents.list()).to.deep.equal([])
      const code = (error as { code?: string }).code
      if (code !== 'AGENT_LEDGER_INVALID_ENTRY') expect(thrown(() => readLedger(text, options))).to.include({ code, message: error.message })
      return error as Error & { code: string; details: { line: number } }
    }
    const lines = (text: string) => text.trimEnd().split('\n')
    const join = (items: string[]) => items.map((line) => line + '\n').join('')

    it('a changed line: AGENT_LEDGER_HASH_MISMATCH at that line', async () => {
      const { text } = await ledgerOf()
      const items = lines(text)
      items[2] = items[2].replace('Read a.txt.', 'Delete a.txt.')
      const error = await refusal(join(items))
      expect(error).to.include({ code: 'AGENT_LEDGER_HASH_MISMATCH', message: 'ledger line 3: the hash does not match: this line was changed, or a line before it was removed or moved' })
      expect(error.details).to.deep.equal({ line: 3 })
    })

    it('a changed header (another model): AGENT_LEDGER_HASH_MISMATCH at line 1', async () => {
      const { text } = await ledgerOf()
      const items = lines(text)
      items[0] = items[0].replace('deepseek-chat', 'deepseek-reasoner')
      expect((await refusal(join(items))).details).to.deep.equal({ line: 1 })
    })

    it('a removed line: AGENT_LEDGER_HASH_MISMATCH at the line that now follows the gap', async () => {
      const { text } = await ledgerOf()
      const items = lines(text)
      items.splice(4, 1)
      expect(await refusal(join(items))).to.deep.include({ code: 'AGENT_LEDGER_HASH_MISMATCH', details: { line: 5 } })
    })

    it('two lines swapped: AGENT_LEDGER_HASH_MISMATCH at the first of them', async () => {
      const { text } = await ledgerOf()
      const items = lines(text)
      ;[items[5], items[6]] = [items[6], items[5]]
      expect(await refusal(join(items))).to.deep.include({ code: 'AGENT_LEDGER_HASH_MISMATCH', details: { line: 6 } })
    })

    it('a file truncated mid-line: AGENT_LEDGER_CUT_SHORT at its last line', async () => {
      const { text } = await ledgerOf()
      const cut = text.slice(0, text.length - 20)
      const error = await refusal(cut)
      expect(error).to.deep.include({ code: 'AGENT_LEDGER_CUT_SHORT', details: { line: 10 } })
      expect(error.message).to.match(/^ledger line 10: the last line is cut short/)
    })

    it('a last line without its line break is cut short too (a write that stopped just before it)', async () => {
      const { text } = await ledgerOf()
      expect(await refusal(text.slice(0, -1))).to.deep.include({ code: 'AGENT_LEDGER_CUT_SHORT', details: { line: 10 } })
    })

    it('a last store row that is not complete JSON is cut short; an earlier one is not JSON', async () => {
      const { text } = await ledgerOf()
      const items = lines(text)
      expect(await refusal([...items.slice(0, -1), items.at(-1)!.slice(0, 30)])).to.deep.include({ code: 'AGENT_LEDGER_CUT_SHORT', details: { line: 10 } })
      items[3] = items[3].slice(0, 30)
      const error = await refusal(items)
      expect(error).to.deep.include({ code: 'AGENT_LEDGER_NOT_JSON' })
      expect(error.details.line).to.equal(4)
      expect(error.message).to.match(/^ledger line 4: not JSON \(/)
    })

    it('a missing final line is refused when the caller kept the head hash (the chain alone cannot tell)', async () => {
      const { text, agent } = await ledgerOf()
      const head = objects(text).at(-1)!.hash as string
      const items = lines(text).slice(0, -1)
      const error = await refusal(join(items), { head })
      expect(error).to.deep.include({ code: 'AGENT_LEDGER_MISSING_LINES', details: { line: 10, head } })
      expect(error.message).to.equal(`ledger line 10: missing: the ledger ends at line 9 and no line has the expected head hash ${head.slice(0, 12)}…, so its last lines were lost`)
      // Without the head it restores what is there; with a head further back, the lines after it are welcome.
      const after = await harness('append')
      expect((await after.host.agents.restore(join(items))).conversation).to.have.length(agent.conversation.length - 1)
      const earlier = objects(text)[5].hash as string
      const again = await harness('append')
      expect((await again.host.agents.restore(text, { head: earlier })).conversation).to.have.length(agent.conversation.length)
    })

    it('a wrong header: AGENT_LEDGER_BAD_HEADER at line 1 (removed, another format version, empty)', async () => {
      const { text } = await ledgerOf()
      const removed = await refusal(join(lines(text).slice(1)))
      expect(removed).to.deep.include({ code: 'AGENT_LEDGER_BAD_HEADER', details: { line: 1, problem: 'expected "format": "dsh-ledger" on the first line, found no format (was the header removed?)' } })
      const all = objects(text)
      all[0].version = 5
      all[0].tokenizer = 'o200k_base' // a later version's key: the version is what is reported
      expect((await refusal(rechain(all))).message).to.equal('ledger line 1: not a dsh ledger header: version 5 is not one this version of dsh-agent reads (1, 2, 3, 4)')
      expect(await refusal('')).to.deep.include({ code: 'AGENT_LEDGER_BAD_HEADER', details: { line: 1, problem: 'the ledger is empty' } })
    })

    it('a line rewritten with whitespace but the same fields: AGENT_LEDGER_BAD_LINE (only the written form is accepted)', async () => {
      const { text } = await ledgerOf()
      const items = lines(text)
      items[1] = JSON.stringify(JSON.parse(items[1]), null, 1).replace(/\n/g, '')
      expect(await refusal(join(items))).to.deep.include({ code: 'AGENT_LEDGER_BAD_LINE', details: { line: 2, problem: 'the line is not written the way the ledger writes lines (JSON without whitespace, "hash" last)' } })
    })

    it('a re-chained line with a wrong prompt version, role or key: AGENT_LEDGER_BAD_LINE naming it', async () => {
      const { text } = await ledgerOf()
      const cases: Array<[(all: Array<Record<string, unknown>>) => void, string]> = [
        [(all) => { all[3].promptVersion = 2 }, 'promptVersion is 2, but the lines before it hold 1 system-prompt version'],
        [(all) => { all[3].role = 'system' }, 'a runtime-context entry has role "user", found "system"'],
        [(all) => { all[3].tool_calls = [] }, 'a runtime-context entry has no key "tool_calls"'],
        [(all) => { all[3].source = 'memory' }, 'unknown source "memory" (expected one of system-prompt, user, runtime-context, assistant, tool)'],
      ]
      for (const [edit, problem] of cases) {
        const all = objects(text)
        edit(all)
        expect(await refusal(rechain(all))).to.deep.include({ code: 'AGENT_LEDGER_BAD_LINE', details: { line: 4, problem } })
      }
    })

    it('a re-chained reply that record() refuses: AGENT_LEDGER_INVALID_ENTRY with record()\'s problem, and the created agent is gone again', async () => {
      const { text } = await ledgerOf()
      const all = objects(text)
      all[4].content = 42
      const error = await refusal(rechain(all))
      expect(error).to.deep.include({ code: 'AGENT_LEDGER_INVALID_ENTRY', details: { line: 5, problem: 'assistant content must be a string or null' } })
      expect(error.message).to.equal('ledger line 5: the entry cannot be recorded: assistant content must be a string or null')
      const usage = objects(text)
      usage[5].usage = { inputTokens: 1, cachedReadTokens: null, cacheWriteTokens: null, outputTokens: 1 }
      expect((await refusal(rechain(usage))).details).to.deep.equal({ line: 6, problem: 'usage belongs to an assistant reply, not a tool result' })
    })

    it('an agent of the same id that is live already refuses the restore as create() does', async () => {
      const { text, host } = await ledgerOf()
      expect(await rejection(host.agents.restore(text))).to.include({ code: 'AGENT_DUPLICATE_ID' })
    })
  })
})
