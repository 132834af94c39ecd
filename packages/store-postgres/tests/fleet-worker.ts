/**
 * One worker of the fleet test: a process of its own with its own harness, resuming the conversation
 * from PostgreSQL before each turn it is given. Messages from the test: `turn` (resume, play, write
 * through a LedgerWriter), `prepare` then `go` (two workers append at the same head), `die` (resume,
 * play, and be killed inside the append's transaction, before it commits), `exit`.
 */
import { ledgerLines, LedgerWriter, type Agent } from 'dsh-agent'
import { ledgerStore, loadAll, type StoreHead } from 'dsh-store'
import { PostgresConversationStore, pgDriver, type SqlDriver } from 'dsh-store-postgres'
import pg from 'pg'
import { AGENT, fleetHarness, playTurn } from './fleet-script.js'

type Message =
  | { kind: 'turn'; turn: number }
  | { kind: 'prepare'; turn: number; from: string }
  | { kind: 'go' }
  | { kind: 'die'; turn: number }
  | { kind: 'exit' }

const [socket, database, schema, name] = process.argv.slice(2)
const pool = new pg.Pool({ host: socket, user: 'postgres', database, max: 2 })
const store = PostgresConversationStore.fromPool(pool, { schema })
const key = { conversation: 'fleet' }
const booted = await fleetHarness()
let agent: Agent | undefined
let prepared: { turn: number; from: string; lines: string[]; stored: StoreHead; request: string } | undefined

const send = (message: Record<string, unknown>) => process.send!({ worker: name, ...message })

/** The agent as the store has it now (the previous one disposed). */
async function resume(): Promise<{ agent: Agent; stored: StoreHead }> {
  await agent?.dispose()
  const lines = await loadAll(store, key)
  agent = lines.length ? await booted.host.agents.restore(lines) : await booted.host.agents.create({ id: AGENT, model: 'deepseek-chat' })
  return { agent, stored: { head: lines.length ? JSON.parse(lines[lines.length - 1]).hash : '', length: lines.length } }
}

/** Resumes and plays `turn`; returns the lines it adds to the ledger. */
async function play(turn: number, from?: string) {
  const { agent, stored } = await resume()
  const request = await playTurn(agent, turn, from)
  return { agent, stored, request, lines: ledgerLines(agent).slice(stored.length) }
}

process.on('message', async (message: Message) => {
  try {
    if (message.kind === 'turn') {
      const { agent, stored } = await resume()
      const writer = new LedgerWriter(agent, ledgerStore(store, key), { stored: stored.length })
      const request = await playTurn(agent, message.turn)
      await writer.sync()
      send({ kind: 'done', turn: message.turn, request, head: writer.head })
    } else if (message.kind === 'prepare') {
      const played = await play(message.turn, message.from)
      prepared = { turn: message.turn, from: message.from, lines: played.lines, stored: played.stored, request: played.request }
      send({ kind: 'ready' })
    } else if (message.kind === 'go') {
      const { turn, from } = prepared!
      let { lines, stored, request } = prepared!
      let conflicts = 0
      for (;;) {
        try {
          const head = await store.append(key, lines, { expectedHead: stored.head })
          send({ kind: 'done', turn, request, head: head.head, conflicts })
          break
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'STORE_CONFLICT') throw error
          // Another worker appended first: reload, play this input again after its turn, retry.
          conflicts++
          ;({ lines, stored, request } = await play(turn + 1, from))
        }
      }
    } else if (message.kind === 'die') {
      const { lines, stored } = await play(message.turn)
      // The append's statements run; before COMMIT the process is killed, as an OOM kill or a deploy would.
      const driver: SqlDriver = { ...pgDriver(pool), transaction: async (work) => {
        const client = await pool.connect()
        await client.query('BEGIN')
        await work({ query: async (text, params) => ({ rows: (await client.query(text, params)).rows }) })
        send({ kind: 'dying', lines: lines.length })
        await new Promise((resolve) => setTimeout(resolve, 50))
        process.kill(process.pid, 'SIGKILL')
        return undefined as never
      } }
      await new PostgresConversationStore(driver, { schema }).append(key, lines, { expectedHead: stored.head })
    } else if (message.kind === 'exit') {
      await agent?.dispose()
      await pool.end()
      process.exit(0)
    }
  } catch (error) {
    send({ kind: 'error', code: (error as { code?: unknown }).code, message: (error as Error).message })
  }
})

send({ kind: 'started' })
