/**
 * (f) Step cost against conversation length: an agent of the standard workload's first ten sections and
 * five tools, driven to 100 and to 10,000 turns (each a step and a recorded reply), then timed for one
 * more step plus its request body as a JSON string (`result.body` where the step offers it, else
 * `JSON.stringify(result.request)`), per wire format. The two lengths run in interleaved rounds.
 */
import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'
import Agents, { type Agent } from 'dsh-agent'
import type { WireFormat } from 'dsh-wire'
import { performance } from 'node:perf_hooks'
import { summarize, type Sample } from './measure.js'
import type { Workload } from './workload.js'

async function longAgent(workload: Workload, format: WireFormat, turns: number): Promise<{ agent: Agent; app: Context }> {
  const app = new Context()
  await app.plugin(SystemPrompt, { persona: 'You are a patient assistant for {{model}}.' })
  await app.plugin(ToolRegistry)
  await app.plugin(Agents, {})
  let host!: Context
  await app.plugin({ name: 'bench-long', inject: ['systemPrompt', 'tools', 'agents'], apply(ctx: Context) { host = ctx } })
  for (const s of workload.sections.slice(0, 10)) host.systemPrompt.section({ name: s.name, order: s.order, text: s.text.replace(/\{\{var_\d\}\}/g, '{{model}}') })
  for (const schema of workload.providers[0].slice(0, 5)) {
    host.tools.register({ name: schema.name, description: schema.description ?? '', parameters: schema.parameters as Record<string, unknown> })
  }
  const agent = await host.agents.create({ id: `long-${format}-${turns}`, model: 'bench-model' })
  for (let turn = 1; turn <= turns; turn++) {
    await agent.stepDetailed(`message ${turn}`, { format })
    agent.record({ role: 'assistant', content: `reply ${turn}` })
  }
  return { agent, app }
}

async function stepWithBody(agent: Agent, format: WireFormat, i: number): Promise<number> {
  const result = await agent.stepDetailed(`more ${i}`, { format })
  const body = (result as { body?: string }).body ?? JSON.stringify(result.request)
  agent.record({ role: 'assistant', content: `ok ${i}` })
  return body.length
}

/** Step + body at `short` and `long` turns for `format`, medians of interleaved rounds. */
export async function measureLongConversation(workload: Workload, format: WireFormat, rounds: number, short = 100, long = 10_000) {
  const a = await longAgent(workload, format, short)
  const b = await longAgent(workload, format, long)
  const times: Record<'short' | 'long', number[]> = { short: [], long: [] }
  const iterations = 200
  let sink = 0
  for (let r = 0; r < rounds + 2; r++) {
    for (const [which, agent] of [['short', a.agent], ['long', b.agent]] as const) {
      const start = performance.now()
      for (let i = 0; i < iterations; i++) sink += await stepWithBody(agent, format, i)
      if (r >= 2) times[which].push((performance.now() - start) * 1000 / iterations)
    }
  }
  await a.app.registry.delete(SystemPrompt)
  await b.app.registry.delete(SystemPrompt)
  const short_: Sample = summarize(times.short, iterations)
  const long_: Sample = summarize(times.long, iterations)
  return { short: short_, long: long_, ratio: long_.median / short_.median, sink }
}
