import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportLedger, FileLedgerStore, LedgerWriter } from 'dsh-agent'
import { bootApp, rejection as rejected } from 'dsh-testing'
import { FileConversationStore, ledgerStore, loadAll, MemoryConversationStore } from 'dsh-store'

/** The coded error `promise` rejects with. */
const rejection = async (promise: Promise<unknown>) => (await rejected(promise)) as Error & { code: string; details: Record<string, unknown> }

const boot = () => bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, agents: { promptChange: 'append' } })

describe('dsh-store: agents\' ledgers in a conversation store (R-STORE)', () => {
  let folder: string
  beforeEach(() => { folder = mkdtempSync(join(tmpdir(), 'dsh-store-ledger-')) })
  afterEach(() => rmSync(folder, { recursive: true, force: true }))

  it('a ledger file FileLedgerStore wrote reads as the conversation of its name, and a restored agent goes on writing it there', async () => {
    const before = await boot()
    const agent = await before.host.agents.create({ id: 'a', model: 'deepseek-chat' })
    const old = new LedgerWriter(agent, new FileLedgerStore(join(folder, 'a.jsonl')))
    await agent.step('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' })
    await old.sync()

    const store = new FileConversationStore(folder)
    const lines = await loadAll(store, { conversation: 'a' })
    expect(lines.map((line) => line + '\n').join('')).to.equal(readFileSync(join(folder, 'a.jsonl'), 'utf8'))
    expect(await store.head({ conversation: 'a' })).to.deep.equal({ head: old.head, length: 4 })

    const after = await boot()
    const restored = await after.host.agents.restore(lines, { head: old.head })
    const writer = new LedgerWriter(restored, ledgerStore(store, { conversation: 'a' }), { stored: lines.length })
    await restored.step('Again.')
    expect(await writer.sync()).to.equal(1)
    // Still a ledger file: the old store reads it, and it is the restored agent's export.
    expect((await new FileLedgerStore(join(folder, 'a.jsonl')).read()).map((line) => line + '\n').join('')).to.equal(exportLedger(restored))
  })

  it('two workers resume from the same lines and both write a turn: the later writer is refused before it writes (AGENT_LEDGER_STORE_MISMATCH)', async () => {
    const store = new MemoryConversationStore()
    const key = { conversation: 'shared' }
    const first = await boot()
    const agent = await first.host.agents.create({ id: 'a', model: 'deepseek-chat' })
    const writer = new LedgerWriter(agent, ledgerStore(store, key))
    await agent.step('One.')
    agent.record({ role: 'assistant', content: 'Done.' })
    await writer.sync()

    // A second worker resumes from the same lines, and both write a turn: the later one loses.
    const lines = await loadAll(store, key)
    const second = await boot()
    const twin = await second.host.agents.restore(lines)
    const twinWriter = new LedgerWriter(twin, ledgerStore(store, key), { stored: lines.length })
    await twin.step('Two (worker B).')
    await agent.step('Two (worker A).')
    await writer.sync()
    const stored = await loadAll(store, key)
    const error = await rejection(twinWriter.sync())
    expect(error.code).to.equal('AGENT_LEDGER_STORE_MISMATCH')
    expect(await loadAll(store, key)).to.deep.equal(stored)
  })

  it('an append through ledgerStore() whose store moved on since the writer checked it is STORE_CONFLICT (the head travels with each append)', async () => {
    const store = new MemoryConversationStore()
    const key = { conversation: 'shared' }
    const booted = await boot()
    const agent = await booted.host.agents.create({ id: 'a', model: 'deepseek-chat' })
    const seen: (string | undefined)[] = []
    const inner = ledgerStore(store, key)
    const writer = new LedgerWriter(agent, { read: () => inner.read(), append: (lines, options) => { seen.push(options?.expectedHead); return inner.append(lines, options) } })
    await agent.step('One.')
    await writer.sync()
    // Another writer appends behind this writer's back, after its first check.
    await store.append(key, [JSON.stringify({ intruder: true, hash: 'x' })], { expectedHead: writer.head })
    agent.record({ role: 'assistant', content: 'Done.' })
    const error = await rejection(writer.sync())
    expect(error.code).to.equal('STORE_CONFLICT')
    expect(seen).to.deep.equal(['', seen[1]])
    expect(seen[1]).to.equal(writer.head)
    expect((await store.head(key)).head).to.equal('x')
  })

  it('an old ledger file cut short by a crash (no commit record) loads its whole lines, and the next append cuts the partial line off', async () => {
    const file = join(folder, 'old.jsonl')
    writeFileSync(file, '{"n":1,"hash":"h1"}\n{"n":2,"hash":"h2"}\n{"n":3,"ha')
    const store = new FileConversationStore(folder)
    expect(await loadAll(store, { conversation: 'old' })).to.deep.equal(['{"n":1,"hash":"h1"}', '{"n":2,"hash":"h2"}'])
    expect(await store.head({ conversation: 'old' })).to.deep.equal({ head: 'h2', length: 2 })
    await store.append({ conversation: 'old' }, ['{"n":3,"hash":"h3"}'], { expectedHead: 'h2' })
    expect(readFileSync(file, 'utf8')).to.equal('{"n":1,"hash":"h1"}\n{"n":2,"hash":"h2"}\n{"n":3,"hash":"h3"}\n')
    expect(JSON.parse(readFileSync(file + '.head', 'utf8'))).to.deep.equal({ bytes: 60, length: 3, head: 'h3' })
  })

  it('a commit record that is not JSON is STORE_UNREADABLE_COMMIT naming the file; data cut below its record is STORE_LOST_ENTRIES', async () => {
    const store = new FileConversationStore(folder)
    await store.append({ conversation: 'a' }, ['{"hash":"h1"}', '{"hash":"h2"}'], { expectedHead: '' })
    const file = store.fileOf({ conversation: 'a' })
    writeFileSync(file, '{"hash":"h1"}\n')
    const lost = await rejection(store.head({ conversation: 'a' }))
    expect(lost.code).to.equal('STORE_LOST_ENTRIES')
    expect(lost.details).to.deep.equal({ file, committed: 28, found: 14 })
    writeFileSync(file + '.head', '{"bytes":')
    const unreadable = await rejection(loadAll(store, { conversation: 'a' }))
    expect(unreadable.code).to.equal('STORE_UNREADABLE_COMMIT')
    expect(unreadable.details.file).to.equal(file)
  })
})
