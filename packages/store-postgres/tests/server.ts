/**
 * The PostgreSQL server the tests run against: a real server, never a mock. `DSH_POSTGRES_SOCKET`
 * names a running one (a folder with its Unix socket; user `postgres`); otherwise the first test that
 * asks starts a scratch server with scripts/postgres.sh, and the root `after` hook stops it. When the
 * server cannot start (PostgreSQL not installed), the tests fail with the script's message.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

const SCRIPT = fileURLToPath(new URL('../../../scripts/postgres.sh', import.meta.url))

let started: { socket: string; folder?: string } | undefined

/** The socket folder of the test server, started on first use. */
export function postgresSocket(): string {
  if (started) return started.socket
  const given = process.env.DSH_POSTGRES_SOCKET
  if (given) return (started = { socket: given }).socket
  const folder = mkdtempSync(join(tmpdir(), 'dsh-pg-'))
  try {
    execFileSync('bash', [SCRIPT, 'start', folder], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (error) {
    rmSync(folder, { recursive: true, force: true })
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim()
    throw Object.assign(new Error(`the dsh-store-postgres tests need a PostgreSQL server and could not start one with scripts/postgres.sh:\n${stderr || (error as Error).message}\n(run the tests with 'bash scripts/dsh.sh test', which installs PostgreSQL, or set DSH_POSTGRES_SOCKET to a running server's socket folder)`), { code: 'TEST_NO_POSTGRES' })
  }
  return (started = { socket: folder, folder }).socket
}

/** A pool on the test server's database `database` (created when missing). */
export async function testPool(database = 'postgres', max = 10): Promise<pg.Pool> {
  const host = postgresSocket()
  if (database !== 'postgres') {
    const admin = new pg.Client({ host, user: 'postgres', database: 'postgres' })
    await admin.connect()
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])
      if (!rowCount) await admin.query(`CREATE DATABASE "${database}"`)
    } finally {
      await admin.end()
    }
  }
  return new pg.Pool({ host, user: 'postgres', database, max })
}

after(() => {
  if (!started?.folder) return
  try {
    execFileSync('bash', [SCRIPT, 'stop', started.folder], { stdio: 'ignore' })
  } finally {
    rmSync(started.folder, { recursive: true, force: true })
    started = undefined
  }
})
