// Compiled by the packaging test (scripts/packaging-test.mjs) in a fresh npm project, against the
// declarations the published packages install: `tsc --module nodenext --strict --skipLibCheck`.
// It uses every package the way a harness or a plugin author would; each `@ts-expect-error` proves that
// a type is real (were it `any`, the directive would be unused, and tsc fails on that too). It imports
// nothing from `cordis` itself: under nodenext, cordis 4.0.0-rc.10's declarations export nothing (their
// relative re-exports have no file extension), so that part is `consumer-cordis.ts`, checked with
// `--moduleResolution bundler`.
import OpenAI from 'openai'
import { LedgerWriter, type Agent, type ChatRequest, type RecordedMessage } from 'dsh-agent'
import { bootDeployment, type BootedDeployment } from 'dsh-boot'
import { DeploymentError, type Problem } from 'dsh-loader'
import { main as cli } from 'dsh-prompt'
import { scopeLabel } from 'dsh-scope'
import { renderPrompt } from 'dsh-system-prompt'
import { type ToolDefinition } from 'dsh-tools'
import DatePlugin from 'dsh-plugin-date'
import Filesystem, { FILE_TOOL_NAMES } from 'dsh-plugin-filesystem'
import Policies, { SANDBOX_POLICY } from 'dsh-plugin-policies'
import Presets from 'dsh-presets'
import Shell, { bashTool } from 'dsh-plugin-shell'
import { ledgerStore, MemoryConversationStore, type ConversationStore, type StoreHead } from 'dsh-store'
import { runConformance, type ConformanceResult } from 'dsh-store/conformance'
import { PostgresConversationStore } from 'dsh-store-postgres'

export async function harness(file: string): Promise<string> {
  let booted: BootedDeployment
  try {
    booted = await bootDeployment(file, { logLevel: 'error' })
  } catch (error) {
    if (DeploymentError.is(error)) return error.problems.map((problem: Problem) => `${problem.code} ${problem.message}`).join('\n')
    throw error
  }
  const agent: Agent = booted.agent('main') ?? await booted.createAgent({ id: 'main', model: 'some-model', cwd: '/work' })
  const request: ChatRequest = await agent.step('hi')
  const reply: RecordedMessage = { role: 'assistant', content: 'hello' }
  agent.record(reply)
  // The request is the official SDK's type, and the SDK's reply type goes back into the record, no cast.
  const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = await agent.step('and now?')
  const completion = await new OpenAI({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9/v1' }).chat.completions.create(body)
  agent.record(completion.choices[0].message)
  const persona: string | undefined = booted.services.systemPrompt.config.persona
  // @ts-expect-error the persona is a string, not a number
  const wrong: number = booted.services.systemPrompt.config.persona
  const tools: readonly string[] = booted.services.tools?.view().known ?? []
  const text: string = renderPrompt(await booted.services.systemPrompt.assemble({ scope: agent.key }))
  const label: string | undefined = scopeLabel(agent.ctx, agent.key)
  await booted.dispose()
  return `${request.model} ${persona} ${wrong} ${tools.join(',')} ${text} ${label}`
}

export const plugins = [DatePlugin, Filesystem, Policies, Presets, Shell] as const
export const names: readonly string[] = [...FILE_TOOL_NAMES, SANDBOX_POLICY]
export const bash: ToolDefinition = bashTool({} as Parameters<typeof bashTool>[0])
export const run: (argv: string[]) => Promise<number> = (argv) => cli(argv)

/** A conversation store for an agent's ledger, checked by the conformance suite; PGlite through the same interface. */
export async function stores(agent: Agent): Promise<string> {
  const store: ConversationStore = new MemoryConversationStore()
  const writer = new LedgerWriter(agent, ledgerStore(store, { conversation: 'chat' }))
  await writer.sync()
  const results: ConformanceResult[] = await runConformance(async () => ({ open: async () => store }))
  const embedded = await PostgresConversationStore.embedded()
  await embedded.setup()
  const head: StoreHead = await embedded.head({ conversation: 'chat' })
  // @ts-expect-error a key needs its conversation
  await embedded.head({ sub: 'fork' })
  await embedded.close()
  return `${results.length} ${head.length}`
}
