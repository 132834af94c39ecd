/**
 * A conversation store on PostgreSQL (R-STORE): a `pg.Pool` passed in for a fleet, or PGlite
 * in-process (`PostgresConversationStore.embedded(folder)`) for a single harness; the same SQL on both.
 * An append locks its key's row, compares the head and writes every entry in one transaction, so two
 * workers at the same head get one win and one `STORE_CONFLICT`, and a worker that dies mid-append
 * leaves nothing. Entries keep their exact bytes (text, never JSONB); a prompt version's section texts,
 * each tool schema and other long texts are stored once by hash (`blobs.ts`), and deleting a
 * conversation removes the texts no other entry refers to.
 * @module
 */
import { PGlite } from '@electric-sql/pglite'
import type { Pool } from 'pg'
import {
  checkConversation, checkEntries, checkExpectedHead, checkFrom, checkKey, StoreErrors, type AppendOptions, type ConversationStore,
  type ConversationSummary, type LoadOptions, type StoreHead, type StoreKey,
} from 'dsh-store'
import { DEFAULT_BLOB_RULES, joinEntry, splitEntry, type BlobRules } from './blobs.js'
import { missingBlob, notSetUp } from './errors.js'
import { setupSchema, tablesOf, type Tables } from './schema.js'
import { pgDriver, pgliteDriver, type SqlDriver, type SqlQueryable } from './sql-driver.js'

/** Options of {@link PostgresConversationStore}. */
export interface PostgresStoreOptions {
  /** The schema the tables live in (default `public`); created by `setup()`. */
  schema?: string
  /** Top-level entry fields whose whole value is stored once by hash when it is long (default `content`). */
  blobFields?: readonly string[]
  /** The shortest whole value stored apart, in UTF-16 units of its JSON text (default 256). */
  minBlobLength?: number
  /** Top-level array fields each of whose elements is stored once by hash (default `tools`: one tool schema each). */
  blobElements?: readonly string[]
  /** Whether a prompt version (`content` with `sections`) is stored section by section (default `true`; `false` stores it whole, as schema version 1 did). */
  sectionBlobs?: boolean
  /** Entries read per query while loading (default 500). */
  pageSize?: number
}

interface EntryRow {
  seq: number
  body: string
  blob_at: number[]
  blob_hash: string[]
  blob_string: boolean[]
}

/** A conversation store on PostgreSQL or PGlite. Call `setup()` once per database and schema. */
export class PostgresConversationStore implements ConversationStore {
  private readonly tables: Tables
  private readonly blobRules: BlobRules
  private readonly pageSize: number

  constructor(readonly driver: SqlDriver, options: PostgresStoreOptions = {}) {
    this.tables = tablesOf(options.schema ?? 'public')
    this.blobRules = {
      fields: options.blobFields ?? DEFAULT_BLOB_RULES.fields, minLength: options.minBlobLength ?? DEFAULT_BLOB_RULES.minLength,
      elements: options.blobElements ?? DEFAULT_BLOB_RULES.elements, sections: options.sectionBlobs ?? DEFAULT_BLOB_RULES.sections,
    }
    this.pageSize = options.pageSize ?? 500
  }

  /** A store on a node-postgres pool the caller owns (and ends). */
  static fromPool(pool: Pool, options?: PostgresStoreOptions): PostgresConversationStore {
    return new PostgresConversationStore(pgDriver(pool), options)
  }

  /** A store on an embedded PGlite database in `folder` (in memory without one); `close()` closes it. */
  static async embedded(folder?: string, options?: PostgresStoreOptions): Promise<PostgresConversationStore> {
    const db = await PGlite.create(folder)
    return new PostgresConversationStore(pgliteDriver(db, true), options)
  }

  /** Creates the schema and tables, or migrates them; resolves to the schema version. Safe to run from every worker. */
  setup(): Promise<number> {
    return setupSchema(this.driver, this.tables)
  }

  async append(key: StoreKey, entries: readonly string[], options: AppendOptions): Promise<StoreHead> {
    const { conversation, sub } = checkKey(key)
    const expected = checkExpectedHead(options)
    const { hashes, values } = checkEntries(conversation, sub, entries)
    const split = entries.map((line, index) => splitEntry(line, values[index], this.blobRules))
    const t = this.tables
    return this.run(() => this.driver.transaction(async (tx) => {
      const subKey = sub ?? ''
      await tx.query(`INSERT INTO ${t.conversations} (conversation, sub, head, length) VALUES ($1, $2, '', 0) ON CONFLICT DO NOTHING`, [conversation, subKey])
      const { rows } = await tx.query<{ head: string; length: number }>(`SELECT head, length FROM ${t.conversations} WHERE conversation = $1 AND sub = $2 FOR UPDATE`, [conversation, subKey])
      const { head, length } = rows[0]
      if (head !== expected) throw StoreErrors.conflict(conversation, sub, expected, head, length)
      if (!entries.length) return { head, length }
      const texts = new Map(split.flatMap((entry) => [...entry.texts]))
      if (texts.size) {
        // Shared with other appends, exclusive of a delete collecting texts no entry refers to.
        await tx.query(`SELECT pg_advisory_xact_lock_shared(${t.blobLock})`)
        await tx.query(`INSERT INTO ${t.blobs} (hash, body) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`, [[...texts.keys()], [...texts.values()]])
      }
      for (let start = 0; start < entries.length; start += 1000) {
        const rows = split.slice(start, start + 1000)
        const params: unknown[] = [conversation, subKey]
        const values = rows.map((entry, offset) => {
          params.push(length + start + offset, hashes[start + offset], entry.body, entry.at, entry.hashes, entry.strings)
          const n = params.length
          return `($1, $2, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}::integer[], $${n - 1}::text[], $${n}::boolean[])`
        })
        await tx.query(`INSERT INTO ${t.entries} (conversation, sub, seq, hash, body, blob_at, blob_hash, blob_string) VALUES ${values.join(', ')}`, params)
      }
      const next = { head: hashes[hashes.length - 1], length: length + entries.length }
      await tx.query(`UPDATE ${t.conversations} SET head = $3, length = $4, updated_at = now() WHERE conversation = $1 AND sub = $2`, [conversation, subKey, next.head, next.length])
      return next
    }))
  }

  async *load(key: StoreKey, options?: LoadOptions): AsyncIterable<string> {
    const { conversation, sub } = checkKey(key)
    const from = checkFrom(options)
    const t = this.tables
    const subKey = sub ?? ''
    // The entries stored when loading began: an append committed later is not read half.
    const { length: end } = await this.head(key)
    const texts = new Map<string, string>()
    for (let at = from; at < end; at += this.pageSize) {
      const { rows } = await this.run(() => this.driver.query<EntryRow>(
        `SELECT seq, body, blob_at, blob_hash, blob_string FROM ${t.entries} WHERE conversation = $1 AND sub = $2 AND seq >= $3 AND seq < $4 ORDER BY seq`,
        [conversation, subKey, at, Math.min(end, at + this.pageSize)],
      ))
      const wanted = [...new Set(rows.flatMap((row) => row.blob_hash))].filter((hash) => !texts.has(hash))
      if (wanted.length) {
        const found = await this.run(() => this.driver.query<{ hash: string; body: string }>(`SELECT hash, body FROM ${t.blobs} WHERE hash = ANY($1::text[])`, [wanted]))
        for (const row of found.rows) texts.set(row.hash, row.body)
      }
      for (const row of rows) {
        const parts = row.blob_hash.map((hash) => texts.get(hash) ?? missing(conversation, sub, row.seq, hash))
        yield joinEntry(row.body, row.blob_at, parts, row.blob_string)
      }
      // A conversation deleted while it was read ends the read.
      if (rows.length < Math.min(end, at + this.pageSize) - at) return
    }
  }

  async head(key: StoreKey): Promise<StoreHead> {
    const { conversation, sub } = checkKey(key)
    const { rows } = await this.run(() => this.driver.query<{ head: string; length: number }>(
      `SELECT head, length FROM ${this.tables.conversations} WHERE conversation = $1 AND sub = $2`, [conversation, sub ?? ''],
    ))
    return rows.length ? { head: rows[0].head, length: rows[0].length } : { head: '', length: 0 }
  }

  async *list(): AsyncIterable<ConversationSummary> {
    let after: string | null = null
    for (;;) {
      const { rows }: { rows: ConversationSummary[] } = await this.run(() => this.driver.query<ConversationSummary>(
        `SELECT conversation, length, head FROM ${this.tables.conversations} WHERE sub = '' AND length > 0 AND ($1::text IS NULL OR conversation > $1) ORDER BY conversation LIMIT $2`,
        [after, this.pageSize],
      ))
      for (const row of rows) yield { conversation: row.conversation, length: row.length, head: row.head }
      if (rows.length < this.pageSize) return
      after = rows[rows.length - 1].conversation
    }
  }

  async listSubkeys(conversation: string): Promise<string[]> {
    checkConversation(conversation)
    const { rows } = await this.run(() => this.driver.query<{ sub: string }>(
      `SELECT sub FROM ${this.tables.conversations} WHERE conversation = $1 AND sub <> '' AND length > 0 ORDER BY sub`, [conversation],
    ))
    return rows.map((row) => row.sub)
  }

  async delete(key: StoreKey): Promise<void> {
    const { conversation, sub } = checkKey(key)
    const t = this.tables
    const which = sub === undefined ? 'conversation = $1' : 'conversation = $1 AND sub = $2'
    const params = sub === undefined ? [conversation] : [conversation, sub]
    await this.run(() => this.driver.transaction(async (tx: SqlQueryable) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${t.blobLock})`)
      const { rows } = await tx.query<{ hash: string }>(`SELECT DISTINCT unnest(blob_hash) AS hash FROM ${t.entries} WHERE ${which}`, params)
      await tx.query(`DELETE FROM ${t.conversations} WHERE ${which}`, params)
      if (rows.length) {
        await tx.query(
          `DELETE FROM ${t.blobs} b WHERE b.hash = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM ${t.entries} e WHERE e.blob_hash @> ARRAY[b.hash])`,
          [rows.map((row) => row.hash)],
        )
      }
    }))
  }

  /** How many stored texts and entries the schema holds (all conversations): for retention reports and tests. */
  async counts(): Promise<{ conversations: number; entries: number; blobs: number; blobBytes: number; entryBytes: number }> {
    const t = this.tables
    const { rows } = await this.run(() => this.driver.query<Record<string, string | number>>(`SELECT
      (SELECT count(*) FROM ${t.conversations} WHERE sub = '') AS conversations,
      (SELECT count(*) FROM ${t.entries}) AS entries,
      (SELECT coalesce(sum(octet_length(body)), 0) FROM ${t.entries}) AS entry_bytes,
      (SELECT count(*) FROM ${t.blobs}) AS blobs,
      (SELECT coalesce(sum(octet_length(body)), 0) FROM ${t.blobs}) AS blob_bytes`))
    const row = rows[0]
    return { conversations: Number(row.conversations), entries: Number(row.entries), blobs: Number(row.blobs), blobBytes: Number(row.blob_bytes), entryBytes: Number(row.entry_bytes) }
  }

  close(): Promise<void> {
    return this.driver.close()
  }

  /** Runs a statement, turning "the tables do not exist" into `PGSTORE_NOT_SET_UP`. */
  private async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      const { code, message } = error as { code?: unknown; message?: string }
      if (code === '42P01' || code === '3F000') throw notSetUp(this.tables.schema, message ?? String(code))
      throw error
    }
  }
}

function missing(conversation: string, sub: string | undefined, index: number, hash: string): never {
  throw missingBlob(conversation, sub, index, hash)
}
