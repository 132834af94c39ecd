/**
 * The store's SQL schema and its migrations. `setup()` creates the schema and applies each migration
 * the database lacks, in one transaction under an advisory lock, so workers that start together set
 * it up once. The same statements run on a PostgreSQL server and on PGlite.
 * @module
 */
import { invalidSchema, newerSchema } from './errors.js'
import type { SqlDriver } from './sql-driver.js'

/** The tables of one schema, quoted: `"public"."dsh_entries"`. */
export interface Tables {
  readonly schema: string
  readonly conversations: string
  readonly entries: string
  readonly blobs: string
  readonly migrations: string
  /** The advisory lock key of this schema's setup, and the one that keeps blob collection apart from appends. */
  readonly setupLock: string
  readonly blobLock: string
}

/** The tables of `schema`; `PGSTORE_INVALID_SCHEMA` for a name that is not a plain identifier. */
export function tablesOf(schema: string): Tables {
  if (typeof schema !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw invalidSchema(schema)
  const q = (name: string) => `"${schema}"."${name}"`
  return {
    schema, conversations: q('dsh_conversations'), entries: q('dsh_entries'), blobs: q('dsh_blobs'), migrations: q('dsh_store_migrations'),
    setupLock: `hashtext('dsh-store setup ${schema}')`, blobLock: `hashtext('dsh-store blobs ${schema}')`,
  }
}

/**
 * The migrations, in order: version n is `MIGRATIONS[n - 1]`. Never edit one that has shipped; add
 * the next. A key's own ledger has `sub` '' (sub-keys are non-empty). An entry's `body` is its line
 * with its stored texts cut out (`blob_at`, `blob_hash`: where they go back, and which). Version 2 adds
 * `blob_string`: whether each text goes back as the inside of a JSON string (a prompt version's
 * section, stored as its own text); rows of version 1 have none, so all theirs go back as they are.
 */
export const MIGRATIONS: readonly ((t: Tables) => string)[] = [
  (t) => `
    CREATE TABLE ${t.conversations} (
      conversation text COLLATE "C" NOT NULL,
      sub text COLLATE "C" NOT NULL DEFAULT '',
      head text NOT NULL,
      length integer NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (conversation, sub)
    );
    CREATE TABLE ${t.entries} (
      conversation text COLLATE "C" NOT NULL,
      sub text COLLATE "C" NOT NULL,
      seq integer NOT NULL,
      hash text NOT NULL,
      body text NOT NULL,
      blob_at integer[] NOT NULL,
      blob_hash text[] NOT NULL,
      PRIMARY KEY (conversation, sub, seq),
      FOREIGN KEY (conversation, sub) REFERENCES ${t.conversations} (conversation, sub) ON DELETE CASCADE
    );
    CREATE INDEX ON ${t.entries} USING gin (blob_hash);
    CREATE TABLE ${t.blobs} (
      hash text PRIMARY KEY,
      body text NOT NULL
    );`,
  (t) => `
    ALTER TABLE ${t.entries} ADD COLUMN blob_string boolean[] NOT NULL DEFAULT '{}'`,
]

/** Creates the schema and applies the migrations it lacks; resolves to the version it is at. */
export async function setupSchema(driver: SqlDriver, t: Tables): Promise<number> {
  return driver.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${t.setupLock})`)
    await tx.query(`CREATE SCHEMA IF NOT EXISTS "${t.schema}"`)
    await tx.query(`CREATE TABLE IF NOT EXISTS ${t.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
    const { rows } = await tx.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${t.migrations}`)
    const at = rows[0]?.version ?? 0
    if (at > MIGRATIONS.length) throw newerSchema(t.schema, at, MIGRATIONS.length)
    for (let version = at + 1; version <= MIGRATIONS.length; version++) {
      for (const statement of MIGRATIONS[version - 1](t).split(';').map((text) => text.trim()).filter(Boolean)) await tx.query(statement)
      await tx.query(`INSERT INTO ${t.migrations} (version) VALUES ($1)`, [version])
    }
    return MIGRATIONS.length
  })
}
