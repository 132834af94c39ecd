/**
 * (g) A step of an agent on the heavy workload (its 43 sections and 29 tools, registered as the agent
 * service sees them), with the request body as a JSON string, per wire format: what a harness pays per
 * model call besides the assembly, at a conversation of 50 turns.
 */
import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'
import Agents from 'dsh-agent'
import type { WireFormat } from 'dsh-wire'
import { generateHeavy } from './heavy.js'
import { time, type Sample } from './measure.js'

/** An app with the heavy workload's sections and tools registered as the agent service sees them; `close` stops it. */
export async function heavyHost(): Promise<{ host: Context; close: () => Promise<unknown> }> {
  const heavy = generateHeavy()
  const app = new Context()
  await app.plugin(SystemPrompt, {})
  await app.plugin(ToolRegistry)
  await app.plugin(Agents, {})
  let host!: Context
  await app.plugin({ name: 'bench-heavy-step', inject: ['systemPrompt', 'tools', 'agents'], apply(ctx: Context) { host = ctx } })
  // The agent's assembly has no variables to resolve, so the texts drop their references.
  for (const s of heavy.sections) host.systemPrompt.section({ name: s.name, order: s.order, text: s.text.replace(/\{\{v\d\}\}/g, '') })
  for (const t of heavy.providers.flat()) host.tools.register({ name: t.name, description: t.description ?? '', parameters: t.parameters as Record<string, unknown> })
  return { host, close: async () => { await app.registry.delete(SystemPrompt) } }
}

/** A fresh agent of `host` and one turn of it: a step with its body in `format`, then a short reply recorded. */
export async function steppingAgent(host: Context, id: string, format: WireFormat) {
  const agent = await host.agents.create({ id, model: 'bench-model' })
  let turn = 0
  const step = async () => {
    const result = await agent.stepDetailed(`message ${++turn}`, { format })
    const body = result.body
    agent.record({ role: 'assistant', content: `reply ${turn}` })
    return body.length
  }
  return { agent, step }
}

/**
 * Step + body per format, each on an agent of its own that has 50 turns behind it: rounds of 1,000 steps
 * after one round of warm-up, so each round holds several collections of the young generation (a round
 * of 200 held one or none, and the runs' ratios spread from 0.6 to 1.6x).
 */
export async function measureHeavyStep(formats: readonly WireFormat[], rounds: number): Promise<Map<WireFormat, Sample>> {
  const { host, close } = await heavyHost()
  const samples = new Map<WireFormat, Sample>()
  for (const format of formats) {
    const { step } = await steppingAgent(host, `heavy-${format}`, format)
    for (let i = 0; i < 50; i++) await step()
    samples.set(format, await time(step, { rounds, iterations: 1000, warmup: 1 }))
  }
  await close()
  return samples
}
