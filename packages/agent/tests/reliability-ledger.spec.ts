import { expect } from 'chai'
import fc from 'fast-check'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportLedger, FileLedgerStore, LedgerWriter, readLedger, WIRE_FORMATS, type RecordedMessage } from 'dsh-agent'
import { rejection, thrown } from 'dsh-testing'
import { converse, harness } from './ledger-scenario.js'
import { rechain } from './helpers.js'

// Issue 20, items 3, 4 and 10 (usage): ledgers that could be corrupted through the API.


const objects = (text: string) => text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)

async function conversation() {
  const booted = await harness('append')
  const agent = await booted.host.agents.create({ id: 'a', model: 'deepseek-chat' })
  await converse(agent, 'openai-chat')
  return { ...booted, agent, text: exportLedger(agent) }
}

describe('dsh-agent: ledgers that cannot be corrupted (issue 20)', () => {
  let folder: string
  beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'dsh-ledger-hostile-')) })
  afterEach(() => rmSync(folder, { recursive: true, force: true }))

  describe('one canonical form', () => {
    // Line 5 is the reply with a tool call: role, source, promptVersion, content, tool_calls, usage, hash.
    const edits: Array<[string, (all: Array<Record<string, unknown>>) => void, number, string]> = [
      ['fields out of the documented order', (all) => { const { role, source, ...rest } = all[4]; all[4] = { source, role, ...rest } }, 5,
        'its keys are source, role, promptVersion, content, tool_calls, usage; the ledger writes role, source, promptVersion, content, tool_calls, usage'],
      ['an assistant line without content', (all) => { delete all[4].content }, 5,
        'its keys are role, source, promptVersion, tool_calls, usage; the ledger writes role, source, promptVersion, content, tool_calls, usage'],
      ['an assistant line with tool_calls: [] beside its content', (all) => { all[all.findIndex((item) => item.content === 'It says hello.')].tool_calls = [] }, 7,
        'its keys are role, source, promptVersion, content, usage, tool_calls; the ledger writes role, source, promptVersion, content, usage'],
      ['usage figures out of their order', (all) => { const { outputTokens, ...rest } = all[4].usage as Record<string, unknown>; all[4].usage = { outputTokens, ...rest } }, 5,
        'a value is not written as the record keeps it ("usage" should be {"inputTokens":40,"cachedReadTokens":null,"cacheWriteTokens":null,"outputTokens":7})'],
      ['a header whose keys are out of order', (all) => { const { format, version, ...rest } = all[0]; all[0] = { version, format, ...rest } }, 1,
        'its keys are version, format, agent, model, promptChange; the ledger writes format, version, agent, model, promptChange'],
    ]
    for (const [what, edit, line, problem] of edits) {
      it(`refuses a hash-valid line with ${what}: AGENT_LEDGER_NOT_CANONICAL naming the line, in readLedger and restore`, async () => {
        const { text, host, agent } = await conversation()
        await agent.dispose()
        const all = objects(text)
        edit(all)
        const forged = rechain(all)
        expect(thrown(() => readLedger(forged))).to.deep.include({ code: 'AGENT_LEDGER_NOT_CANONICAL', details: { line, problem } })
        expect(await rejection(host.agents.restore(forged))).to.deep.include({ code: 'AGENT_LEDGER_NOT_CANONICAL', details: { line, problem } })
        expect(host.agents.get('a')).to.equal(undefined)
      })
    }

    it('a restored agent\'s writer appends lines the file chains: the next restart reads the whole file', async () => {
      const { text, agent } = await conversation()
      await agent.dispose()
      const path = join(folder, 'a.jsonl')
      writeFileSync(path, text)
      const next = await harness('append')
      const lines = await new FileLedgerStore(path).read()
      const restored = await next.host.agents.restore(lines)
      const writer = new LedgerWriter(restored, new FileLedgerStore(path), { stored: lines.length })
      await restored.step('More.')
      await writer.sync()
      await restored.dispose()
      const again = await harness('append')
      expect((await again.host.agents.restore(await new FileLedgerStore(path).read())).conversation.length).to.equal(objects(readFileSync(path, 'utf8')).length - 1)
    })
  })

  describe('one writer per ledger', () => {
    it('refuses a writer on a restored agent without { stored }: AGENT_LEDGER_WRITER_NEEDS_STORED', async () => {
      const { text, agent } = await conversation()
      await agent.dispose()
      const next = await harness('append')
      const restored = await next.host.agents.restore(text)
      const lines = objects(text).length
      expect(thrown(() => new LedgerWriter(restored, new FileLedgerStore(join(folder, 'a.jsonl')))))
        .to.deep.include({ code: 'AGENT_LEDGER_WRITER_NEEDS_STORED', details: { id: 'a', restored: lines } })
      expect(() => new LedgerWriter(restored, new FileLedgerStore(join(folder, 'copy.jsonl')), { stored: 0 })).not.to.throw()
    })

    it('refuses a second writer of the same agent on the same file or store: AGENT_LEDGER_WRITER_EXISTS', async () => {
      const { agent } = await conversation()
      const path = join(folder, 'a.jsonl')
      const first = new LedgerWriter(agent, new FileLedgerStore(path))
      await first.sync()
      expect(thrown(() => new LedgerWriter(agent, new FileLedgerStore(path), { stored: first.lines })))
        .to.deep.include({ code: 'AGENT_LEDGER_WRITER_EXISTS', details: { id: 'a', store: `file ${JSON.stringify(path)}` } })
      const lines: string[] = []
      const store = { append: async (more: readonly string[]) => { lines.push(...more) }, read: async () => lines }
      new LedgerWriter(agent, store)
      expect(thrown(() => new LedgerWriter(agent, store))).to.include({ code: 'AGENT_LEDGER_WRITER_EXISTS' })
    })

    it('a writer whose chain does not end where the store does appends nothing: AGENT_LEDGER_STORE_MISMATCH (another process, a wrong stored)', async () => {
      const { agent } = await conversation()
      const path = join(folder, 'a.jsonl')
      const first = new LedgerWriter(agent, new FileLedgerStore(path))
      await first.sync()
      const before = readFileSync(path, 'utf8')
      // Another process (here: another app) with an agent of the same id, writing to the same file.
      const other = await conversation()
      const second = new LedgerWriter(other.agent, new FileLedgerStore(path))
      const error = await rejection(second.sync())
      expect(error).to.deep.include({ code: 'AGENT_LEDGER_STORE_MISMATCH', details: { id: 'a', expected: { lines: 0, head: '' }, found: { lines: first.lines, head: first.head } } })
      expect(readFileSync(path, 'utf8')).to.equal(before)
      // A restored agent with a stored count that is not the file's.
      await other.agent.dispose()
      const restored = await other.host.agents.restore(before)
      const wrong = new LedgerWriter(restored, new FileLedgerStore(path), { stored: 3 })
      await restored.step('More.')
      expect(await rejection(wrong.sync())).to.include({ code: 'AGENT_LEDGER_STORE_MISMATCH' })
      expect(readFileSync(path, 'utf8')).to.equal(before)
    })
  })

  describe('the end of a ledger file', () => {
    it('dropCutShortLine keeps a complete, hash-valid last line that lacks only its line break, and gives it one', async () => {
      const { text } = await conversation()
      const path = join(folder, 'a.jsonl')
      writeFileSync(path, text.slice(0, -1))
      const lines = await new FileLedgerStore(path, { dropCutShortLine: true }).read()
      expect(lines.length).to.equal(objects(text).length)
      expect(readFileSync(path, 'utf8')).to.equal(text)
      expect(readLedger(lines).entries.length).to.equal(lines.length - 1)
    })

    it('dropCutShortLine still drops a last line that is not complete JSON', async () => {
      const { text } = await conversation()
      const path = join(folder, 'a.jsonl')
      writeFileSync(path, text.slice(0, -20))
      const lines = await new FileLedgerStore(path, { dropCutShortLine: true }).read()
      expect(lines.length).to.equal(objects(text).length - 1)
      expect(readFileSync(path, 'utf8')).to.equal(text.split('\n').slice(0, -2).map((line) => line + '\n').join(''))
    })

    it('names a trailing blank line exactly (AGENT_LEDGER_BLANK_LINE), never appends after it, and dropCutShortLine cuts it off', async () => {
      const { text, agent } = await conversation()
      const path = join(folder, 'a.jsonl')
      writeFileSync(path, text)
      appendFileSync(path, '\n')
      const blank = objects(text).length + 1
      expect(await rejection(new FileLedgerStore(path).read())).to.deep.include({ code: 'AGENT_LEDGER_BLANK_LINE', details: { line: blank, last: true } })
      expect(thrown(() => readLedger(text + '\n'))).to.deep.include({ code: 'AGENT_LEDGER_BLANK_LINE', details: { line: blank, last: true } })
      const writer = new LedgerWriter(agent, new FileLedgerStore(path), { stored: blank - 1 })
      await agent.step('More.')
      expect(await rejection(writer.sync())).to.deep.include({ code: 'AGENT_LEDGER_BLANK_LINE', details: { line: blank, last: true } })
      expect(readFileSync(path, 'utf8')).to.equal(text + '\n')
      expect(await new FileLedgerStore(path, { dropCutShortLine: true }).read()).to.deep.equal(text.trimEnd().split('\n'))
      expect(readFileSync(path, 'utf8')).to.equal(text)
    })
  })

  describe('malformed tool calls and usage', () => {
    const replies: Array<[string, unknown, string]> = [
      ['tool_calls: [null]', [null], 'tool_calls[0] must be a tool call object ({ id, type, function: { name, arguments } }), found null'],
      ['tool_calls: [{}]', [{}], 'tool_calls[0].id must be a non-empty string'],
      ['a call without its function', [{ id: 'c', type: 'function' }], 'tool_calls[0].function must be an object with name and arguments'],
      ['a call of an unknown type', [{ id: 'c', type: 'magic', function: { name: 'read', arguments: '{}' } }], 'tool_calls[0].type must be one of "function", "custom", found "magic"'],
      ['arguments that are an object', [{ id: 'c', type: 'function', function: { name: 'read', arguments: { path: 'a' } } }],
        'tool_calls[0].function.arguments must be a string (the JSON text the model wrote)'],
      ['a call carrying a toJSON', [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{}' }, toJSON: () => ({}) }], 'tool_calls[0].toJSON is a function (not JSON data)'],
    ]
    for (const [what, calls, problem] of replies) {
      it(`record() refuses ${what}, naming the entry, and every format still steps`, async () => {
        const { agent } = await conversation()
        const before = agent.conversation.length
        expect(thrown(() => agent.record({ role: 'assistant', content: null, tool_calls: calls } as RecordedMessage)))
          .to.deep.include({ code: 'AGENT_INVALID_RECORD', details: { id: 'a', problem } })
        expect(agent.conversation.length).to.equal(before)
        for (const format of WIRE_FORMATS) await agent.step('Go on.', { format })
      })
    }

    it('readLedger and restore refuse a hash-valid line holding tool_calls: [null], naming it (AGENT_LEDGER_INVALID_ENTRY)', async () => {
      const { text, agent, host } = await conversation()
      await agent.dispose()
      const all = objects(text)
      all[4].tool_calls = [null]
      const forged = rechain(all)
      const expected = { code: 'AGENT_LEDGER_INVALID_ENTRY', details: { line: 5, problem: 'tool_calls[0] must be a tool call object ({ id, type, function: { name, arguments } }), found null' } }
      expect(thrown(() => readLedger(forged))).to.deep.include(expected)
      expect(await rejection(host.agents.restore(forged))).to.deep.include(expected)
    })

    it('readLedger refuses usage figures that restore refuses (a string, a negative count)', async () => {
      const { text } = await conversation()
      const all = objects(text)
      all[4].usage = { inputTokens: 'NaN', cachedReadTokens: null, cacheWriteTokens: null, outputTokens: -5 }
      expect(thrown(() => readLedger(rechain(all)))).to.deep.include({
        code: 'AGENT_LEDGER_INVALID_ENTRY',
        details: { line: 5, problem: 'usage.inputTokens is a string "NaN"; each figure is a finite count of at least 0, or null when the provider did not report it' },
      })
    })

    it('record() refuses provider figures that add up past a finite number, instead of a usage the ledger writes as null', async () => {
      const { agent } = await conversation()
      const usage = { input_tokens: 1e308, cache_read_input_tokens: 1e308, cache_creation_input_tokens: 0, output_tokens: 1 }
      expect(thrown(() => agent.record({ role: 'assistant', content: 'x' }, { usage, format: 'anthropic' }))).to.deep.include({
        code: 'AGENT_INVALID_RECORD',
        details: { id: 'a', problem: 'usage (as anthropic reported it).inputTokens is Infinity; each figure is a finite count of at least 0, or null when the provider did not report it' },
      })
    })

    it('readLedger (what history reads with) refuses exactly what restore refuses, with the same code and line, on random re-chained edits', async () => {
      const { text, agent, host } = await conversation()
      await agent.dispose()
      const lines = objects(text)
      const keys = ['role', 'source', 'promptVersion', 'content', 'tool_calls', 'tool_call_id', 'name', 'usage']
      await fc.assert(fc.asyncProperty(
        fc.integer({ min: 1, max: lines.length - 1 }), fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 3 }),
        async (index, key, value) => {
          const all = objects(text)
          all[index][key] = value
          const forged = rechain(all)
          let read: unknown
          try {
            readLedger(forged)
          } catch (error) {
            read = error
          }
          let restored: unknown
          try {
            await (await host.agents.restore(forged)).dispose()
          } catch (error) {
            restored = error
          }
          const facts = (error: unknown) => error === undefined ? 'accepted' : { code: (error as { code?: string }).code, details: (error as { details?: unknown }).details }
          expect(facts(read)).to.deep.equal(facts(restored))
        },
      ), { numRuns: 150, seed: 20 })
    })

    it('record() keeps only the four usage figures, so a usage object with toJSON exports a ledger restore accepts', async () => {
      const { agent, host } = await conversation()
      const usage = { inputTokens: 1, cachedReadTokens: 0, cacheWriteTokens: null, outputTokens: 2, toJSON: () => ({ inputTokens: 'x' }) }
      agent.record({ role: 'assistant', content: 'x' }, { usage })
      const text = exportLedger(agent)
      await agent.dispose()
      const restored = await host.agents.restore(text)
      expect(restored.conversation.at(-1)!.usage).to.deep.equal({ inputTokens: 1, cachedReadTokens: 0, cacheWriteTokens: null, outputTokens: 2 })
    })
  })
})
