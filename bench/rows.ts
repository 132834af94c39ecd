/**
 * The benchmark's rows, in groups: `bench/run.ts` runs each group in a process of its own
 * (`bench/row.ts`), so no group measures what another left in the heap, the JIT or the listeners. The
 * measurements that only newer code offers (forks, compaction, telemetry) are imported when their group
 * runs, so an older build runs every group it can.
 */
import { performance } from 'node:perf_hooks'
import { Context } from 'cordis'
import { createScope, type ScopeHandle } from 'dsh-scope'
import { pluginContext } from 'dsh-testing'
import SystemPrompt, { renderAssembly, renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { WIRE_FORMATS, type WireFormat } from 'dsh-wire'
import { createAgent, generate, registerGlobal, type Workload } from './workload.js'
import { createHeavyScope, generateHeavy, registerHeavy } from './heavy.js'
import { settledHeap, summarize, time, timeInterleaved, us, type Sample } from './measure.js'

/** What a group hands back: one figure (`value`, or a sample's `median`) and how to show it. */
export type Report = (name: string, fields: Record<string, unknown>, display: string) => void
export interface GroupOptions { quick: boolean; rounds: number; report: Report; note: (text: string) => void }
export interface Group { id: string; run: (options: GroupOptions) => Promise<void> }

export function sampleText(sample: Sample): string {
  return `${us(sample.median).padStart(10)}  (min ${us(sample.min)}, max ${us(sample.max)}, ${sample.rounds}×${sample.iterations})`
}

async function boot(workload: Workload) {
  const app = new Context()
  await app.plugin(SystemPrompt, { toolOrder: workload.toolOrder, persona: 'You are a benchmark persona for {{var_0}}.' })
  const host = await pluginContext(app, 'bench-deployment', ['systemPrompt'])
  registerGlobal(host, workload)
  const agent = createAgent(host, workload)
  return { app, host, agent }
}

/** A sibling scope: three sections (one shadowing a global one) and a scoped assemble listener. */
function addSibling(host: Context, i: number): ScopeHandle {
  const scope = createScope(host, { sibling: i }, { label: 'sibling' })
  registerSibling(scope, scope.ctx.systemPrompt)
  return scope
}

function registerSibling(scope: ScopeHandle, prompt: SystemPrompt): void {
  prompt.section({ name: 'sibling:a', order: 10, text: 'sibling text a' })
  prompt.section({ name: 'sibling:b', order: 20, text: 'sibling text b' })
  prompt.section({ name: 'bench:section-01', order: 30, text: 'sibling shadow' })
  scope.ctx.on('system-prompt/assemble', (assembly: PromptAssembly, _c, next) => next(assembly))
}

async function assembleRender(prompt: SystemPrompt, scope: object): Promise<void> {
  // The path that ships: what agent.step() and the CLI render with.
  renderAssembly(await prompt.assemble({ scope }))
}

/** (h) the heavy workload, the headline case: assemble + render against its reference points. */
async function heavyAssembly({ rounds, report, note }: GroupOptions) {
  const heavy = generateHeavy()
  const app = new Context()
  await app.plugin(SystemPrompt, { toolOrder: heavy.toolOrder })
  const host = await pluginContext(app, 'bench-heavy', ['systemPrompt'])
  const key = { heavy: true }
  registerHeavy(host, heavy, key)
  createHeavyScope(host, heavy, key)
  const prompt = app.systemPrompt
  note(`heavy workload: ${heavy.sections.length} sections (${(heavy.textChars / 1000).toFixed(1)} K characters), ${heavy.references} references, ` +
    `${heavy.providers.flat().length} tools (${(heavy.toolBytes / 1024).toFixed(1)} KB), ${heavy.contexts.length} contexts`)
  const assembled = await prompt.assemble({ scope: key })
  // Interleaved rounds: no figure of this block is the one measured first.
  const { whole, assemble, render, floor, toolsJson } = await timeInterleaved({
    whole: { op: async () => renderAssembly(await prompt.assemble({ scope: key })), iterations: 2000 },
    assemble: { op: () => prompt.assemble({ scope: key }), iterations: 2000 },
    render: { op: () => renderPrompt(assembled), iterations: 5000 },
    floor: { op: () => assembled.sections.map((s) => s.text).join('\n\n'), iterations: 5000 },
    toolsJson: { op: () => JSON.stringify(assembled.tools), iterations: 2000 },
  }, { rounds })
  report('h. heavy: scoped assemble + renderAssembly', { unit: 'us', ...whole }, sampleText(whole))
  report('h. heavy: scoped assemble', { unit: 'us', ...assemble }, sampleText(assemble))
  report('h. heavy: renderPrompt', { unit: 'us', ...render }, sampleText(render))
  report('h. heavy: join floor', { unit: 'us', ...floor }, sampleText(floor))
  report('h. heavy: JSON.stringify(tools)', { unit: 'us', ...toolsJson }, sampleText(toolsJson))
  report('h. heavy: ratio renderPrompt / join floor', { unit: 'ratio', value: render.median / floor.median, target: 1.5 }, `${(render.median / floor.median).toFixed(2)}x (target ≤ 1.5x)`)
  report('h. heavy: ratio assemble+render / JSON.stringify(tools)', { unit: 'ratio', value: whole.median / toolsJson.median }, `${(whole.median / toolsJson.median).toFixed(2)}x`)
  await app.registry.delete(SystemPrompt)
}

/** (a) steady assemble + render + snapshot. */
async function steadyAssembly({ rounds, report }: GroupOptions) {
  const { app, agent } = await boot(generate())
  const sample = await time(() => assembleRender(app.systemPrompt, agent.key), { rounds, iterations: 2000 })
  report('a. assemble+render+snapshot (agent scope)', { unit: 'us', ...sample, target: 60 }, sampleText(sample))
  await app.registry.delete(SystemPrompt)
}

/**
 * (b1) assembly cost with 1, 100, 1,000 and 10,000 sibling scopes, each holding 3 sections and a scoped
 * listener: one app per sibling count, measured in interleaved rounds so that a change of machine or
 * JIT state during the run affects every count alike.
 */
async function siblings({ rounds, report }: GroupOptions) {
  const workload = generate()
  const counts = [1, 100, 1000, 10000]
  const setups = await Promise.all(counts.map(async (n) => {
    const { app, host, agent } = await boot(workload)
    for (let i = 0; i < n; i++) addSibling(host, i)
    return { n, app, prompt: app.systemPrompt, agent }
  }))
  const perRound = new Map<number, number[]>(counts.map((n) => [n, []]))
  for (let r = 0; r < 2 + rounds; r++) {
    for (const { n, prompt, agent } of setups) {
      const sample = await time(() => assembleRender(prompt, agent.key), { rounds: 1, iterations: 1000, warmup: 0 })
      if (r >= 2) perRound.get(n)!.push(sample.median)
    }
  }
  const medians = new Map<number, number>()
  for (const n of counts) {
    const sample = summarize(perRound.get(n)!, 1000)
    medians.set(n, sample.median)
    report(`b. assemble with ${n} sibling scopes`, { unit: 'us', n, ...sample }, sampleText(sample))
  }
  const ratio = medians.get(10000)! / medians.get(1)!
  report('b. ratio 10,000 siblings / 1 sibling', { unit: 'ratio', value: ratio, target: 1.2 }, `${ratio.toFixed(3)}x (target ≤ 1.2x)`)
  for (const { app } of setups) await app.registry.delete(SystemPrompt)
}

/** (b2) the lifecycle of 10,000 scopes with 3 sections and a scoped listener: create, dispose, heap. */
async function scopeLifecycle({ rounds, report }: GroupOptions) {
  const { app, host } = await boot(generate())
  const lifecycle = { create: [] as number[], lookup: [] as number[], dispose: [] as number[], heap: [] as number[], after: [] as number[] }
  const n = 10000
  for (let r = 0; r < Math.max(3, rounds >> 1); r++) {
    const heapBefore = settledHeap()
    const scopes: ScopeHandle[] = new Array(n)
    const prompts: SystemPrompt[] = new Array(n)
    // Three phases, timed apart: minting the scopes, reading the service through each scope context
    // (a Cordis lookup, paid once per scope by code that registers through it), and registering.
    let start = performance.now()
    for (let i = 0; i < n; i++) scopes[i] = createScope(host, { sibling: i }, { label: 'sibling' })
    let create = performance.now() - start
    start = performance.now()
    for (let i = 0; i < n; i++) prompts[i] = scopes[i].ctx.systemPrompt
    const lookup = (performance.now() - start) * 1000 / n
    start = performance.now()
    for (let i = 0; i < n; i++) registerSibling(scopes[i], prompts[i])
    create = (create + performance.now() - start) * 1000 / n
    prompts.length = 0
    lifecycle.heap.push((settledHeap() - heapBefore) / n)
    start = performance.now()
    await Promise.all(scopes.map((scope) => scope.dispose()))
    lifecycle.dispose.push((performance.now() - start) * 1000 / n)
    scopes.length = 0
    lifecycle.after.push(settledHeap() - heapBefore)
    lifecycle.create.push(create)
    lifecycle.lookup.push(lookup)
  }
  const create = summarize(lifecycle.create, n)
  const lookup = summarize(lifecycle.lookup, n)
  const dispose = summarize(lifecycle.dispose, n)
  const heap = summarize(lifecycle.heap, n)
  const after = Math.max(...lifecycle.after)
  report('b. scope + 3 sections + listener: create', { unit: 'us', ...create, target: 20 }, sampleText(create))
  report('b. ... reading ctx.systemPrompt in it (Cordis)', { unit: 'us', ...lookup }, sampleText(lookup))
  report('b. ... dispose', { unit: 'us', ...dispose }, sampleText(dispose))
  report('b. ... heap per scope', { unit: 'bytes', ...heap, target: 4096 }, `${(heap.median / 1024).toFixed(2)} KB (min ${(heap.min / 1024).toFixed(2)}, max ${(heap.max / 1024).toFixed(2)}; target ≤ 4 KB)`)
  report('b. ... heap after disposing 10,000, worst round', { unit: 'bytes', value: after, target: 1048576 }, `${(after / 1024).toFixed(0)} KB above the start (target ≤ 1 MB)`)
  await app.registry.delete(SystemPrompt)
}

/** (c) registering and disposing 10,000 sections. */
async function registrations({ rounds, report }: GroupOptions) {
  const app = new Context()
  await app.plugin(SystemPrompt, {})
  const host = await pluginContext(app, 'bench-registrations', ['systemPrompt'])
  // A plugin that registers many entries reads the service once; each read of `ctx.systemPrompt` is a
  // Cordis service lookup, measured on its own below.
  const prompt = host.systemPrompt
  const registerTimes: number[] = []
  const disposeTimes: number[] = []
  for (let r = 0; r < 2 + rounds; r++) {
    const disposers: (() => void)[] = new Array(10000)
    let start = performance.now()
    for (let i = 0; i < 10000; i++) disposers[i] = prompt.section({ name: `s${i}`, order: i, text: 'text' })
    const register = (performance.now() - start) * 1000 / 10000
    start = performance.now()
    for (let i = 0; i < 10000; i++) disposers[i]()
    const dispose = (performance.now() - start) * 1000 / 10000
    if (r >= 2) registerTimes.push(register), disposeTimes.push(dispose)
  }
  const register = summarize(registerTimes, 10000)
  const dispose = summarize(disposeTimes, 10000)
  report('c. section registration', { unit: 'us', ...register, target: 10 }, sampleText(register))
  report('c. section disposal', { unit: 'us', ...dispose, target: 5 }, sampleText(dispose))
  const lookup = await time(() => host.systemPrompt, { rounds, iterations: 10000 })
  report('c. reading ctx.systemPrompt (Cordis lookup)', { unit: 'us', ...lookup }, sampleText(lookup))
}

/** (d) renderPrompt against the join floor. */
async function rendering({ rounds, report }: GroupOptions) {
  const { app, agent } = await boot(generate())
  const assembly = await app.systemPrompt.assemble({ scope: agent.key })
  const render = await time(() => renderPrompt(assembly), { rounds, iterations: 5000 })
  const floor = await time(() => assembly.sections.map((s) => s.text).join('\n\n'), { rounds, iterations: 5000 })
  report('d. renderPrompt', { unit: 'us', ...render }, sampleText(render))
  report('d. join floor', { unit: 'us', ...floor }, sampleText(floor))
  report('d. ratio renderPrompt / floor', { unit: 'ratio', value: render.median / floor.median, target: 2 }, `${(render.median / floor.median).toFixed(2)}x (target ≤ 2x)`)
  const whole = await time(() => renderAssembly(assembly), { rounds, iterations: 5000 })
  report('d. renderAssembly (prompt + snapshot, with provenance)', { unit: 'us', ...whole }, sampleText(whole))
}

/** (e) a scripted 40-turn agent session. */
async function session({ report }: GroupOptions) {
  const { runSession } = await import('./session.js')
  for (const policy of ['append', 'replace'] as const) {
    const result = await runSession(generate(), policy)
    report(`e. 40-turn session, promptChange: ${policy}`, { unit: 'share', policy, ...result },
      `prefix reuse median ${(result.medianShare * 100).toFixed(1)}%, mean ${(result.meanShare * 100).toFixed(1)}%, ` +
      `requests not extending the previous one: ${result.breaks.length ? result.breaks.join(', ') : 'none'}`)
  }
}

/** (f) step + request body against conversation length, one wire format. */
const longConversation = (format: WireFormat) => async ({ quick, report }: GroupOptions) => {
  const { measureLongConversation } = await import('./long-conversation.js')
  const result = await measureLongConversation(generate(), format, quick ? 5 : 9)
  report(`f. ${format}: step + body at turn 100`, { unit: 'us', ...result.short }, sampleText(result.short))
  report(`f. ${format}: step + body at turn 10,000`, { unit: 'us', ...result.long }, sampleText(result.long))
  report(`f. ${format}: ratio turn 10,000 / turn 100`, { unit: 'ratio', value: result.ratio, target: 1.5 }, `${result.ratio.toFixed(2)}x (target ≤ 1.5x)`)
}

/** (g) a step of an agent on the heavy workload, with its request body, one wire format. */
const heavyStep = (format: WireFormat) => async ({ quick, report }: GroupOptions) => {
  const { measureHeavyStep } = await import('./heavy-step.js')
  const samples = await measureHeavyStep([format], quick ? 3 : 5)
  for (const [, sample] of samples) report(`g. heavy agent, ${format}: step + body`, { unit: 'us', ...sample }, sampleText(sample))
}

/** (i) a fork (the latest request plus one trailing message, with its body) against a step, on the heavy agent. */
async function forks({ quick, report }: GroupOptions) {
  const { measureFork } = await import('./fork.js')
  for (const [format, { fork, step, ratio }] of await measureFork(['openai-chat', 'anthropic'], quick ? 3 : 5)) {
    report(`i. heavy agent, ${format}: fork + body`, { unit: 'us', ...fork }, sampleText(fork))
    report(`i. heavy agent, ${format}: ratio fork / step`, { unit: 'ratio', value: ratio }, `${ratio.toFixed(2)}x (step: ${sampleText(step)})`)
  }
}

/** (k) planning a compaction, and the step right after one, against an ordinary step, on the heavy agent. */
async function compaction({ quick, report }: GroupOptions) {
  const { measureCompaction } = await import('./compaction.js')
  for (const [format, { plan, after, step, planRatio, afterRatio }] of await measureCompaction(['openai-chat', 'anthropic'], quick ? 3 : 5)) {
    report(`k. heavy agent, ${format}: plan a compaction`, { unit: 'us', ...plan }, sampleText(plan))
    report(`k. heavy agent, ${format}: ratio plan / step`, { unit: 'ratio', value: planRatio }, `${planRatio.toFixed(2)}x (step: ${sampleText(step)})`)
    report(`k. heavy agent, ${format}: step right after a compaction + body`, { unit: 'us', ...after }, sampleText(after))
    report(`k. heavy agent, ${format}: ratio step after a compaction / step`, { unit: 'ratio', value: afterRatio }, `${afterRatio.toFixed(2)}x`)
  }
}

/**
 * (j) dsh-plugin-telemetry: a step without it, with it where @opentelemetry/api is not installed, with the
 * API and no SDK, and tracing into an SDK that exports nothing.
 */
async function telemetry({ quick, report }: GroupOptions) {
  const { measureTelemetry } = await import('./telemetry.js')
  const { samples, ratios } = await measureTelemetry(quick ? 5 : 15)
  report('j. heavy agent: step + body + usage, no telemetry plugin', { unit: 'us', ...samples.none }, sampleText(samples.none))
  report('j. ratio a second app without the plugin / none (noise)', { unit: 'ratio', value: ratios.control }, `${ratios.control.toFixed(2)}x (${sampleText(samples.control)})`)
  report('j. ratio plugin, @opentelemetry/api not resolvable / none', { unit: 'ratio', value: ratios.absent }, `${ratios.absent.toFixed(2)}x (${sampleText(samples.absent)})`)
  report('j. ratio plugin, API installed, no SDK registered / none', { unit: 'ratio', value: ratios.noSdk }, `${ratios.noSdk.toFixed(2)}x (${sampleText(samples.noSdk)})`)
  report('j. ratio plugin tracing into an SDK (no exporter) / none', { unit: 'ratio', value: ratios.traced }, `${ratios.traced.toFixed(2)}x (${sampleText(samples.traced)})`)
}

/** Every group, in the order of the table. */
export const GROUPS: readonly Group[] = [
  { id: 'h', run: heavyAssembly },
  { id: 'a', run: steadyAssembly },
  { id: 'b-siblings', run: siblings },
  { id: 'b-lifecycle', run: scopeLifecycle },
  { id: 'c', run: registrations },
  { id: 'd', run: rendering },
  { id: 'e', run: session },
  ...WIRE_FORMATS.map((format) => ({ id: `f-${format}`, run: longConversation(format) })),
  ...WIRE_FORMATS.map((format) => ({ id: `g-${format}`, run: heavyStep(format) })),
  { id: 'i', run: forks },
  { id: 'k', run: compaction },
  { id: 'j', run: telemetry },
]
