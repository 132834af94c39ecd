/**
 * The conversation the fleet test plays (issue 22): the same harness in every process, and each turn
 * a pure function of its number, so two workers taking turns and one process playing alone send the
 * same requests. Every tenth reply calls a tool (its result is recorded with it), every fifth request
 * is Anthropic's, and from turn 100 a section added mid-way changes the prompt (a restored agent
 * registers it again, as a restarted harness would).
 */
import type { Agent, WireFormat } from 'dsh-agent'
import { bootApp, tool, type BootedApp } from 'dsh-testing'

export const AGENT = 'main'

/** The harness: a persona, a tool, a runtime context that names the model. */
export async function fleetHarness(): Promise<BootedApp> {
  const booted = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, tools: true, agents: { promptChange: 'append' } })
  booted.host.tools.register(tool('read', { description: 'Read a file.' }))
  booted.host.systemPrompt.context({ name: 'model:info', order: 300, text: 'Model: {{model}}.' })
  return booted
}

const phased = new WeakSet<Agent>()

/** What the harness registers on the agent before turn `turn` (once per agent). */
export function prepare(agent: Agent, turn: number): void {
  if (turn < 100 || phased.has(agent)) return
  phased.add(agent)
  agent.ctx.systemPrompt.section({ name: 'fleet:phase', order: 400, text: 'Phase two: check every answer twice.' })
}

/** Plays turn `turn` (its input named by `from` when given); resolves to the request sent, as JSON. */
export async function playTurn(agent: Agent, turn: number, from?: string): Promise<string> {
  prepare(agent, turn)
  const format: WireFormat = turn % 5 === 4 ? 'anthropic' : 'openai-chat'
  const request = JSON.stringify(await agent.step(`Turn ${turn}${from ? ` from ${from}` : ''}.`, { format }))
  if (turn % 10 === 9) {
    agent.record({ role: 'assistant', content: null, tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: 'read', arguments: `{"path":"f${turn}.txt"}` } }] },
      { usage: { inputTokens: 100 + turn, cachedReadTokens: 64, cacheWriteTokens: null, outputTokens: 5 } })
    agent.record({ role: 'tool', tool_call_id: `call_${turn}`, name: 'read', content: `contents of f${turn}` })
  } else {
    agent.record({ role: 'assistant', content: `Reply ${turn}.` })
  }
  return request
}
