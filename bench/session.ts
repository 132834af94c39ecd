/**
 * (e) A scripted 40-turn agent session: the runtime context changes on a third of the turns, a tool is
 * added at turn 10, the persona changes at turn 20. Reports, for each request after the first, the
 * share of its bytes that is a byte-identical prefix of the previous request.
 */
import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'
import Agents, { type ChatRequest } from 'dsh-agent'
import type { Workload } from './workload.js'

/** The request as a provider reads it: tools first, then messages. */
function serialize(request: ChatRequest): string {
  return JSON.stringify({ model: request.model, tools: request.tools ?? [], messages: request.messages })
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

export async function runSession(workload: Workload, policy: 'append' | 'replace') {
  const app = new Context()
  await app.plugin(SystemPrompt, { persona: 'You are a patient assistant for {{model}}.' })
  await app.plugin(ToolRegistry)
  await app.plugin(Agents, { promptChange: policy })
  let host!: Context
  await app.plugin({ name: 'bench-session', inject: ['systemPrompt', 'tools', 'agents'], apply(ctx: Context) { host = ctx } })
  for (const s of workload.sections.slice(0, 20)) host.systemPrompt.section({ name: s.name, order: s.order, text: s.text.replace(/\{\{var_\d\}\}/g, '{{model}}') })
  let contextText = 'Working tree clean.'
  host.systemPrompt.context({ name: 'bench:git', order: 100, text: () => contextText })
  for (const schema of workload.providers[0]) {
    host.tools.register({ name: schema.name, description: schema.description ?? '', parameters: schema.parameters as Record<string, unknown> })
  }
  const agent = await host.agents.create({ id: 'session', model: 'bench-model' })
  let disposePersona: (() => void) | undefined
  let previous: string | undefined
  let previousMessages: string[] | undefined
  const shares: number[] = []
  const breaks: number[] = []
  for (let turn = 1; turn <= 40; turn++) {
    if (turn % 3 === 0) contextText = `Working tree has ${turn} modified files.`
    if (turn === 10) host.tools.register({ name: 'late_tool', description: 'Added at turn 10.', parameters: { type: 'object', properties: {} } })
    if (turn === 20) disposePersona = agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'You are a terse assistant.' })
    const request = await agent.step(`message ${turn}`)
    const text = serialize(request)
    const messages = request.messages.map((m) => JSON.stringify(m))
    if (previous !== undefined) {
      shares.push(commonPrefix(previous, text) / text.length)
      if (!previousMessages!.every((m, i) => messages[i] === m)) breaks.push(turn)
    }
    previous = text
    previousMessages = messages
    agent.record({ role: 'assistant', content: `reply ${turn}` })
  }
  disposePersona?.()
  const sorted = shares.slice().sort((a, b) => a - b)
  return {
    medianShare: sorted[sorted.length >> 1],
    meanShare: shares.reduce((a, b) => a + b, 0) / shares.length,
    minShare: sorted[0],
    breaks,
  }
}
