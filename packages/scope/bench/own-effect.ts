/**
 * Registration cost of `ownEffect`, on the built package (`yarn build` first):
 *   node --expose-gc --import tsx/esm packages/scope/bench/own-effect.ts [path/to/lib/index.js]
 * (another build, e.g. a copy of an older `lib/`, can be measured by passing its index.js).
 * Prints µs per operation (median of rounds after warm-up) for: consecutive registrations on a plugin,
 * their disposal, registrations interleaved one-to-one with `ctx.effect`, scopes that each make a child
 * fiber (as agents do), and consecutive registrations through a scope that has a child fiber. Not part
 * of the test run.
 */
import { performance } from 'node:perf_hooks'
import { Context } from 'cordis'
import { pathToFileURL } from 'node:url'

const lib = process.argv[2] ? pathToFileURL(process.argv[2]).href : new URL('../lib/index.js', import.meta.url).href
const { createScope, ownEffect } = await import(lib) as typeof import('../src/index.js')

const N = 5_000
const ROUNDS = 11

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b)
  return sorted[sorted.length >> 1]
}

async function plugin(app: Context): Promise<{ ctx: Context; dispose(): Promise<void> }> {
  let ctx!: Context
  const fiber = app.plugin({ name: 'bench', apply(c: Context) { ctx = c } }) as any
  await fiber
  return { ctx, dispose: () => fiber.dispose() }
}

async function round(label: string, setup: (ctx: Context) => Context, body: (ctx: Context, i: number) => unknown,
  after?: (items: unknown[]) => void): Promise<[number, number]> {
  await new Promise((resolve) => setTimeout(resolve, 5))
  ;(globalThis as { gc?: () => void }).gc?.()
  const app = new Context()
  const host = await plugin(app)
  const ctx = setup(host.ctx)
  const items: unknown[] = new Array(N)
  const start = performance.now()
  for (let i = 0; i < N; i++) items[i] = body(ctx, i)
  const registered = (performance.now() - start) * 1000 / N
  let disposed = 0
  if (after) {
    const t = performance.now()
    after(items)
    disposed = (performance.now() - t) * 1000 / N
  }
  await host.dispose()
  void label
  return [registered, disposed]
}

const noop = () => {}
const cases: Array<[string, (ctx: Context) => Context, (ctx: Context, i: number) => unknown, ((items: unknown[]) => void)?]> = [
  ['register (consecutive, plugin)', (c) => c, (c) => ownEffect(c, noop), (items) => { for (const d of items) (d as () => void)() }],
  ['register + ctx.effect, interleaved (per pair)', (c) => c, (c) => { ctx_effect(c); return ownEffect(c, noop) }],
  ['ctx.effect alone (reference)', (c) => c, (c) => ctx_effect(c)],
  ['register (consecutive, scope with a child fiber)', (c) => { const s = createScope(c, {}); s.ctx.effect(() => noop); return s.ctx }, (c) => ownEffect(c, noop)],
  ['scope + its child fiber (ctx.effect), one after another', (c) => c, (c) => { const s = createScope(c, {}); s.ctx.effect(() => noop); return s },
    (items) => { for (const s of items) void (s as { dispose(): Promise<void> }).dispose() }],
]

function ctx_effect(c: Context): unknown {
  return c.effect(() => noop)
}

for (const [label, setup, body, after] of cases) {
  const reg: number[] = []
  const dis: number[] = []
  for (let r = 0; r < ROUNDS + 2; r++) {
    const [a, b] = await round(label, setup, body, after)
    if (r >= 2) reg.push(a), dis.push(b)
  }
  console.log(`${label.padEnd(50)} ${median(reg).toFixed(2)} µs${after ? `   dispose ${median(dis).toFixed(2)} µs` : ''}`)
}
