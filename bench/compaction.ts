/**
 * (k) The cost of planning a compaction (`agent.planCompaction()`: an assembly, both re-anchors built
 * and measured against the latest request) and of the step right after one (the record lowered again
 * from the new epoch's start), each against an ordinary step with its body, on the heavy workload's
 * agent at 50 turns, per wire format, interleaved in the same run so the ratios do not move with the
 * machine. The step after a compaction runs on an agent that keeps the last 50 turns, so its record is
 * as long as the ordinary step's; only that step is timed (the turn and the compaction before it are not).
 */
import { performance } from 'node:perf_hooks'
import type { WireFormat } from 'dsh-wire'
import { heavyHost, steppingAgent } from './heavy-step.js'
import { summarize, type Sample } from './measure.js'

export interface CompactionSamples {
  step: Sample
  plan: Sample
  after: Sample
  planRatio: number
  afterRatio: number
}

/** Times `op` `iterations` times (with `before` untimed ahead of each), returning µs per call. */
async function timed(op: () => Promise<unknown>, iterations: number, before?: () => Promise<unknown>): Promise<number> {
  let total = 0
  for (let i = 0; i < iterations; i++) {
    if (before) await before()
    const start = performance.now()
    await op()
    total += performance.now() - start
  }
  return total * 1000 / iterations
}

export async function measureCompaction(formats: readonly WireFormat[], rounds: number): Promise<Map<WireFormat, CompactionSamples>> {
  const { host, close } = await heavyHost()
  const results = new Map<WireFormat, CompactionSamples>()
  for (const format of formats) {
    const plain = await steppingAgent(host, `compaction-plain-${format}`, format)
    const compacted = await steppingAgent(host, `compaction-epochs-${format}`, format)
    for (let i = 0; i < 51; i++) {
      await plain.step()
      await compacted.step()
    }
    const plan = () => plain.agent.planCompaction({ summary: 'The conversation so far, in a few lines.', keep: { turns: 50 }, format })
    // Untimed: one more turn, then a compaction that keeps the last 50 (the record stays as long as the plain agent's).
    const compact = async () => {
      await compacted.step()
      await compacted.agent.compact({ summary: 'The conversation so far, in a few lines.', keep: { turns: 50 }, format })
    }
    const perOp = { step: [] as number[], plan: [] as number[], after: [] as number[] }
    for (let round = 0; round < rounds + 2; round++) {
      const step = await timed(plain.step, 40)
      const planned = await timed(plan, 10)
      const after = await timed(compacted.step, 10, compact)
      if (round < 2) continue
      perOp.step.push(step)
      perOp.plan.push(planned)
      perOp.after.push(after)
    }
    const samples = { step: summarize(perOp.step, 40), plan: summarize(perOp.plan, 10), after: summarize(perOp.after, 10) }
    results.set(format, { ...samples, planRatio: samples.plan.median / samples.step.median, afterRatio: samples.after.median / samples.step.median })
  }
  await close()
  return results
}
