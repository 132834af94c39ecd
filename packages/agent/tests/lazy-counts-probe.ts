/**
 * The first steps of a fresh process, for `lazy-counts.spec.ts` (run in a child process, since a test
 * process has long loaded the tokenizers):
 *
 *   node --conditions=source --import tsx/esm packages/agent/tests/lazy-counts-probe.ts [read | <steps>]
 *
 * boots an agent, takes two steps (and records a reply with its usage between them), and prints one
 * JSON line: the tokenizers loaded after the steps, then, with `read`, after reading the second step's
 * `report.requestTokens`, with that figure. With a number, takes that many steps more (reading none).
 */
import { pathToFileURL } from 'node:url'
import { loadedTokenizers } from 'dsh-wire/internal'
import { bootApp, tool } from 'dsh-testing'

export async function probe(read: boolean, more: number): Promise<Record<string, unknown>> {
  const { host } = await bootApp({ systemPrompt: { persona: 'Persona for {{model}}.' }, tools: true, agents: true })
  host.tools.register(tool('read', { guidance: 'Read before you edit.' }))
  const agent = await host.agents.create({ id: 'main', model: 'gpt-4.1', provider: 'openai' })
  const first = await agent.stepDetailed('Hello.')
  agent.record({ role: 'assistant', content: 'Hi.' }, { usage: { inputTokens: 10, cachedReadTokens: 0, cacheWriteTokens: null, outputTokens: 2 } })
  const second = await agent.stepDetailed('Again.')
  for (let i = 0; i < more; i++) await agent.step(`More ${i}.`)
  const after = { tokenizers: loadedTokenizers(), request: second.request.messages.length, first: typeof first.body }
  if (!read) return { after }
  const requestTokens = second.report.requestTokens
  return { after, read: { tokenizers: loadedTokenizers(), requestTokens, reported: first.report.reportedCachedTokens } }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await probe(process.argv[2] === 'read', Number(process.argv[2]) || 0)))
  process.exit(0)
}
