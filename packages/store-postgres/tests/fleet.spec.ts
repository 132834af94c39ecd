/**
 * The fleet test (issue 22): worker processes share one conversation through PostgreSQL. Two workers
 * take turns stepping a 200-turn conversation, each resuming from the database before its turn, and
 * every request is byte-identical to one process playing the same script alone. Two workers that
 * append at the same head: one wins, the other gets STORE_CONFLICT, reloads and retries. A worker
 * killed inside its append leaves nothing behind.
 */
import { expect } from 'chai'
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { exportLedger, readLedger } from 'dsh-agent'
import { loadAll } from 'dsh-store'
import { PostgresConversationStore } from 'dsh-store-postgres'
import type pg from 'pg'
import { AGENT, fleetHarness, playTurn } from './fleet-script.js'
import { postgresSocket, testPool } from './server.js'

const WORKER = fileURLToPath(new URL('./fleet-worker.ts', import.meta.url))
const DATABASE = 'fleet'
const TURNS = 200

interface Reply { worker: string; kind: string; [field: string]: unknown }

/** A worker process and a way to wait for its next message. */
class Worker {
  readonly process: ChildProcess
  private readonly inbox: Reply[] = []
  private waiting: ((reply: Reply) => void) | undefined

  constructor(readonly name: string, schema: string) {
    this.process = fork(WORKER, [postgresSocket(), DATABASE, schema, name], { execArgv: ['--conditions=source', '--import', 'tsx/esm'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    this.process.on('message', (reply: Reply) => {
      if (this.waiting) {
        const resolve = this.waiting
        this.waiting = undefined
        resolve(reply)
      } else this.inbox.push(reply)
    })
  }

  /** The next message from the worker (an `error` message fails the test with the worker's words). */
  async next(): Promise<Reply> {
    const reply = this.inbox.shift() ?? await new Promise<Reply>((resolve) => { this.waiting = resolve })
    if (reply.kind === 'error') throw new Error(`worker ${this.name}: ${reply.code ?? ''} ${reply.message}`)
    return reply
  }

  async ask(message: Record<string, unknown>): Promise<Reply> {
    this.process.send(message)
    return this.next()
  }

  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return Promise.resolve({ code: this.process.exitCode, signal: this.process.signalCode })
    return new Promise((resolve) => this.process.once('exit', (code, signal) => resolve({ code, signal })))
  }
}

describe('dsh-store-postgres: a fleet of workers on one conversation (issue 22)', function () {
  this.timeout(600_000)
  let pool: pg.Pool
  let schema: string
  let store: PostgresConversationStore
  let runs = 0
  const workers: Worker[] = []

  before(async () => { pool = await testPool(DATABASE) })
  after(async () => { await pool?.end() })
  beforeEach(async () => {
    schema = `fleet_${process.pid}_${++runs}`
    store = PostgresConversationStore.fromPool(pool, { schema })
    await store.setup()
    for (const name of ['A', 'B']) workers.push(new Worker(name, schema))
    for (const worker of workers) expect((await worker.next()).kind).to.equal('started')
  })
  afterEach(async () => {
    for (const worker of workers.splice(0)) {
      if (worker.process.exitCode === null && worker.process.signalCode === null) {
        worker.process.send({ kind: 'exit' })
        await worker.exited()
      }
    }
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  })

  it('two workers take turns on a 200-turn conversation, each resuming from PostgreSQL: every request is byte-identical to one process alone', async () => {
    const alone = await fleetHarness()
    const agent = await alone.host.agents.create({ id: AGENT, model: 'deepseek-chat' })
    const expected: string[] = []
    for (let turn = 0; turn < TURNS; turn++) expected.push(await playTurn(agent, turn))

    const sent: string[] = []
    for (let turn = 0; turn < TURNS; turn++) {
      const reply = await workers[turn % 2].ask({ kind: 'turn', turn })
      sent.push(reply.request as string)
    }
    const different = sent.findIndex((request, turn) => request !== expected[turn])
    expect(different, `turn ${different} differs`).to.equal(-1)
    expect(sent).to.have.length(TURNS)
    // The stored ledger is the lone process's ledger, byte for byte.
    const stored = await loadAll(store, { conversation: 'fleet' })
    expect(stored.map((line) => line + '\n').join('')).to.equal(exportLedger(agent))
  })

  it('two workers append at the same head at once: exactly one wins, the other gets STORE_CONFLICT, reloads and retries after it', async () => {
    await workers[0].ask({ kind: 'turn', turn: 0 })
    expect((await workers[0].ask({ kind: 'prepare', turn: 1, from: 'A' })).kind).to.equal('ready')
    expect((await workers[1].ask({ kind: 'prepare', turn: 1, from: 'B' })).kind).to.equal('ready')
    for (const worker of workers) worker.process.send({ kind: 'go' })
    const results = await Promise.all(workers.map((worker) => worker.next()))
    expect(results.map((result) => result.conflicts).sort()).to.deep.equal([0, 1])
    const winner = results.find((result) => result.conflicts === 0)!.worker
    const loser = winner === 'A' ? 'B' : 'A'
    // One chain: the winner's turn, then the loser's, each input once.
    const lines = await loadAll(store, { conversation: 'fleet' })
    const ledger = readLedger(lines)
    const inputs = ledger.entries.filter((entry) => entry.source === 'user').map((entry) => entry.content)
    expect(inputs).to.deep.equal(['Turn 0.', `Turn 1 from ${winner}.`, `Turn 2 from ${loser}.`])
    expect(ledger.head).to.equal((await store.head({ conversation: 'fleet' })).head)
  })

  it('a worker killed inside its append (statements run, no COMMIT) leaves nothing: the other worker resumes at the head before it', async () => {
    for (let turn = 0; turn < 4; turn++) await workers[turn % 2].ask({ kind: 'turn', turn })
    const before = await loadAll(store, { conversation: 'fleet' })
    const dying = workers[0]
    const exit = dying.exited()
    expect((await dying.ask({ kind: 'die', turn: 4 })).kind).to.equal('dying')
    expect(await exit).to.deep.equal({ code: null, signal: 'SIGKILL' })
    // The server rolls the dead connection's transaction back; until then the row lock holds the next writer.
    expect(await loadAll(store, { conversation: 'fleet' })).to.deep.equal(before)
    const reply = await workers[1].ask({ kind: 'turn', turn: 4 })
    const after = await loadAll(store, { conversation: 'fleet' })
    expect(after.slice(0, before.length)).to.deep.equal(before)
    expect(readLedger(after).head).to.equal(reply.head)
    expect(await store.counts()).to.include({ entries: after.length })
  })
})
