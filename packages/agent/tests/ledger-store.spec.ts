import { expect } from 'chai'
import fc from 'fast-check'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportLedger, FileLedgerStore, LedgerWriter, type Agent, type LedgerStore } from 'dsh-agent'
import { bootDeployment } from 'dsh-boot'
import { rejection, thrown } from 'dsh-testing'
import { changePersona, converse, harness } from './ledger-scenario.js'

describe('dsh-agent: ledger stores (R-LEDGER)', () => {
  let folder: string
  beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'dsh-ledger-')) })
  afterEach(() => rmSync(folder, { recursive: true, force: true }))

  describe('FileLedgerStore with a LedgerWriter', () => {
    it('appends only the new lines after each step and record: the file is the export, and every earlier byte stays', async () => {
      const { host } = await harness('append')
      const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
      const path = join(folder, 'a.jsonl')
      const writer = new LedgerWriter(agent, new FileLedgerStore(path))
      let before = ''
      const appended: number[] = []
      const check = async () => {
        appended.push(await writer.sync())
        const now = readFileSync(path, 'utf8')
        expect(now.startsWith(before)).to.equal(true)
        expect(now).to.equal(exportLedger(agent))
        before = now
      }
      await agent.step('Hi.')
      await check()
      agent.record({ role: 'assistant', content: 'Hello.' })
      await check()
      await agent.step()
      expect(await writer.sync()).to.equal(0)
      changePersona(agent)
      await agent.step('Again.')
      await check()
      expect(appended).to.deep.equal([4, 1, 2])
      expect(writer.lines).to.equal(7)
      expect(writer.head).to.equal(JSON.parse(before.trimEnd().split('\n').at(-1)!).hash)
    })

    it('after a restart: read, restore, resume writing where the file ends', async () => {
      const path = join(folder, 'a.jsonl')
      const before = await harness('append')
      const original = await before.host.agents.create({ id: 'a', model: 'deepseek-chat' })
      const first = new LedgerWriter(original, new FileLedgerStore(path))
      await converse(original, 'anthropic')
      await first.sync()

      const after = await harness('append')
      const store = new FileLedgerStore(path)
      const lines = await store.read()
      const restored = await after.host.agents.restore(lines, { head: first.head })
      changePersona(restored)
      const writer = new LedgerWriter(restored, store, { stored: lines.length })
      expect(writer.head).to.equal(first.head)
      const expected = JSON.stringify(await original.step('Next.', { format: 'anthropic' }))
      expect(JSON.stringify(await restored.step('Next.', { format: 'anthropic' }))).to.equal(expected)
      expect(await writer.sync()).to.equal(1)
      expect(readFileSync(path, 'utf8')).to.equal(exportLedger(original))
    })

    it('a crash mid-append leaves a cut-short last line: read() refuses it with its line number, or drops it when asked', async () => {
      const { host, agent } = await withLedger(join(folder, 'a.jsonl'))
      const path = join(folder, 'a.jsonl')
      const whole = readFileSync(path, 'utf8')
      appendFileSync(path, '{"role":"user","source":"us')
      const error = await rejection(new FileLedgerStore(path).read())
      expect(error).to.deep.include({ code: 'AGENT_LEDGER_CUT_SHORT', details: { line: 5 } })
      expect(await rejection(new FileLedgerStore(path).append(['{}']))).to.deep.include({ code: 'AGENT_LEDGER_CUT_SHORT', details: { line: 5 } })
      const lines = await new FileLedgerStore(path, { dropCutShortLine: true }).read()
      expect(lines).to.have.length(4)
      expect(readFileSync(path, 'utf8')).to.equal(whole)
      await agent.dispose()
      expect(exportLedger(await host.agents.restore(lines))).to.equal(whole)
    })

    it('drops a cut-short tail at its byte offset, also when an earlier line is not valid UTF-8', async () => {
      const path = join(folder, 'a.jsonl')
      await withLedger(path)
      const damaged = Buffer.from(readFileSync(path, 'utf8').replace('Hi.', 'H\u0000.'))
      damaged[damaged.indexOf(0)] = 0xff
      writeFileSync(path, Buffer.concat([damaged, Buffer.from('{"role":"us')]))
      expect(await rejection(new FileLedgerStore(path).read())).to.deep.include({ code: 'AGENT_LEDGER_CUT_SHORT', details: { line: 5 } })
      expect(await new FileLedgerStore(path, { dropCutShortLine: true }).read()).to.have.length(4)
      expect(readFileSync(path).equals(damaged)).to.equal(true)
    })

    it('a file of one cut-short header line is refused at line 1; a missing file reads as no lines', async () => {
      const path = join(folder, 'a.jsonl')
      expect(await new FileLedgerStore(path).read()).to.deep.equal([])
      writeFileSync(path, '{"format":"dsh-led')
      expect(await rejection(new FileLedgerStore(path).read())).to.deep.include({ code: 'AGENT_LEDGER_CUT_SHORT', details: { line: 1 } })
      expect(await new FileLedgerStore(path, { dropCutShortLine: true }).read()).to.deep.equal([])
      expect(readFileSync(path, 'utf8')).to.equal('')
    })

    it('refuses to append a line with a line break in it, and writes nothing', async () => {
      const path = join(folder, 'a.jsonl')
      const error = await rejection(new FileLedgerStore(path).append(['{}', '{"a":\n1}']))
      expect(error).to.deep.include({ code: 'AGENT_LEDGER_LINE_BREAK', details: { index: 1 } })
      expect(await new FileLedgerStore(path).read()).to.deep.equal([])
    })

    it('refuses a stored count the record cannot have (AGENT_LEDGER_INVALID_STORED)', async () => {
      const { host } = await harness('append')
      const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
      const error = thrown(() => new LedgerWriter(agent, new FileLedgerStore(join(folder, 'x')), { stored: 2 }))
      expect(error).to.deep.include({ code: 'AGENT_LEDGER_INVALID_STORED', details: { id: 'a', stored: 2, most: 1 } })
      expect(error.message).to.equal('ledger writer for agent "a": stored must be the number of ledger lines already in the store, from 0 to 1 (the header and one line per entry), received 2')
    })

    it('a failed append is retried whole by the next sync', async () => {
      const { host } = await harness('append')
      const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
      const rows: string[] = []
      let fail = true
      const store: LedgerStore = {
        append: async (lines) => { if (fail) throw new Error('database away'); rows.push(...lines) },
        read: async () => [...rows],
      }
      const writer = new LedgerWriter(agent, store)
      await agent.step('Hi.')
      expect((await rejection(writer.sync())).message).to.equal('database away')
      fail = false
      expect(await writer.sync()).to.equal(4)
      expect(rows.map((line) => line + '\n').join('')).to.equal(exportLedger(agent))
    })
  })

  describe('docs/embedding.md "Keeping a conversation across restarts"', () => {
    it('the file-store loop, booted from a deployment file, twice over a restart', async () => {
      const path = join(folder, 'chat-42.jsonl')
      const turn = async (input: string) => {
        const dsh = await bootDeployment('examples/minimal/deployment.yml')
        try {
          // --- as in the docs ---
          const chatId = 'chat-42'
          const store = new FileLedgerStore(path)
          const lines = await store.read()
          const agent: Agent = lines.length
            ? await dsh.services.agents!.restore(lines)
            : await dsh.createAgent({ id: chatId, model: 'deepseek-chat' })
          const ledger = new LedgerWriter(agent, store, { stored: lines.length })

          const request = await agent.step(input)
          await ledger.sync()
          agent.record({ role: 'assistant', content: `You said: ${input}` }, { usage: { prompt_tokens: 30, completion_tokens: 5 }, format: 'openai-chat' })
          await ledger.sync()
          // --- end ---
          return request
        } finally {
          await dsh.dispose()
        }
      }
      const first = await turn('Hello.')
      const second = await turn('Still there?')
      expect(JSON.stringify(second.messages.slice(0, first.messages.length))).to.equal(JSON.stringify(first.messages))
      expect(second.messages.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'user'])
      expect(readFileSync(path, 'utf8').trimEnd().split('\n')).to.have.length(6)
    })

    it('a store backed by the harness\'s own database (rows of one table)', async () => {
      const table: Array<{ id: number; chat: string; line: string }> = []
      const db = {
        insertMany: async (rows: Array<{ chat: string; line: string }>) => { for (const row of rows) table.push({ id: table.length + 1, ...row }) },
        select: async (chat: string) => table.filter((row) => row.chat === chat).sort((x, y) => x.id - y.id),
      }
      const chatId = 'chat-7'
      // --- as in the docs ---
      const store: LedgerStore = {
        append: async (lines) => { await db.insertMany(lines.map((line) => ({ chat: chatId, line }))) },
        read: async () => (await db.select(chatId)).map((row) => row.line),
      }
      // --- end ---
      const { host } = await harness('append')
      const agent = await host.agents.create({ id: chatId, model: 'deepseek-chat' })
      const writer = new LedgerWriter(agent, store)
      await converse(agent, 'gemini')
      await writer.sync()
      const after = await harness('append')
      const restored = await after.host.agents.restore(await store.read())
      expect(exportLedger(restored)).to.equal(exportLedger(agent))
    })
  })

  it('property: export → restore → export is the identity on random conversations', async () => {
    const text = fc.string({ maxLength: 12 })
    const op = fc.oneof(
      fc.record({ kind: fc.constant('step' as const), input: fc.option(text, { nil: undefined }) }),
      fc.record({ kind: fc.constant('reply' as const), content: fc.option(text, { nil: null }), calls: fc.nat({ max: 2 }), usage: fc.boolean() }),
      // Persona text without braces: a random "{{" would be a variable reference the render refuses.
      fc.record({ kind: fc.constant('persona' as const), text: fc.stringMatching(/^[a-z .\n]{0,12}$/) }),
    )
    await fc.assert(fc.asyncProperty(fc.constantFrom('append' as const, 'replace' as const), fc.array(op, { maxLength: 12 }), async (policy, ops) => {
      const before = await harness(policy)
      const agent = await before.host.agents.create({ id: 'p', model: 'm', cwd: '/w' })
      let call = 0
      let persona: (() => void) | undefined
      for (const item of ops) {
        if (item.kind === 'step') await agent.step(item.input)
        else if (item.kind === 'persona') {
          persona?.()
          persona = agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: item.text })
        }
        else {
          const calls = Array.from({ length: item.content === null && !item.calls ? 1 : item.calls }, () => ({ id: `c${++call}`, type: 'function' as const, function: { name: 'read', arguments: '{}' } }))
          agent.record({ role: 'assistant', content: item.content, ...(calls.length ? { tool_calls: calls } : {}) },
            item.usage ? { usage: { inputTokens: call, cachedReadTokens: null, cacheWriteTokens: 0, outputTokens: 1 } } : {})
          for (const made of calls) agent.record({ role: 'tool', tool_call_id: made.id, content: `result ${made.id}` })
        }
      }
      const ledger = exportLedger(agent)
      const after = await harness(policy)
      expect(exportLedger(await after.host.agents.restore(ledger))).to.equal(ledger)
    }), { numRuns: 60 })
  })
})

/** An agent with one step recorded in a file ledger (four lines: header, system prompt, input, snapshot). */
async function withLedger(path: string) {
  const { host } = await harness('append')
  const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
  await agent.step('Hi.')
  await new LedgerWriter(agent, new FileLedgerStore(path)).sync()
  return { host, agent }
}
