/**
 * A complete harness loop on dsh: one call boots the deployment file next to this one, then six user
 * turns go through the official `openai` client to a local OpenAI-compatible mock server (127.0.0.1,
 * an ephemeral port), each answer streamed (`step(input, { fields: { stream: true } })`). One turn has a tool call: the harness runs `read` and sends the result back. At
 * turn 4 the harness adds a fact to the runtime context, and at turn 6 takes it away again. Then the
 * same tool loop runs once in every wire format (formats.ts), each through its provider's official
 * client against format-mock.ts, every reply recorded through its format's reader. Last, the notes
 * conversation grows long and is compacted through a `compact` fork, and goes on (compaction.ts).
 *
 *   yarn harness                                   (from the repository root, no build needed)
 *   node --import tsx/esm examples/harness/run.ts  (the same, by hand)
 *
 * It exits 1, naming what went wrong, when a mock server refused a request or the loop went astray.
 * @module
 */
import { readFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import OpenAI from 'openai'
import { REPLY_FORMATS, replyAccumulator, type Agent, type ToolCall } from 'dsh-agent'
import { bootDeployment, type BootedDeployment } from 'dsh-boot'
import { compactAndGoOn } from './compaction.js'
import { startFormatMock } from './format-mock.js'
import { formatTurn } from './formats.js'
import { startMockServer } from './mock-server.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const NOTES = join(HERE, 'notes.md')

/** The user's six turns; the third makes the model call `read`. */
const TURNS = [
  'Hello! What can you do?',
  'I keep my release notes in a file.',
  'What does notes.md say about the first release?',
  'Thanks. Keep that file in mind.',
  'Which file is open now?',
  'That is all for today.',
]

/** Runs one tool call the way a harness does: here only `read`, and only inside this folder. */
async function runTool(call: OpenAI.Chat.ChatCompletionMessageToolCall | ToolCall): Promise<string> {
  if (call.type !== 'function' || call.function.name !== 'read') return `error: unknown tool ${JSON.stringify(call.type === 'function' ? call.function.name : call.type)}`
  const { path } = JSON.parse(call.function.arguments) as { path: string }
  if (relative(HERE, path).startsWith('..')) return `error: ${path} is outside the notes folder`
  const lines = (await readFile(path, 'utf8')).split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines.map((line, index) => `${String(index + 1).padStart(6)}\t${line}`).join('\n')
}

/** The provider's own body fields every request carries: the answer streams, its usage in the last chunk. */
const STREAMED = { fields: { stream: true, stream_options: { include_usage: true } } } as const

/**
 * One user turn: step (records the input and whatever changed in the prompt or the runtime context),
 * send, record the reply; while the reply calls tools, run them, record each result and step again.
 */
async function turn(client: OpenAI, agent: Agent, input: string): Promise<{ answer: string; requests: number }> {
  let request = await agent.step(input, STREAMED)
  for (let requests = 1; requests <= 4; requests++) {
    // dsh-agent's request is the SDK's streaming request type; the chunks are put back together into the
    // reply the same call returns unstreamed, and recorded through the format's reader (usage included).
    const reply = replyAccumulator('openai-chat')
    for await (const chunk of await client.chat.completions.create(request)) reply.push(chunk)
    // A call to a tool the agent keeps declared but cannot run now (its plugin is gone) comes back with its answer.
    const unavailable = new Map(agent.record(reply.result(), { format: 'openai-chat' }).map((found) => [found.call.id, found.result]))
    const message = agent.conversation.at(-1)!
    if (message.role !== 'assistant' || !message.tool_calls?.length) return { answer: message.content ?? '', requests }
    for (const call of message.tool_calls) agent.record(unavailable.get(call.id) ?? { role: 'tool', tool_call_id: call.id, content: await runTool(call) })
    request = await agent.step(undefined, STREAMED)
  }
  throw new Error('the model kept calling tools for four requests in a row')
}

async function main(): Promise<void> {
  const server = await startMockServer({ model: 'mock-model', tool: 'read', file: NOTES })
  // Everything the file declares, and the agent `notes` of its agents:, with {{cwd}} set to this folder.
  // check: a first step that would throw fails the boot instead (boot-check.ts in dsh-boot).
  const dsh = await bootDeployment(join(HERE, 'deployment.yml'), { env: { ...process.env, NOTES_DIR: HERE }, check: true })
  let sent = 0
  try {
    const client = new OpenAI({ baseURL: server.url, apiKey: 'not-used-by-the-mock', maxRetries: 0 })
    const agent = dsh.agent('notes')!
    let closeFile: (() => void) | undefined
    for (const [index, input] of TURNS.entries()) {
      // A runtime-context change: the next step appends a new snapshot; the system prompt stays as it was.
      if (index === 3) closeFile = dsh.ctx.systemPrompt.context({ name: 'harness:open-file', order: 200, text: `Open file: ${NOTES}` })
      if (index === 5) closeFile?.()
      const { answer, requests } = await turn(client, agent, input)
      sent += requests
      console.log(`turn ${index + 1}: ${input}\n  -> ${answer}${requests > 1 ? ` (${requests} requests: a tool call and its result)` : ''}`)
    }
    const systems = agent.conversation.filter((entry) => entry.source === 'system-prompt').length
    const snapshots = agent.conversation.filter((entry) => entry.source === 'runtime-context').length
    if (sent !== 7 || server.requests.length !== 7) throw new Error(`expected 7 requests (6 turns, one with a tool result), the server got ${server.requests.length}`)
    if (systems !== 1 || snapshots !== 3) throw new Error(`expected 1 system prompt and 3 runtime-context snapshots in the record, found ${systems} and ${snapshots}`)
    console.log(`ok: ${TURNS.length} turns, ${sent} requests, ${agent.conversation.length} messages in the record (1 system prompt, ${snapshots} runtime-context snapshots)`)
    await everyFormat(dsh)
    const more = await compactAndGoOn(client, agent, turn)
    if (server.requests.length !== sent + more) throw new Error(`expected ${sent + more} requests, the server got ${server.requests.length}`)
  } finally {
    await dsh.dispose()
    await server.close()
  }
  if (server.failures.length) throw new Error(`the mock server refused requests:\n  ${server.failures.join('\n  ')}`)
}

/**
 * The same tool loop in every wire format (formats.ts): one agent per format, each reply recorded as
 * its provider's client returned it, its reasoning state sent back on the next request.
 */
async function everyFormat(dsh: BootedDeployment): Promise<void> {
  const mock = await startFormatMock(NOTES, (result) => `From the notes: ${(result.split('\n').find((line) => line.includes('0.1.0')) ?? '').replace(/^\s*\d+\s+/, '')}`)
  try {
    for (const format of REPLY_FORMATS) {
      // The diagnostics bridge: requests name the previous reply, and the report joins the provider's diagnosis with dsh's.
      const agent = await dsh.createAgent({ id: `notes-${format}`, model: 'mock-model', cwd: HERE, wire: { diagnostics: true } })
      const { answer, report } = await formatTurn(mock.origin, agent, format, 'What does notes.md say about the first release?', runTool)
      const kept = agent.conversation.some((item) => item.role === 'assistant' && item.parts !== undefined)
      const miss = report.providerMiss
      const diagnosis = miss ? `; the provider's cache diagnosis (${miss.reason}) ${miss.verdict === 'agrees' ? 'agrees with' : `${miss.verdict}: not`} dsh's` : ''
      console.log(`${format}: ${answer} (2 requests, the answer streamed${kept ? '; the reasoning state recorded and sent back' : ''}${diagnosis})`)
    }
    const served = REPLY_FORMATS.map((format) => mock.served[format] ?? 0)
    if (served.some((count) => count !== 2)) throw new Error(`expected 2 requests per format, the format mock served ${served.join(', ')}`)
    console.log(`ok: ${REPLY_FORMATS.length} formats, ${served.reduce((a, b) => a + b)} requests, every reply recorded through its format's reader (each answer streamed)`)
  } finally {
    await mock.close()
  }
  if (mock.failures.length) throw new Error(`the format mock refused requests:\n  ${mock.failures.join('\n  ')}`)
}

main().catch((error: unknown) => {
  console.error(`harness example failed: ${error instanceof Error ? error.message : String(error)}`)
  const problems = (error as { details?: { problems?: unknown[] } }).details?.problems
  if (problems) console.error(JSON.stringify(problems, null, 2))
  process.exitCode = 1
})
