import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'
import Agents from 'dsh-agent'
const root = process.cwd()
const { generateHeavy } = await import(root + '/bench/heavy.ts')
const format = (process.argv[2] ?? 'anthropic') as any
const n = Number(process.argv[3] ?? 4000)
const heavy = generateHeavy()
const app = new Context()
await app.plugin(SystemPrompt, {})
await app.plugin(ToolRegistry)
await app.plugin(Agents, {})
let host!: Context
await app.plugin({ name: 'bench-heavy-step', inject: ['systemPrompt', 'tools', 'agents'], apply(ctx: Context) { host = ctx } })
for (const s of heavy.sections) (host as any).systemPrompt.section({ name: s.name, order: s.order, text: s.text.replace(/\{\{v\d\}\}/g, '') })
for (const t of heavy.providers.flat()) (host as any).tools.register({ name: t.name, description: t.description ?? '', parameters: t.parameters as Record<string, unknown> })
let total = 0, count = 0
for (let a = 0; a < Number(process.argv[4] ?? 20); a++) {
const agent = await (host as any).agents.create({ id: 'a' + a, model: 'bench-model' })
let turn = 0
const step = async () => { const r = await agent.stepDetailed(`message ${++turn}`, { format }); const b = r.body; agent.record({ role: 'assistant', content: `reply ${turn}` }); return b.length }
for (let i = 0; i < 50; i++) await step()
const t0 = performance.now()
for (let i = 0; i < n; i++) await step()
total += performance.now() - t0; count += n
await agent.dispose()
}
console.log(format, (total / count * 1000).toFixed(1), 'us/step')
