import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'
import Agents from 'dsh-agent'
import { generateHeavy } from './heavy.js'
const format = (process.argv[2] ?? 'gemini') as 'gemini'
const heavy = generateHeavy()
const app = new Context()
await app.plugin(SystemPrompt, {})
await app.plugin(ToolRegistry)
await app.plugin(Agents, {})
let host!: Context
await app.plugin({ name: 'bench-heavy-step', inject: ['systemPrompt', 'tools', 'agents'], apply(ctx: Context) { host = ctx } })
for (const s of heavy.sections) host.systemPrompt.section({ name: s.name, order: s.order, text: s.text.replace(/\{\{v\d\}\}/g, '') })
for (const t of heavy.providers.flat()) host.tools.register({ name: t.name, description: t.description ?? '', parameters: t.parameters as Record<string, unknown> })
const agent = await host.agents.create({ id: 'a', model: 'bench-model' })
let turn = 0
const step = async () => { const r = await agent.stepDetailed(`m ${++turn}`, { format }); r.body; agent.record({ role: 'assistant', content: `r ${turn}` }) }
for (let i = 0; i < 300; i++) await step()
const results: number[] = []
for (let round = 0; round < 9; round++) {
  const c0 = process.cpuUsage()
  for (let i = 0; i < 100; i++) await step()
  const c = process.cpuUsage(c0)
  results.push((c.user + c.system) / 100)
}
results.sort((a, b) => a - b)
console.log(format, 'median cpu µs/step', results[4].toFixed(1))
process.exit(0)
