import { bootApp, tool, captureLogs } from 'dsh-testing'
import Presets from 'dsh-presets'
const { app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, agents: true })
const logs = captureLogs(app)
host.tools.register(tool('read'))
host.tools.register(tool('grep'))
const fiber = host.plugin(Presets, { presets: [{ id: 'r', tools: { allow: ['read', 'special'] } }] })
await fiber
console.log('state', (fiber as any).state)
const agent = await host.agents.create({ id: 'a', model: 'm', preset: 'r' })
agent.ctx.tools.register(tool('mine'))
console.log('agent view', host.tools.view(agent).visible.map(t => t.name))
// preset-scoped tool named in allow
const p = host.agents.preset('r')!
try { p.ctx.tools.register(tool('special')) } catch (e: any) { console.log('register threw', e.message) }
console.log('agent view 2', host.tools.view(agent).visible.map(t => t.name))
console.log(logs.map(l => l.line))
console.log('unresolved', host.presets.unresolvedTools('r'))
