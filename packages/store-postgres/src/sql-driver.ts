/**
 * The small query interface the store runs on, and its two drivers: node-postgres (a `pg.Pool` the
 * harness owns and passes in) and PGlite (PostgreSQL compiled to WebAssembly, in-process). The store
 * speaks one SQL to both; a driver only runs a statement with `$n` parameters and a transaction.
 * @module
 */
import type { PGlite, Transaction } from '@electric-sql/pglite'
import type { Pool, PoolClient } from 'pg'

/** Runs one statement with `$1`-style parameters. */
export interface SqlQueryable {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[] }>
}

/** A database the store can use: statements, and transactions on one connection. */
export interface SqlDriver extends SqlQueryable {
  /** Runs `work` in a transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>
  /** Closes what the driver opened itself (an embedded database); a pool passed in is the caller's to end. */
  close(): Promise<void>
}

/** A driver over a node-postgres pool (the caller ends the pool). */
export function pgDriver(pool: Pool): SqlDriver {
  return {
    query: async <R>(text: string, params?: unknown[]) => ({ rows: (await pool.query(text, params)).rows as R[] }),
    async transaction(work) {
      const client: PoolClient = await pool.connect()
      let broken: Error | undefined
      try {
        await client.query('BEGIN')
        const result = await work({ query: async <R>(text: string, params?: unknown[]) => ({ rows: (await client.query(text, params)).rows as R[] }) })
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch((rollback: Error) => { broken = rollback })
        throw error
      } finally {
        // A connection whose rollback failed is dropped, not returned to the pool.
        client.release(broken)
      }
    },
    close: async () => {},
  }
}

/** A driver over a PGlite database; `owned` makes `close()` close it. */
export function pgliteDriver(db: PGlite, owned = false): SqlDriver {
  const wrap = (target: PGlite | Transaction): SqlQueryable => ({
    query: async <R>(text: string, params?: unknown[]) => ({ rows: (await target.query<R>(text, params)).rows }),
  })
  return {
    ...wrap(db),
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    close: async () => { if (owned) await db.close() },
  }
}
