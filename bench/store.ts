/**
 * Conversation stores (issue 22): loading and resuming 1,000 and 10,000 ledger entries, and appending
 * one turn, from PostgreSQL (a scratch server on a Unix socket, started with scripts/postgres.sh unless
 * DSH_POSTGRES_SOCKET names one) and PGlite, against the file store, in the same run. "resume" is load
 * plus `agents.restore()`; the ledger is a real agent's (a section added every 500 turns). Then the
 * bytes the 10,000-entry conversation takes in PostgreSQL with prompt versions stored whole and
 * section by section (R-STORE-6), against the file.
 *
 *   node --conditions=source --import tsx/esm bench/store.ts
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { ledgerLines } from 'dsh-agent'
import { FileConversationStore, loadAll, type ConversationStore } from 'dsh-store'
import { PostgresConversationStore } from 'dsh-store-postgres'
import { bootApp } from 'dsh-testing'
import pg from 'pg'

const SCRIPT = fileURLToPath(new URL('../scripts/postgres.sh', import.meta.url))
const SIZES = [1000, 10000]
const scratch = mkdtempSync(join(tmpdir(), 'dsh-bench-store-'))
let serverFolder: string | undefined

async function main(): Promise<void> {
  let socket = process.env.DSH_POSTGRES_SOCKET
  if (!socket) {
    serverFolder = mkdtempSync(join(tmpdir(), 'dsh-bench-pg-'))
    socket = execFileSync('bash', [SCRIPT, 'start', serverFolder], { encoding: 'utf8' }).trim()
  }
  const pool = new pg.Pool({ host: socket, user: 'postgres', database: 'postgres', max: 4 })
  const booted = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief. '.repeat(300) }, agents: { promptChange: 'append' } })
  const agent = await booted.host.agents.create({ id: 'bench', model: 'deepseek-chat' })
  for (let turn = 0; agent.conversation.length < SIZES[SIZES.length - 1]; turn++) {
    if (turn % 500 === 499) agent.ctx.systemPrompt.section({ name: `bench:phase${turn}`, order: 400, text: `Phase ${turn}. `.repeat(50) })
    await agent.step(`Turn ${turn}: ${'a question of some length '.repeat(4)}`)
    agent.record({ role: 'assistant', content: `Reply ${turn}: ${'an answer of some length '.repeat(6)}` })
  }
  const all = ledgerLines(agent)
  const resumer = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief. '.repeat(300) }, agents: { promptChange: 'append' } })
  const server = PostgresConversationStore.fromPool(pool, { schema: `bench_${process.pid}` })
  await server.setup()
  const embedded = await PostgresConversationStore.embedded()
  await embedded.setup()
  const stores: Record<string, ConversationStore> = { file: new FileConversationStore(join(scratch, 'files')), postgres: server, pglite: embedded }

  const rows: string[][] = []
  for (const size of SIZES) {
    const lines = all.slice(0, size)
    const key = { conversation: `c${size}` }
    const figures: Record<string, Record<string, number>> = {}
    for (const [name, store] of Object.entries(stores)) {
      let head = ''
      for (let at = 0; at < lines.length; at += 500) head = (await store.append(key, lines.slice(at, at + 500), { expectedHead: head })).head
      const load = await median(5, () => loadAll(store, key))
      const resume = await median(3, async () => {
        const restored = await resumer.host.agents.restore(await loadAll(store, key))
        await restored.dispose()
      })
      // One turn: two entries at the head (their own chain: the store reads only `hash`).
      let n = 0
      const append = await median(5, async () => {
        for (let i = 0; i < 20; i++) head = (await store.append(key, [JSON.stringify({ n: ++n, hash: `t${n}a` }), JSON.stringify({ n, hash: `t${n}b` })], { expectedHead: head })).head
      }) / 20
      figures[name] = { load, resume, append }
    }
    for (const [what, label] of [['load', `load ${size.toLocaleString('en')} entries`], ['resume', `resume ${size.toLocaleString('en')} (load + restore)`], ['append', `append one turn (2 entries) at ${size.toLocaleString('en')}`]] as const) {
      const f = figures.file[what]
      rows.push([label, ms(f), ms(figures.postgres[what]), ms(figures.pglite[what]), `${(figures.postgres[what] / f).toFixed(2)}x`, `${(figures.pglite[what] / f).toFixed(2)}x`])
    }
  }
  console.log(`ledger: ${all.length} lines, ${(Buffer.byteLength(all.join('\n')) / 1024).toFixed(0)} KB; file store with fdatasync; PostgreSQL 15 on a Unix socket (fsync off, scratch cluster)\n`)
  const header = ['measurement', 'file', 'postgres', 'pglite', 'postgres / file', 'pglite / file']
  const widths = header.map((cell, index) => Math.max(cell.length, ...rows.map((row) => row[index].length)))
  for (const row of [header, ...rows]) console.log(row.map((cell, index) => (index ? cell.padStart(widths[index]) : cell.padEnd(widths[index]))).join('  '))
  console.log(`\nstorage of the ${all.length.toLocaleString('en')}-entry conversation (${all.filter((line) => line.includes('"source":"system-prompt"')).length} prompt versions): file ${Buffer.byteLength(all.map((line) => line + '\n').join('')).toLocaleString('en')} B`)
  for (const [name, sectionBlobs] of [['whole versions', false], ['sections', true]] as const) {
    const schema = `bench_${process.pid}_${sectionBlobs ? 'sections' : 'whole'}`
    const store = PostgresConversationStore.fromPool(pool, { schema, sectionBlobs })
    await store.setup()
    let head = ''
    for (let at = 0; at < all.length; at += 500) head = (await store.append({ conversation: 'all' }, all.slice(at, at + 500), { expectedHead: head })).head
    const counts = await store.counts()
    const load = await median(5, () => loadAll(store, { conversation: 'all' }))
    console.log(`  postgres, ${name}: ${counts.entryBytes.toLocaleString('en')} B of entries + ${counts.blobBytes.toLocaleString('en')} B in ${counts.blobs} stored texts; load all ${ms(load)}`)
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`)
  }
  await embedded.close()
  await pool.query(`DROP SCHEMA "bench_${process.pid}" CASCADE`)
  await pool.end()
}

/** The median of `rounds` timed runs of `run`, in milliseconds, after one warm-up run. */
async function median(rounds: number, run: () => Promise<unknown>): Promise<number> {
  await run()
  const times: number[] = []
  for (let i = 0; i < rounds; i++) {
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
  }
  return times.sort((a, b) => a - b)[Math.floor(rounds / 2)]
}

const ms = (value: number) => `${value.toFixed(2)} ms`

try {
  await main()
} finally {
  if (serverFolder) {
    execFileSync('bash', [SCRIPT, 'stop', serverFolder])
    rmSync(serverFolder, { recursive: true, force: true })
  }
  rmSync(scratch, { recursive: true, force: true })
}
