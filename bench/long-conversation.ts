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

/**
 * Step + body at `short` and `long` turns for `format`. Three agents of each length, each in an app of
 * its own, are timed in interleaved rounds (the order turns by one agent each round); each agent's
 * figure is the median of its rounds, and each length's figure the median of its three agents. One
 * agent of each length was not enough: a single agent stayed about 1.7x faster or slower than
 * another of the same length for a whole run, whichever was made first and whatever its length, so
 * a pair of agents gave ratios from 0.6x to 1.9x between runs. Each timed step lengthens the
 * conversation: the short agents go from 100 to about 1,200 turns over a full run, the long ones
 * from 10,000 to about 11,100.
 */
export async function measureLongConversation(workload: Workload, format: WireFormat, rounds: number, short = 100, long = 10_000) {
  const agents: { which: 'short' | 'long'; agent: Agent; app: Context; times: number[] }[] = []
  for (const [which, turns] of [['short', short], ['long', long]] as const) {
    for (let k = 0; k < 3; k++) agents.push({ which, ...await longAgent(workload, format, turns), times: [] })
  }
  const iterations = 100
  let sink = 0
  for (let r = 0; r < rounds + 2; r++) {
    for (let k = 0; k < agents.length; k++) {
      const entry = agents[(k + r) % agents.length]
      const start = performance.now()
      for (let i = 0; i < iterations; i++) sink += await stepWithBody(entry.agent, format, i)
      if (r >= 2) entry.times.push((performance.now() - start) * 1000 / iterations)
    }
  }
  for (const { app } of agents) await app.registry.delete(SystemPrompt)
  const of = (which: 'short' | 'long'): Sample => {
    const perAgent = agents.filter((entry) => entry.which === which).map((entry) => summarize(entry.times, iterations))
    const medians = perAgent.map((sample) => sample.median).sort((x, y) => x - y)
    return { median: medians[1], min: Math.min(...perAgent.map((sample) => sample.min)), max: Math.max(...perAgent.map((sample) => sample.max)), rounds, iterations }
  }
  const short_ = of('short')
  const long_ = of('long')
  return { short: short_, long: long_, ratio: long_.median / short_.median, sink }
}
