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
import { joinEntry, PostgresConversationStore, splitEntry, textHash } from 'dsh-store-postgres'
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

/**
 * A prompt version's line as dsh-agent's ledger writes it: random sections (any characters, blank lines
 * in them, some repeated, some with lone surrogates) joined by a blank line, their byte ranges in `sections`, a tool list; sometimes
 * spelled with an escape `JSON.stringify` does not write (then it must still come back, cut or not).
 */
const versionLine = fc.record({
  sections: fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('Shared rules.\n\nKeep it short.', 'é and 😀', '"quoted" \\ \t', '')), { minLength: 1, maxLength: 8 }),
  tools: fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 8 }), description: fc.string({ maxLength: 40 }) }), { maxLength: 3 }),
  escaped: fc.boolean(),
}).map(({ sections: drawn, tools, escaped }) => {
  // The escaped spelling writes the first section's leading space as \u0020: the same value, spelled otherwise.
  const sections = escaped ? [` ${drawn[0]}`, ...drawn.slice(1)] : drawn
  let start = 0
  const parts = sections.map((section, index) => {
    const end = start + Buffer.byteLength(section, 'utf8')
    const part = { name: `s${index}`, start, end, hash: textHash(section) }
    start = end + 2
    return part
  })
  let text = JSON.stringify({ role: 'system', source: 'system-prompt', promptVersion: 1, content: sections.join('\n\n'), sections: parts, tools, hash: 'h' })
  if (escaped) text = text.replace('"content":" ', '"content":"\\u0020')
  // A lone surrogate has no UTF-8 bytes of its own: such a version is not cut into sections (it is stored whole), and still comes back.
  return { text, sections, canonical: !escaped && sections.every((section) => !/\p{Cs}/u.test(section)) }
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
    fc.assert(fc.property(line, fc.integer({ min: 0, max: 64 }), fc.boolean(), (text, minLength, sections) => {
      const split = splitEntry(text, JSON.parse(text), { fields: ['content', 'tools'], minLength, elements: ['tools', 'x'], sections })
      expect(joinEntry(split.body, split.at, split.hashes.map((hash) => split.texts.get(hash)!), split.strings)).to.equal(text)
    }), { numRuns: 2000 })
  })

  it('a prompt version of random sections is stored section by section (each distinct text once, by its SHA-256) and joined back byte for byte', () => {
    fc.assert(fc.property(versionLine, ({ text, sections, canonical }) => {
      const split = splitEntry(text, JSON.parse(text))
      expect(joinEntry(split.body, split.at, split.hashes.map((hash) => split.texts.get(hash)!), split.strings)).to.equal(text)
      if (!canonical) return
      // Each section's text is a stored text of its own, under its own hash; the body keeps the blank lines between them.
      const texts = sections.filter(Boolean)
      expect(split.strings.filter(Boolean)).to.have.length(texts.length)
      expect([...split.texts.values()].filter((stored) => texts.includes(stored)).sort()).to.deep.equal([...new Set(texts)].sort())
      for (const section of texts) expect(split.texts.get(textHash(section))).to.equal(section)
      for (const tool of JSON.parse(text).tools as object[]) expect(split.texts.get(textHash(JSON.stringify(tool)))).to.equal(JSON.stringify(tool))
      expect(split.body).to.contain(`"content":"${'\\n\\n'.repeat(sections.length - 1)}"`)
    }), { numRuns: 1000 })
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
