/**
 * The clever paths against a plain one (STYLE: "check the clever path against a naive one"): texts cut
 * out of entries and joined again; and whole random programs of appends (some at stale heads), deletes
 * and loads run on the PostgreSQL server and on the file store, compared with the plain memory store:
 * the same entries, heads and error codes.
 */
import { expect } from 'chai'
import fc from 'fast-check'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileConversationStore, loadAll, MemoryConversationStore, type ConversationStore, type StoreKey } from 'dsh-store'
import { joinEntry, PostgresConversationStore, splitEntry } from 'dsh-store-postgres'
import type pg from 'pg'
import { testPool } from './server.js'

/** A JSON object line as some writer spelled it: canonical, or with spaces and escapes `JSON.stringify` does not write. */
const line = fc.record({
  value: fc.dictionary(fc.constantFrom('content', 'tools', 'role', 'n', 'x'), fc.oneof(fc.string({ minLength: 0, maxLength: 400 }), fc.jsonValue({ maxDepth: 2 })), { minKeys: 1 }),
  spaced: fc.boolean(),
  escaped: fc.boolean(),
}).map(({ value, spaced, escaped }) => {
  let text = JSON.stringify({ ...value, hash: 'h' }, null, spaced ? 1 : undefined).replace(/\n/g, '')
  if (escaped) text = text.replace(/e/g, (match, offset: number) => (insideString(text, offset) ? '\\u0065' : match))
  return text
})

/** Whether `offset` of the JSON text `text` is inside a string literal (not a key's quotes, not an escape). */
function insideString(text: string, offset: number): boolean {
  let inside = false
  for (let at = 0; at < offset; at++) {
    if (text[at] === '\\' && inside) at++
    else if (text[at] === '"') inside = !inside
  }
  return inside && text[offset - 1] !== '\\'
}

type Op =
  | { kind: 'append'; conversation: number; sub: boolean; count: number; stale: boolean }
  | { kind: 'delete'; conversation: number; sub: boolean }
  | { kind: 'load'; conversation: number; sub: boolean; from: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('append' as const), conversation: fc.nat(2), sub: fc.boolean(), count: fc.integer({ min: 1, max: 4 }), stale: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), conversation: fc.nat(2), sub: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('load' as const), conversation: fc.nat(2), sub: fc.boolean(), from: fc.nat(6) }) },
)

/** Runs `program` on `store`; every step's outcome (entries loaded, the head appended to, or the error code). */
async function play(store: ConversationStore, program: readonly Op[]): Promise<unknown[]> {
  const outcomes: unknown[] = []
  let serial = 0
  for (const step of program) {
    const key: StoreKey = step.sub ? { conversation: `c${step.conversation}`, sub: 'fork' } : { conversation: `c${step.conversation}` }
    try {
      if (step.kind === 'append') {
        const { head } = await store.append(key, [], { expectedHead: (await store.head(key)).head })
        const prompt = `A prompt. ${'Stable text. '.repeat(30)}${serial % 3}`
        const entries = Array.from({ length: step.count }, () => JSON.stringify({ n: ++serial, content: serial % 2 ? prompt : `turn ${serial}`, hash: `h${serial}` }))
        outcomes.push(await store.append(key, entries, { expectedHead: step.stale ? `${head}-stale` : head }))
      } else if (step.kind === 'delete') {
        await store.delete(key)
        outcomes.push('deleted')
      } else {
        outcomes.push(await loadAll(store, key, { from: step.from }))
      }
    } catch (error) {
      outcomes.push((error as { code?: string }).code ?? error)
    }
  }
  return outcomes
}

describe('dsh-store-postgres: stores against the plain memory store (model)', function () {
  this.timeout(300_000)
  let pool: pg.Pool
  before(async () => { pool = await testPool('model') })
  after(async () => { await pool?.end() })

  it('joinEntry(splitEntry(line)) is the line, byte for byte, for lines spelled any way JSON allows', () => {
    fc.assert(fc.property(line, fc.integer({ min: 0, max: 64 }), (text, minLength) => {
      const split = splitEntry(text, JSON.parse(text), ['content', 'tools'], minLength)
      expect(joinEntry(split.body, split.at, split.hashes.map((hash) => split.texts.get(hash)!))).to.equal(text)
    }), { numRuns: 2000 })
  })

  it('random programs of appends (some at stale heads), deletes and loads give the memory store\'s outcomes on a PostgreSQL server and in files', async () => {
    let run = 0
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (program) => {
      const schema = `model_${process.pid}_${++run}`
      const folder = await mkdtemp(join(tmpdir(), 'dsh-store-model-'))
      const server = PostgresConversationStore.fromPool(pool, { schema })
      await server.setup()
      try {
        const expected = await play(new MemoryConversationStore(), program)
        expect(await play(server, program)).to.deep.equal(expected)
        expect(await play(new FileConversationStore(folder, { sync: false }), program)).to.deep.equal(expected)
        // Every stored text is referred to by a remaining entry: deletes collected the rest.
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".dsh_blobs b WHERE NOT EXISTS (SELECT 1 FROM "${schema}".dsh_entries e WHERE b.hash = ANY(e.blob_hash))`)
        expect(rows[0].n).to.equal(0)
      } finally {
        await pool.query(`DROP SCHEMA "${schema}" CASCADE`)
        await rm(folder, { recursive: true, force: true })
      }
    }), { numRuns: 40 })
  })
})
