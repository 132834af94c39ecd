import { expect } from 'chai'
import { PGlite } from '@electric-sql/pglite'
import { conformanceCases, runCase, type ConformanceFactory } from 'dsh-store/conformance'
import { pgliteDriver, PostgresConversationStore } from 'dsh-store-postgres'
import { testPool } from './server.js'

let schemas = 0

/** Fresh storage on the server: a new schema of one database, set up by the first store opened. */
const server: ConformanceFactory = async () => {
  const pool = await testPool('conformance')
  const schema = `conformance_${process.pid}_${++schemas}`
  await PostgresConversationStore.fromPool(pool, { schema }).setup()
  return {
    open: async () => PostgresConversationStore.fromPool(pool, { schema }),
    // A worker that dies part-way through an append: its transaction inserted the entries, then the connection is gone.
    async tear(key, entries) {
      const client = await pool.connect()
      const store = new PostgresConversationStore({
        query: (text, params) => client.query(text, params) as never,
        transaction: async (work) => {
          await client.query('BEGIN')
          await work({ query: (text, params) => client.query(text, params) as never })
          throw Object.assign(new Error('killed'), { killed: true })
        },
        close: async () => {},
      }, { schema })
      const { head } = await store.head(key)
      await store.append(key, entries, { expectedHead: head }).catch((error) => { if (!(error as { killed?: boolean }).killed) throw error })
      // The connection dies with its transaction open: the server rolls it back.
      client.release(new Error('killed'))
    },
    dispose: async () => {
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`)
      await pool.end()
    },
  }
}

/** One PGlite database for the run (starting one takes seconds); each case gets a fresh schema in it. */
let pglite: Promise<PGlite> | undefined
after(async () => { if (pglite) await (await pglite).close() })

/** Fresh storage in PGlite: a new schema of the embedded database. */
const embedded: ConformanceFactory = async () => {
  const db = await (pglite ??= PGlite.create())
  const schema = `conformance_${++schemas}`
  await new PostgresConversationStore(pgliteDriver(db), { schema }).setup()
  return {
    open: async () => new PostgresConversationStore(pgliteDriver(db), { schema }),
    dispose: async () => { await db.query(`DROP SCHEMA "${schema}" CASCADE`) },
  }
}

describe('dsh-store-postgres: the conformance suite (R-STORE)', function () {
  this.timeout(120_000)
  for (const [name, factory] of [['a PostgreSQL server (pg pool)', server], ['PGlite (embedded)', embedded]] as const) {
    describe(name, () => {
      for (const check of conformanceCases) {
        if (check.needsTear && factory === embedded) continue
        it(check.name, async () => {
          expect(await runCase(check, factory)).to.equal('passed')
        })
      }
    })
  }
})
