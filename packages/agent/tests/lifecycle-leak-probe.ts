/**
 * The workload of the lifecycle tests: create a scope (through `dsh-agent`, or `createScope` directly),
 * register one of everything through it, assemble and render, dispose. Imported by `lifecycle.spec.ts`
 * for the bookkeeping checks, and run as a script (in a child process with `--expose-gc`) for the heap
 * check:
 *
 *   node --expose-gc --conditions=source --import tsx/esm packages/agent/tests/lifecycle-leak-probe.ts <cycles>
 *
 * prints one JSON line: `{ cycles, heapBefore, heapAfter, before, after }` (bytes, and the bookkeeping).
 */
import { pathToFileURL } from 'node:url'
import type { Context } from 'cordis'
import type { PresetHandle } from 'dsh-agent'
import { createScope, scopeStats } from 'dsh-scope'
import { renderContextSnapshot, renderPrompt } from 'dsh-system-prompt'
import { bootApp, tick } from 'dsh-testing'

/** A booted deployment for the workload: the services, a host plugin, a preset, a global tool. */
export interface Workbench {
  app: Context
  host: Context
  preset: PresetHandle
}

/** Every count that must come back to where it was once a cycle's scope is gone. */
export function bookkeeping(bench: Workbench) {
  return {
    prompt: bench.app.systemPrompt.stats(),
    tools: bench.app.tools.stats(),
    scopes: scopeStats(bench.app),
    agents: bench.app.agents.list().length,
    plugins: bench.app.registry.size,
    hostEffects: bench.host.fiber.getEffects().length,
  }
}

/** Boots `systemPrompt`, `tools` and `agents`, a host plugin, a preset with a persona, and a global tool. */
export async function workbench(): Promise<Workbench> {
  const { app, host } = await bootApp({ systemPrompt: { persona: 'You work for {{team}}.' }, tools: true, agents: true })
  host.systemPrompt.variable('team', () => 'the platform team')
  host.tools.register({ name: 'read', description: 'Read a file.', parameters: { type: 'object' }, guidance: 'Read first.' })
  const preset = host.agents.definePreset('reviewer')
  preset.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'You review code for {{team}}.' })
  return { app, host, preset }
}

/** Registers one of everything through `ctx` (a scope context): `i` varies names and texts. */
function registerAll(ctx: Context, i: number): void {
  ctx.systemPrompt.section({ name: `task:${i % 7}`, order: 100 + (i % 5), text: () => `Task ${i} for {{model}} in {{cwd}}.` })
  ctx.systemPrompt.context({ name: 'ticket', order: 1, text: 'Ticket: {{ticket}}' })
  ctx.systemPrompt.variable('ticket', () => `T-${i}`)
  ctx.systemPrompt.tools(() => ({ schemas: [{ name: `probe_${i % 3}`, description: 'A probe.', parameters: { type: 'object' } }] }))
  ctx.tools.register({ name: 'notes', description: `Notes ${i}.`, parameters: { type: 'object' }, guidance: { text: 'Keep {{notes}} short.', order: 3000 } })
  ctx.tools.restrict({ deny: ['read'] })
  if (i % 3 === 0) ctx.systemPrompt.suppressRuntimeContext()
  ctx.on('system-prompt/assemble', (assembly, _context, next) => next({ ...assembly, sections: [...assembly.sections] }))
}

/** One cycle: even cycles make an agent (under the preset every fourth), odd ones a bare scope under the preset. */
export async function cycle(bench: Workbench, i: number): Promise<void> {
  if (i % 2 === 0) {
    const agent = await bench.host.agents.create({ id: `agent-${i}`, model: 'deepseek-chat', cwd: '/srv', ...(i % 4 === 0 ? { preset: 'reviewer' } : {}) })
    registerAll(agent.ctx, i)
    // Every tenth agent also loads a plugin through its context (a Cordis fiber under the scope).
    if (i % 10 === 0) await agent.ctx.plugin({ name: `helper-${i}`, inject: ['systemPrompt'], apply(ctx: Context) { ctx.systemPrompt.section({ name: 'helper', order: 5, text: 'Helper.' }) } })
    await agent.step(`Input ${i}.`)
    await agent.dispose()
  } else {
    const scope = createScope(bench.host, { cycle: i }, { label: `scope-${i}`, parent: bench.preset.key })
    registerAll(scope.ctx, i)
    scope.ctx.systemPrompt.variable('model', () => 'local')
    scope.ctx.systemPrompt.variable('cwd', () => '/tmp')
    const assembly = await bench.app.systemPrompt.assemble({ scope: scope.key })
    renderPrompt(assembly)
    renderContextSnapshot(assembly)
    await scope.dispose()
  }
}

/** Cycles run before the baseline: JIT, lazily built caches and table sizes settle first. */
const WARM_UP = 5000

async function collect(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc!
  for (let round = 0; round < 4; round++) {
    gc()
    await tick(10)
  }
  return process.memoryUsage().heapUsed
}

async function main(cycles: number): Promise<void> {
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') throw new Error('run with node --expose-gc')
  const bench = await workbench()
  // Warm up (JIT, lazily built caches, Cordis internals) before the baseline.
  for (let i = 0; i < WARM_UP; i++) await cycle(bench, i)
  const before = bookkeeping(bench)
  const heapBefore = await collect()
  for (let i = WARM_UP; i < WARM_UP + cycles; i++) await cycle(bench, i)
  const heapAfter = await collect()
  const after = bookkeeping(bench)
  process.stdout.write(JSON.stringify({ cycles, heapBefore, heapAfter, before, after }) + '\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(Number(process.argv[2] ?? 10_000))
}
