import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect } from 'chai'
import type { Context } from 'cordis'
import { createScope } from 'dsh-scope'
import { renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { SOAK } from 'dsh-testing'
import { bookkeeping, cycle, workbench, type Workbench } from './lifecycle-leak-probe.js'
import { rejection, tick } from 'dsh-testing'

const CYCLES = SOAK ? 100_000 : 10_000
const PROBE = fileURLToPath(new URL('./lifecycle-leak-probe.ts', import.meta.url))
const HEAVY_PROBE = fileURLToPath(new URL('./lifecycle-heavy-probe.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const MB = 1024 * 1024

/**
 * Runs a leak probe in a child process (with `--expose-gc`) and, when its heap grew by 1 MB or more, once
 * more: a leak grows the heap in every run, while a one-off jump (code compiled late on a loaded machine)
 * does not repeat. `growths` holds each run's |heapAfter - heapBefore|; a test fails only when all grew.
 */
async function heapProbe(probe: string): Promise<{ cycles: number, before?: unknown, after?: unknown, growths: number[] }> {
  const growths: number[] = []
  let last: { cycles: number, before?: unknown, after?: unknown, heapBefore: number, heapAfter: number } | undefined
  for (let run = 0; run < 2 && (last === undefined || growths[growths.length - 1] >= MB); run++) {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--conditions=source', '--import', 'tsx/esm', probe, String(CYCLES)], { cwd: ROOT, maxBuffer: MB })
    last = JSON.parse(stdout.trim().split('\n').pop()!)
    growths.push(Math.abs(last!.heapAfter - last!.heapBefore))
  }
  return { ...last!, growths }
}

describe('dsh-agent: lifecycle: many cycles leak nothing, and assemblies in flight survive disposal and registration (soak)', function () {
  this.timeout(SOAK ? 0 : 120_000)
  let bench: Workbench
  let baseline: ReturnType<typeof bookkeeping>
  beforeEach(async () => {
    bench = await workbench()
    baseline = bookkeeping(bench)
  })

  it('one cycle registers one of everything, and disposing it takes every entry, listener, layer and scope back', async () => {
    const scope = createScope(bench.host, {}, { label: 'probe', parent: bench.preset.key })
    scope.ctx.systemPrompt.section({ name: 'probe', order: 1, text: 'Probe.' })
    scope.ctx.tools.register({ name: 'notes', description: 'Notes.', parameters: { type: 'object' }, guidance: { text: 'Notes.', order: 3000 } })
    scope.ctx.tools.restrict({ deny: ['read'] })
    scope.ctx.on('system-prompt/assemble', (assembly, _context, next) => next(assembly))
    const during = bookkeeping(bench)
    expect(during.prompt.entries - baseline.prompt.entries).to.equal(2)
    expect(during.prompt.listeners - baseline.prompt.listeners).to.equal(1)
    expect(during.tools.entries - baseline.tools.entries).to.equal(2)
    expect(during.scopes.liveScopes - baseline.scopes.liveScopes).to.equal(1)
    await scope.dispose()
    expect(bookkeeping(bench)).to.deep.equal(baseline)
  })

  it(`${CYCLES} create/register/assemble/dispose cycles (agents and bare scopes) leave every count where it was`, async () => {
    for (let i = 0; i < CYCLES; i++) await cycle(bench, i)
    expect(bookkeeping(bench)).to.deep.equal(baseline)
    expect(bench.app.agents.list()).to.deep.equal([])
    expect(renderPrompt(await bench.app.systemPrompt.assemble())).to.equal(
      'You are an AI agent powered by the DeepSeek Harness SDK.\n\nYou work for the platform team.\n\nRead first.')
  })

  it(`after ${CYCLES} cycles the heap is within 1 MB of where it started (child process with --expose-gc)`, async () => {
    const report = await heapProbe(PROBE)
    expect(report.cycles).to.equal(CYCLES)
    expect(report.after).to.deep.equal(report.before)
    expect(report.growths.every(growth => growth >= MB), `heap growth per run: ${report.growths.join(', ')} bytes`).to.equal(false)
  })

  it(`after ${CYCLES} heavier agent cycles (a change listener, an effect, a step and a record each) the heap is within 1 MB of where it started`, async () => {
    const report = await heapProbe(HEAVY_PROBE)
    expect(report.cycles).to.equal(CYCLES)
    expect(report.growths.every(growth => growth >= MB), `heap growth per run: ${report.growths.join(', ')} bytes`).to.equal(false)
  })

  describe('disposing during an assembly in flight', () => {
    it('a scope disposed by its own text provider: that assembly completes with the view it started from, the next falls back', async () => {
      const scope = createScope(bench.host, {}, { label: 'doomed' })
      scope.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: () => { void scope.dispose(); return 'Doomed persona.' } })
      scope.ctx.systemPrompt.section({ name: 'later', order: 50, text: 'Later.' })
      const inFlight = renderPrompt(await bench.app.systemPrompt.assemble({ scope: scope.key }))
      expect(inFlight).to.equal('You are an AI agent powered by the DeepSeek Harness SDK.\n\nDoomed persona.\n\nLater.\n\nRead first.')
      expect(bookkeeping(bench)).to.deep.equal(baseline)
      expect(renderPrompt(await bench.app.systemPrompt.assemble({ scope: scope.key }))).to.equal(
        'You are an AI agent powered by the DeepSeek Harness SDK.\n\nYou work for the platform team.\n\nRead first.')
    })

    it('a scope disposed by its own listener before next(): the waterfall finishes with the listeners it started with', async () => {
      const scope = createScope(bench.host, {}, { label: 'doomed' })
      const ran: string[] = []
      scope.ctx.on('system-prompt/assemble', (assembly, _context, next) => { ran.push('first'); void scope.dispose(); return next(assembly) })
      scope.ctx.on('system-prompt/assemble', (assembly) => { ran.push('second'); return assembly })
      await bench.app.systemPrompt.assemble({ scope: scope.key })
      expect(ran).to.deep.equal(['first', 'second'])
      expect(bookkeeping(bench)).to.deep.equal(baseline)
      await bench.app.systemPrompt.assemble({ scope: scope.key })
      expect(ran).to.deep.equal(['first', 'second'])
    })

    it('an agent disposed during its own step rejects with "agent ... has been disposed" and records nothing', async () => {
      const agent = await bench.host.agents.create({ id: 'doomed', model: 'deepseek-chat' })
      await agent.step('First.')
      const recorded = agent.conversation.length
      agent.ctx.systemPrompt.section({ name: 'trap', order: 1, text: () => { void agent.dispose(); return 'Trap.' } })
      expect((await rejection(agent.step('Second.'))).message).to.equal('agent "doomed" has been disposed')
      expect(agent.conversation.length).to.equal(recorded)
      expect(bookkeeping(bench)).to.deep.equal(baseline)
    })

    it('the plugin that owns a provider disposed from inside it: the assembly completes and nothing of the plugin stays', async () => {
      let fiber: { dispose(): Promise<unknown> } | undefined
      fiber = bench.app.plugin({
        name: 'self-destructing', inject: ['systemPrompt'], apply(ctx: Context) {
          ctx.systemPrompt.section({ name: 'gone', order: 1, text: () => { void fiber!.dispose(); return 'Going.' } })
        },
      }) as unknown as { dispose(): Promise<unknown> }
      await fiber
      const assembly = await bench.app.systemPrompt.assemble()
      expect(assembly.sections.map((s) => s.name)).to.include('gone')
      await tick()
      expect(bookkeeping(bench)).to.deep.equal(baseline)
      expect((await bench.app.systemPrompt.assemble()).sections.map((s) => s.name)).to.not.include('gone')
    })
  })

  describe('registering during an assembly in flight applies from the next assembly', () => {
    it('a section registered by a text provider is not in this assembly, and is in the next', async () => {
      const scope = createScope(bench.host, {}, { label: 'eager' })
      let registered = false
      scope.ctx.systemPrompt.section({ name: 'eager', order: 1, text: () => {
        if (!registered) scope.ctx.systemPrompt.section({ name: 'added', order: 2, text: 'Added.' }), registered = true
        return 'Eager.'
      } })
      const names = (assembly: PromptAssembly) => assembly.sections.map((s) => s.name)
      expect(names(await bench.app.systemPrompt.assemble({ scope: scope.key }))).to.not.include('added')
      expect(names(await bench.app.systemPrompt.assemble({ scope: scope.key }))).to.include('added')
      await scope.dispose()
      expect(bookkeeping(bench)).to.deep.equal(baseline)
    })

    it('a listener registered by a listener runs from the next assembly; a variable registered by one is seen by the assembly that runs it (issue 24, as published)', async () => {
      const scope = createScope(bench.host, {}, { label: 'eager' })
      const ran: string[] = []
      let once = false
      scope.ctx.on('system-prompt/assemble', (assembly, _context, next) => {
        ran.push('outer')
        if (!once) {
          once = true
          scope.ctx.on('system-prompt/assemble', (inner, _c, innerNext) => { ran.push('inner'); return innerNext(inner) })
          scope.ctx.systemPrompt.variable('late', () => 'yes')
        }
        return next(assembly)
      })
      expect((await bench.app.systemPrompt.assemble({ scope: scope.key })).variables).to.have.property('late', 'yes')
      expect(ran).to.deep.equal(['outer'])
      expect((await bench.app.systemPrompt.assemble({ scope: scope.key })).variables).to.have.property('late', 'yes')
      expect(ran).to.deep.equal(['outer', 'outer', 'inner'])
      await scope.dispose()
      expect(bookkeeping(bench)).to.deep.equal(baseline)
    })

    it('registering through a scope a provider has just disposed fails that assembly, naming the provider and the scope', async () => {
      const scope = createScope(bench.host, {}, { label: 'doomed' })
      scope.ctx.systemPrompt.section({ name: 'zombie', order: 1, text: () => {
        void scope.dispose()
        scope.ctx.systemPrompt.section({ name: 'after-death', order: 2, text: 'No.' })
        return 'Unreachable.'
      } })
      expect((await rejection(bench.app.systemPrompt.assemble({ scope: scope.key }))).message).to.equal(
        'prompt section "zombie" text provider of plugin "doomed" failed: scope "doomed" has been disposed; nothing more can be registered through its context')
      expect(bookkeeping(bench)).to.deep.equal(baseline)
    })
  })
})
