/**
 * (j) What `dsh-plugin-telemetry` costs a step (with its body and a reply recorded with usage), on the
 * heavy workload's agent at 50 turns: without the plugin, with the plugin loaded where OpenTelemetry
 * is not installed (it then registers nothing), and with it tracing into an SDK that exports nothing.
 * Measured interleaved in one run; the ratios are to the step without the plugin, and a second app
 * without the plugin (`control`) shows how far two identical apps differ on this machine.
 */
import type { Context } from 'cordis'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { applyWith, importApi, type Config } from 'dsh-plugin-telemetry'
import { heavyHost } from './heavy-step.js'
import { timeInterleaved, type Sample } from './measure.js'

/** The three variants' samples and each one's ratio to the step without the plugin. */
export interface TelemetryCost {
  none: Sample
  control: Sample
  absent: Sample
  traced: Sample
  controlRatio: number
  absentRatio: number
  tracedRatio: number
}

/** A heavy host with `setup` applied as a plugin, and a step (with body and usage) of an agent with 50 turns. */
async function variant(name: string, setup: ((ctx: Context) => void) | undefined) {
  const { host, close } = await heavyHost()
  if (setup) await host.plugin({ name, apply: setup })
  const agent = await host.agents.create({ id: name, model: 'bench-model' })
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
  const config: Config = { content: false, tracerProvider: new BasicTracerProvider(), meterProvider: new MeterProvider() }
  const api = await importApi()
  const none = await variant('bench-telemetry-none', undefined)
  const control = await variant('bench-telemetry-control', undefined)
  const absent = await variant('dsh-plugin-telemetry', (ctx) => applyWith(ctx, config, undefined))
  const traced = await variant('dsh-plugin-telemetry', (ctx) => applyWith(ctx, config, api))
  const samples = await timeInterleaved({
    none: { op: none.step, iterations: 100 },
    control: { op: control.step, iterations: 100 },
    absent: { op: absent.step, iterations: 100 },
    traced: { op: traced.step, iterations: 100 },
  }, { rounds })
  for (const { close } of [none, control, absent, traced]) await close()
  return { ...samples, controlRatio: samples.control.median / samples.none.median, absentRatio: samples.absent.median / samples.none.median, tracedRatio: samples.traced.median / samples.none.median }
}
