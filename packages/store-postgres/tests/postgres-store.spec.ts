import { expect } from 'chai'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadAll } from 'dsh-store'
import { joinEntry, PostgresConversationStore, splitEntry } from 'dsh-store-postgres'
import { rejection as rejected } from 'dsh-testing'
import type pg from 'pg'
import { testPool } from './server.js'

const rejection = async (promise: Promise<unknown>) => (await rejected(promise)) as Error & { code: string; details: Record<string, unknown> }

/** A prompt version's line, as the ledger writes one (the prompt is long: it is stored apart). */
const promptLine = (n: number, version: number, hash: string) =>
  JSON.stringify({ role: 'system', source: 'system-prompt', promptVersion: version, content: `Prompt version ${version}. ${'Keep the prefix stable. '.repeat(250)}`, hash })
const turnLine = (n: number, hash: string) => JSON.stringify({ role: 'user', source: 'user', promptVersion: 1, content: `turn ${n}`, hash })

describe('dsh-store-postgres: PostgresConversationStore (R-STORE)', function () {
  this.timeout(120_000)
  let pool: pg.Pool
  let schema: string
  let store: PostgresConversationStore
  let schemas = 0
  before(async () => { pool = await testPool('store_spec') })
  after(async () => { await pool?.end() })
  beforeEach(async () => {
    schema = `spec_${process.pid}_${++schemas}`
    store = PostgresConversationStore.fromPool(pool, { schema })
    await store.setup()
  })
  afterEach(async () => { await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`) })

  it('splitEntry cuts a long top-level field out and joinEntry puts it back byte for byte; a non-canonical spelling is kept whole', () => {
    const line = promptLine(0, 1, 'h')
    const split = splitEntry(line, JSON.parse(line))
    expect(split.hashes).to.have.length(1)
    expect(split.body).to.equal('{"role":"system","source":"system-prompt","promptVersion":1,"content":,"hash":"h"}')
    expect(joinEntry(split.body, split.at, [...split.texts.values()], split.strings)).to.equal(line)
    const escaped = line.replace('Prompt', '\\u0050rompt')
    expect(splitEntry(escaped, JSON.parse(escaped)).hashes).to.deep.equal([])
  })

  it('a 1,000-turn conversation with 20 prompt versions stores each distinct prompt text once', async () => {
    const lines: string[] = []
    for (let turn = 0; turn < 1000; turn++) {
      // Versions 1 to 20 cycle: every 50 turns the prompt changes, and versions come back (an A/B toggle).
      if (turn % 50 === 0) lines.push(promptLine(turn, (turn / 50) + 1, `p${turn}`))
      if (turn % 100 === 50) lines.push(promptLine(turn, 1, `again${turn}`))
      lines.push(turnLine(turn, `t${turn}`))
    }
    let head = ''
    for (let at = 0; at < lines.length; at += 7) head = (await store.append({ conversation: 'long' }, lines.slice(at, at + 7), { expectedHead: head })).head
    await store.append({ conversation: 'copy' }, lines.slice(0, 3), { expectedHead: '' })
    const counts = await store.counts()
    expect(counts.blobs).to.equal(20)
    expect(counts.entries).to.equal(lines.length + 3)
    expect(await loadAll(store, { conversation: 'long' })).to.deep.equal(lines)
    // Each distinct text once: the blobs hold exactly the 20 versions' JSON texts.
    const distinct = new Set(lines.filter((line) => line.includes('"system-prompt"')).map((line) => JSON.stringify(JSON.parse(line).content)))
    expect(distinct.size).to.equal(20)
    expect(counts.blobBytes).to.equal([...distinct].reduce((sum, text) => sum + Buffer.byteLength(text), 0))
    const fileBytes = Buffer.byteLength(lines.map((line) => line + '\n').join(''))
    if (process.env.DSH_STORE_FIGURES) console.log(`    ${lines.length} lines: file ledger ${fileBytes} B; database ${counts.entryBytes} B of entries + ${counts.blobBytes} B of ${counts.blobs} texts`)
  })

  it('deleting a conversation removes the texts no other conversation refers to, and keeps the shared ones', async () => {
    await store.append({ conversation: 'a' }, [promptLine(0, 1, 'a1'), promptLine(1, 2, 'a2')], { expectedHead: '' })
    await store.append({ conversation: 'b' }, [promptLine(0, 1, 'b1')], { expectedHead: '' })
    await store.append({ conversation: 'a', sub: 'fork' }, [promptLine(0, 3, 'f1')], { expectedHead: '' })
    expect((await store.counts()).blobs).to.equal(3)
    await store.delete({ conversation: 'a' })
    expect(await store.counts()).to.include({ blobs: 1, entries: 1, conversations: 1 })
    expect(await loadAll(store, { conversation: 'b' })).to.deep.equal([promptLine(0, 1, 'b1')])
    await store.delete({ conversation: 'b' })
    expect(await store.counts()).to.include({ blobs: 0, entries: 0, conversations: 0 })
  })

  it('setup() from several workers at once creates the schema once; a store whose schema was never set up says PGSTORE_NOT_SET_UP', async () => {
    const fresh = `spec_setup_${process.pid}_${schemas}`
    try {
      const versions = await Promise.all([0, 1, 2].map(() => PostgresConversationStore.fromPool(pool, { schema: fresh }).setup()))
      expect(versions).to.deep.equal([2, 2, 2])
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${fresh}".dsh_store_migrations`)
      expect(rows[0].n).to.equal(2)
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${fresh}" CASCADE`)
    }
    const error = await rejection(PostgresConversationStore.fromPool(pool, { schema: 'never_set_up' }).head({ conversation: 'a' }))
    expect(error.code).to.equal('PGSTORE_NOT_SET_UP')
    expect(error.details.schema).to.equal('never_set_up')
  })

  it('a schema option that is not a plain identifier is PGSTORE_INVALID_SCHEMA', () => {
    expect(() => PostgresConversationStore.fromPool(pool, { schema: 'x"; DROP TABLE y; --' })).to.throw().with.property('code', 'PGSTORE_INVALID_SCHEMA')
  })

  it('a database newer than the package is PGSTORE_NEWER_SCHEMA, and nothing is changed', async () => {
    await pool.query(`INSERT INTO "${schema}".dsh_store_migrations (version) VALUES (99)`)
    const error = await rejection(store.setup())
    expect(error.code).to.equal('PGSTORE_NEWER_SCHEMA')
    expect(error.details).to.deep.equal({ schema, found: 99, known: 2 })
  })

  it('embedded: a PGlite database in a folder keeps the conversation after it is closed and opened again', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'dsh-pglite-'))
    try {
      const first = await PostgresConversationStore.embedded(folder)
      await first.setup()
      await first.append({ conversation: 'local' }, [promptLine(0, 1, 'l1'), turnLine(0, 'l2')], { expectedHead: '' })
      await first.close()
      const again = await PostgresConversationStore.embedded(folder)
      await again.setup()
      expect(await loadAll(again, { conversation: 'local' })).to.deep.equal([promptLine(0, 1, 'l1'), turnLine(0, 'l2')])
      expect(await again.head({ conversation: 'local' })).to.deep.equal({ head: 'l2', length: 2 })
      await again.close()
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })
})
