import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'
import Agents from 'dsh-agent'
const app = new Context()
await app.plugin(SystemPrompt, { persona: 'You are a patient assistant for {{model}}.' })
await app.plugin(ToolRegistry)
await app.plugin(Agents, {})
let host
await app.plugin({ name: 'bench-long', inject: ['systemPrompt', 'tools', 'agents'], apply(ctx) { host = ctx } })
const agent = await host.agents.create({ id: 'x', model: 'm' })
for (const n of [1, 2, 3]) {
  const t = performance.now()
  for (let i = 0; i < 300; i++) { await agent.stepDetailed('hi ' + i); agent.record({ role: 'assistant', content: 'ok' }) }
  console.log(((performance.now() - t) * 1000 / 300).toFixed(1), 'us/step')
}
const { inspector } = await import('node:inspector').then(m => ({ inspector: m }))
