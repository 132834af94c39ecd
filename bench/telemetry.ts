/**
 * (j) What `dsh-plugin-telemetry` costs a step (with its body and a reply recorded with usage), on the
 * heavy workload's agent at 50 turns, each variant in an app of its own and loaded as a deployment
 * loads it (`ctx.plugin`, the plugin's own `apply` importing `@opentelemetry/api`):
 * - `none`: no telemetry plugin; `control`: a second app without it (how far two identical apps differ);
 * - `absent`: the plugin where `@opentelemetry/api` does not resolve (a copy of the module whose import
 *   of it fails with Node's own ERR_MODULE_NOT_FOUND: see without-otel.ts), so it registers nothing;
 * - `noSdk`: the plugin with the API installed and no SDK registered (the API's no-op global providers);
 * - `traced`: the plugin tracing into an SDK's providers that export nothing.
 * Measured interleaved in one run, in the process's CPU time (the step's own cost: the wall clock of a
 * shared machine mostly measures the other processes); every ratio is to `none`.
 */
import type { Context } from 'cordis'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import TelemetryPlugin, { type ConfigInput } from 'dsh-plugin-telemetry'
import { heavyHost } from './heavy-step.js'
import { cpuClock, timeInterleaved, type Sample } from './measure.js'
import { telemetryWithoutOpenTelemetry } from './without-otel.js'

const VARIANTS = ['none', 'control', 'absent', 'noSdk', 'traced'] as const
type Variant = typeof VARIANTS[number]

/** Each variant's samples, and each one's ratio to the step without the plugin. */
export interface TelemetryCost {
  samples: Record<Variant, Sample>
  ratios: Record<Exclude<Variant, 'none'>, number>
}

/** A heavy host with `load` applied, and a step (with body and usage) of an agent with 50 turns. */
async function variant(id: string, load: ((host: Context) => PromiseLike<unknown>) | undefined) {
  const { host, close } = await heavyHost()
  if (load) await load(host)
  const agent = await host.agents.create({ id, model: 'bench-model' })
  let turn = 0
  const step = async () => {
    const body = (await agent.stepDetailed(`message ${++turn}`)).body
    agent.record({ role: 'assistant', content: `reply ${turn}` }, { usage: { inputTokens: 1000 + turn, cachedReadTokens: 1000, cacheWriteTokens: null, outputTokens: 3 } })
    return body.length
  }
  for (let i = 0; i < 50; i++) await step()
  return { step, close }
}

export async function measureTelemetry(rounds: number): Promise<TelemetryCost> {
  const Absent = await telemetryWithoutOpenTelemetry()
  const traced: ConfigInput = { tracerProvider: new BasicTracerProvider(), meterProvider: new MeterProvider() }
  const loaders: Record<Variant, ((host: Context) => PromiseLike<unknown>) | undefined> = {
    none: undefined,
    control: undefined,
    absent: (host) => host.plugin(Absent, {}),
    noSdk: (host) => host.plugin(TelemetryPlugin, {}),
    traced: (host) => host.plugin(TelemetryPlugin, traced),
  }
  const running = Object.fromEntries(await Promise.all(VARIANTS.map(async (name) => [name, await variant(`bench-telemetry-${name}`, loaders[name])] as const))) as Record<Variant, Awaited<ReturnType<typeof variant>>>
  const samples = await timeInterleaved(Object.fromEntries(VARIANTS.map((name) => [name, { op: running[name].step, iterations: 100 }])) as Record<Variant, { op: () => unknown; iterations: number }>, { rounds, clock: cpuClock })
  for (const name of VARIANTS) await running[name].close()
  const ratio = (name: Variant) => samples[name].median / samples.none.median
  return { samples, ratios: { control: ratio('control'), absent: ratio('absent'), noSdk: ratio('noSdk'), traced: ratio('traced') } }
}
