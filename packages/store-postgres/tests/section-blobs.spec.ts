/**
 * Section texts and tool schemas stored once (R-STORE-8), on a real PostgreSQL server: ledgers written
 * by real agents, shared between conversations, collected on delete; a schema of version 1 upgraded in
 * place; and the storage figures of a 1,000-turn conversation with 20 prompt versions, whole versions
 * against sections, against the file ledger (`DSH_STORE_FIGURES=1` prints them).
 */
import { expect } from 'chai'
import { exportLedger, readLedger, type Agent } from 'dsh-agent'
import { loadAll } from 'dsh-store'
import { MIGRATIONS, PostgresConversationStore, tablesOf, textHash } from 'dsh-store-postgres'
import { bootApp, tool } from 'dsh-testing'
import type pg from 'pg'
import { testPool } from './server.js'

/** Nine steady sections of about 600 bytes, a `status` section whose text the caller sets, and three tools. */
async function harness(status: { text: string }) {
  const booted = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, tools: true, agents: { promptChange: 'append' } })
  for (let n = 1; n <= 9; n++) booted.host.systemPrompt.section({ name: `rules:${n}`, order: n * 10, text: `Rule set ${n}. ${'Keep the cached prefix stable across turns. '.repeat(14)}` })
  booted.host.systemPrompt.section({ name: 'status', order: 200, text: () => status.text })
  for (const name of ['read', 'write', 'grep']) booted.host.tools.register(tool(name, { description: `The ${name} tool: ${'it takes a path and options. '.repeat(4)}` }))
  return booted
}

/** Plays `turns` turns on a new agent `id`; the status changes every `every` turns (to `versions` distinct texts in turn). */
async function conversation(id: string, turns: number, every: number, versions: number): Promise<Agent> {
  const status = { text: 'Release train 0.' }
  const { host } = await harness(status)
  const agent = await host.agents.create({ id, model: 'deepseek-chat' })
  for (let turn = 0; turn < turns; turn++) {
    status.text = `Release train ${Math.floor(turn / every) % versions}.`
    await agent.step(`Turn ${turn}.`)
    agent.record({ role: 'assistant', content: `Reply ${turn}.` })
  }
  return agent
}

/** The ledger's entry lines (a store keeps the header too: all lines). */
const linesOf = (agent: Agent) => exportLedger(agent).trimEnd().split('\n')

describe('dsh-store-postgres: section texts and tool schemas stored once (R-STORE-8)', function () {
  this.timeout(300_000)
  let pool: pg.Pool
  let schema: string
  let schemas = 0
  before(async () => { pool = await testPool('section_blobs') })
  after(async () => { await pool?.end() })
  beforeEach(() => { schema = `sections_${process.pid}_${++schemas}` })
  afterEach(async () => { await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`) })

  it('two conversations that share sections store each section and tool once; deleting one removes only the texts the other does not refer to', async () => {
    const store = PostgresConversationStore.fromPool(pool, { schema })
    await store.setup()
    const a = linesOf(await conversation('a', 6, 2, 3))
    const b = linesOf(await conversation('b', 2, 1, 2))
    await store.append({ conversation: 'a' }, a, { expectedHead: '' })
    await store.append({ conversation: 'b' }, b, { expectedHead: '' })
    const sectionsOf = (lines: string[]) => new Set(readLedger(lines).entries.flatMap((line) => line.sections?.map((part) => part.hash) ?? []))
    const toolsOf = (lines: string[]) => new Set(readLedger(lines).entries.flatMap((line) => line.tools?.map((t) => textHash(JSON.stringify(t))) ?? []))
    const stored = async () => new Set((await pool.query<{ hash: string }>(`SELECT hash FROM "${schema}".dsh_blobs`)).rows.map((row) => row.hash))
    // a: 9 steady sections, the persona, 3 status texts; b: the same steady ones and 2 of a's status texts; 3 tools each.
    expect([...sectionsOf(a)]).to.have.length(13)
    expect([...sectionsOf(b)].filter((hash) => !sectionsOf(a).has(hash))).to.deep.equal([])
    expect(await stored()).to.deep.equal(new Set([...sectionsOf(a), ...toolsOf(a)]))
    expect(await loadAll(store, { conversation: 'a' })).to.deep.equal(a)
    await store.delete({ conversation: 'a' })
    expect(await stored()).to.deep.equal(new Set([...sectionsOf(b), ...toolsOf(b)]))
    expect(await loadAll(store, { conversation: 'b' })).to.deep.equal(b)
    await store.delete({ conversation: 'b' })
    expect((await stored()).size).to.equal(0)
  })

  it('setup() upgrades a schema of version 1 with entries in it: they read back byte for byte, new appends store sections, deletes collect both', async () => {
    const t = tablesOf(schema)
    await pool.query(`CREATE SCHEMA "${schema}"`)
    await pool.query(`CREATE TABLE ${t.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
    for (const statement of MIGRATIONS[0](t).split(';').map((text) => text.trim()).filter(Boolean)) await pool.query(statement)
    await pool.query(`INSERT INTO ${t.migrations} (version) VALUES (1)`)
    // What version 1 wrote: a prompt version's whole content cut out as its JSON text.
    const lines = linesOf(await conversation('old', 2, 1, 2))
    const old = lines.slice(0, 3)
    const content = JSON.stringify(JSON.parse(old[1]).content)
    const at = old[1].indexOf(content)
    await pool.query(`INSERT INTO ${t.conversations} (conversation, sub, head, length) VALUES ('old', '', $1, 3)`, [JSON.parse(old[2]).hash])
    for (const [seq, line] of old.entries()) {
      const cut = seq === 1
      await pool.query(`INSERT INTO ${t.entries} (conversation, sub, seq, hash, body, blob_at, blob_hash) VALUES ('old', '', $1, $2, $3, $4, $5)`,
        [seq, JSON.parse(line).hash, cut ? line.slice(0, at) + line.slice(at + content.length) : line, cut ? [at] : [], cut ? [textHash(content)] : []])
    }
    await pool.query(`INSERT INTO ${t.blobs} (hash, body) VALUES ($1, $2)`, [textHash(content), content])
    const store = PostgresConversationStore.fromPool(pool, { schema })
    expect(await store.setup()).to.equal(2)
    expect(await loadAll(store, { conversation: 'old' })).to.deep.equal(old)
    await store.append({ conversation: 'old' }, lines.slice(3), { expectedHead: JSON.parse(old[2]).hash })
    expect(await loadAll(store, { conversation: 'old' })).to.deep.equal(lines)
    expect((await store.counts()).blobs).to.be.greaterThan(1)
    await store.delete({ conversation: 'old' })
    expect(await store.counts()).to.include({ blobs: 0, entries: 0 })
  })

  it('a 1,000-turn conversation with 20 prompt versions that differ in one section stores each section text once, a tenth of the bytes of whole versions', async () => {
    const agent = await conversation('long', 1000, 50, 20)
    const lines = linesOf(agent)
    const ledger = exportLedger(agent)
    const versions = readLedger(ledger).entries.filter((line) => line.source === 'system-prompt')
    expect(versions).to.have.length(20)
    const figures: Record<string, Awaited<ReturnType<PostgresConversationStore['counts']>>> = {}
    for (const [name, sectionBlobs] of [['whole', false], ['sections', true]] as const) {
      const store = PostgresConversationStore.fromPool(pool, { schema: `${schema}_${name}`, sectionBlobs })
      await store.setup()
      try {
        let head = ''
        for (let at = 0; at < lines.length; at += 50) head = (await store.append({ conversation: 'long' }, lines.slice(at, at + 50), { expectedHead: head })).head
        expect(await loadAll(store, { conversation: 'long' })).to.deep.equal(lines)
        figures[name] = await store.counts()
      } finally {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}_${name}" CASCADE`)
      }
    }
    const sections = new Map(versions.flatMap((line) => line.sections!.map((part) => [part.hash, part.end - part.start])))
    const tools = readLedger(ledger).entries.flatMap((line) => line.tools ?? []).map((t) => Buffer.byteLength(JSON.stringify(t)))
    // Whole: each distinct version once. Sections: the 10 steady texts, 20 status texts and 3 tool schemas, each once.
    expect(figures.whole.blobs).to.equal(20 + 3)
    expect(figures.sections.blobs).to.equal(sections.size + 3)
    expect(sections.size).to.equal(10 + 20)
    expect(figures.sections.blobBytes).to.equal([...sections.values(), ...tools].reduce((sum, n) => sum + n, 0))
    const total = (counts: { blobBytes: number; entryBytes: number }) => counts.blobBytes + counts.entryBytes
    const file = Buffer.byteLength(ledger)
    if (process.env.DSH_STORE_FIGURES) {
      for (const [name, counts] of Object.entries(figures)) {
        console.log(`    ${name}: ${counts.entries} entries, ${counts.entryBytes} B of entries + ${counts.blobBytes} B in ${counts.blobs} texts = ${total(counts)} B (file ledger ${file} B)`)
      }
    }
    // The prompt texts shrink by more than ten times; the entries themselves (2,000 turns' lines) stay what they were.
    expect(figures.sections.blobBytes).to.be.below(figures.whole.blobBytes / 10)
    expect(total(figures.sections)).to.be.below(total(figures.whole))
    expect(total(figures.whole)).to.be.below(file)
  })
})
