/**
 * One conversation served by two workers through a conversation store (issue 22). Each worker boots
 * the deployment on its own (as two processes would) and, for each turn it is given, resumes the
 * conversation from the store, steps, sends the request with the official `openai` client to the local
 * mock of examples/harness (which refuses a request that does not repeat the previous one's messages
 * at its start: a resume that changed one byte fails here), records the reply and syncs. Turn 4
 * arrives at both workers at once: one appends first, the other gets STORE_CONFLICT, reloads and
 * plays its input after the winner's turn.
 *
 *   node --conditions=source --import tsx/esm examples/fleet/run.ts     (PGlite in memory: no server)
 *   DSH_POSTGRES_SOCKET=/tmp/dsh-pg node --conditions=source --import tsx/esm examples/fleet/run.ts
 *     (a PostgreSQL server: see scripts/postgres.sh; each worker gets its own pool)
 *
 * It prints each turn and exits 1, naming what went wrong, when the mock refused a request.
 * @module
 */
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import OpenAI from 'openai'
import pg from 'pg'
import { LedgerWriter, type Agent, type ChatRequest } from 'dsh-agent'
import { bootDeployment, type BootedDeployment } from 'dsh-boot'
import { ledgerStore, loadAll, type ConversationStore } from 'dsh-store'
import { PostgresConversationStore } from 'dsh-store-postgres'
import { startMockServer } from '../harness/mock-server.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const NOTES = join(HERE, '../harness/notes.md')
const KEY = { conversation: 'notes-chat' }

/** A worker: its own harness and its own connection to the store. */
interface Worker { name: string; dsh: BootedDeployment; store: ConversationStore; agent?: Agent }

/** Resumes the conversation as the store has it (the worker's previous agent disposed). */
async function resume(worker: Worker): Promise<{ agent: Agent; writer: LedgerWriter }> {
  await worker.agent?.dispose()
  const lines = await loadAll(worker.store, KEY)
  const agent = lines.length
    ? await worker.dsh.services.agents!.restore(lines)
    : await worker.dsh.createAgent({ id: 'notes', model: 'mock-model', provider: 'local-mock', cwd: dirname(NOTES) })
  worker.agent = agent
  return { agent, writer: new LedgerWriter(agent, ledgerStore(worker.store, KEY), { stored: lines.length }) }
}

/** Whether `error` says another worker appended first (after this worker's check, or before it). */
const lostRace = (error: unknown) => ['STORE_CONFLICT', 'AGENT_LEDGER_STORE_MISMATCH'].includes((error as { code?: string }).code ?? '')

/** Sends the agent's request, records the reply, runs `read` while the reply calls it; syncs after each record. */
async function converse(client: OpenAI, agent: Agent, writer: LedgerWriter, request: ChatRequest): Promise<string> {
  for (;;) {
    const message = (await client.chat.completions.create(request)).choices[0].message
    agent.record(message)
    await writer.sync()
    if (!message.tool_calls?.length) return message.content ?? ''
    for (const call of message.tool_calls) {
      agent.record({ role: 'tool', tool_call_id: call.id, content: call.type === 'function' ? await readFile(NOTES, 'utf8') : 'unknown tool' })
    }
    request = await agent.step()
    await writer.sync()
  }
}

/**
 * One turn on `worker`: resume, step, append the input, then send. When another worker appended first,
 * wait for that worker's turn (`other`) to end, then resume again and play the input after it.
 */
async function turn(client: OpenAI, worker: Worker, input: string, other?: () => Promise<unknown>): Promise<{ answer: string; retried: boolean }> {
  let retried = false
  for (;;) {
    const { agent, writer } = await resume(worker)
    const request = await agent.step(input)
    try {
      await writer.sync()
    } catch (error) {
      if (!lostRace(error) || !other) throw error
      retried = true
      await other()
      continue
    }
    return { answer: await converse(client, agent, writer, request), retried }
  }
}

async function main(): Promise<void> {
  const server = await startMockServer({ model: 'mock-model', tool: 'read', file: NOTES })
  const socket = process.env.DSH_POSTGRES_SOCKET
  const pools = socket ? [0, 1].map(() => new pg.Pool({ host: socket, user: 'postgres', max: 2 })) : []
  const embedded = socket ? undefined : await PostgresConversationStore.embedded()
  const stores = socket ? pools.map((pool) => PostgresConversationStore.fromPool(pool, { schema: `fleet_example_${process.pid}` })) : [embedded!, embedded!]
  await stores[0].setup()
  const workers: Worker[] = []
  for (const [index, name] of ['A', 'B'].entries()) workers.push({ name, dsh: await bootDeployment(join(HERE, 'deployment.yml')), store: stores[index] })
  const client = new OpenAI({ baseURL: server.url, apiKey: 'not-used-by-the-mock', maxRetries: 0 })
  let retries = 0
  try {
    const inputs = ['Hello! What can you do?', 'I keep my release notes in a file.', 'What does notes.md say about the first release?', 'Thanks.']
    for (const [index, input] of inputs.entries()) {
      const worker = workers[index % 2]
      const { answer } = await turn(client, worker, input)
      console.log(`turn ${index + 1} on worker ${worker.name}: ${answer}`)
    }
    // Two messages of the conversation reach both workers at once.
    const first: Promise<unknown> = turn(client, workers[0], 'One more thing (to worker A).', () => second.catch(() => {}))
    const second: Promise<unknown> = turn(client, workers[1], 'And another (to worker B).', () => first.catch(() => {}))
    for (const [index, result] of (await Promise.all([first, second]) as { answer: string; retried: boolean }[]).entries()) {
      if (result.retried) retries++
      console.log(`turn ${5 + index} on worker ${workers[index].name}${result.retried ? ' (lost the race: reloaded and retried)' : ''}: ${result.answer}`)
    }
    if (server.failures.length) throw new Error(`the mock server refused requests:\n${server.failures.join('\n')}`)
    const lines = await loadAll(stores[0], KEY)
    console.log(`ok: ${server.requests.length} requests from two workers, each extending the one before; ${lines.length} ledger lines; ${retries} input played again after the other worker appended first`)
  } finally {
    for (const worker of workers) await worker.dsh.dispose()
    if (socket) await pools[0].query(`DROP SCHEMA IF EXISTS "fleet_example_${process.pid}" CASCADE`)
    for (const pool of pools) await pool.end()
    await embedded?.close()
    await server.close()
  }
}

main().catch((error) => {
  console.error(`fleet example failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
