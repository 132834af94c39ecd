/**
 * The heavier agent cycle of the hostile-input review: each cycle an agent with a section, a context, a
 * variable, a tool provider, an assemble listener, a change listener, an ordinary Cordis effect, a step
 * and a recorded reply. Run as a script in a child process with `--expose-gc`:
 *
 *   node --expose-gc --conditions=source --import tsx/esm packages/agent/tests/lifecycle-heavy-probe.ts <cycles>
 *
 * prints one JSON line `{ cycles, heapBefore, heapAfter }` (bytes), measured after a warm-up.
 */
import { pathToFileURL } from 'node:url'
import { bootApp, tick } from 'dsh-testing'

const WARM_UP = 5000

async function main(cycles: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (typeof gc !== 'function') throw new Error('run with node --expose-gc')
  const { host } = await bootApp({ systemPrompt: { persona: 'You work in {{cwd}}.' }, tools: true, agents: true })
  const collect = async () => {
    for (let round = 0; round < 4; round++) {
      gc()
      await tick(10)
    }
    return process.memoryUsage().heapUsed
  }
  const one = async (i: number) => {
    const agent = await host.agents.create({ id: `heavy-${i}`, model: 'deepseek-chat', cwd: '/srv' })
    const ctx = agent.ctx
    ctx.systemPrompt.section({ name: 'task', order: 100, text: `Task ${i % 13}.` })
    ctx.systemPrompt.context({ name: 'ticket', order: 1, text: 'Ticket {{ticket}}' })
    ctx.systemPrompt.variable('ticket', () => `T-${i % 17}`)
    ctx.systemPrompt.tools(() => ({ schemas: [{ name: 'probe', description: 'A probe.', parameters: { type: 'object' } }] }))
    ctx.on('system-prompt/assemble', (assembly, _context, next) => next(assembly))
    ctx.on('system-prompt/change', () => {})
    ctx.effect(() => () => {})
    await agent.step(`Input ${i}.`)
    agent.record({ role: 'assistant', content: `Reply ${i}.` })
    await agent.dispose()
  }
  for (let i = 0; i < WARM_UP; i++) await one(i)
  const heapBefore = await collect()
  for (let i = WARM_UP; i < WARM_UP + cycles; i++) await one(i)
  const heapAfter = await collect()
  process.stdout.write(JSON.stringify({ cycles, heapBefore, heapAfter }) + '\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(Number(process.argv[2] ?? 10_000))
}
