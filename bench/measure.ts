/**
 * Timing and heap helpers for the benchmark: medians over rounds after warm-up, with the spread.
 */
import { performance } from 'node:perf_hooks'

export interface Sample {
  /** Median time per operation in microseconds. */
  median: number
  /** Fastest and slowest round, per operation, in microseconds. */
  min: number
  max: number
  rounds: number
  iterations: number
}

/** Runs `op` `iterations` times per round for `rounds` rounds after `warmup` rounds. */
export async function time(op: () => unknown, options: { rounds: number; iterations: number; warmup?: number }): Promise<Sample> {
  const { rounds, iterations, warmup = 2 } = options
  const perOp: number[] = []
  for (let r = 0; r < warmup + rounds; r++) {
    const start = performance.now()
    for (let i = 0; i < iterations; i++) {
      const result = op()
      if (result instanceof Promise) await result
    }
    const elapsed = (performance.now() - start) * 1000 / iterations
    if (r >= warmup) perOp.push(elapsed)
  }
  return summarize(perOp, iterations)
}

/**
 * Times several operations in interleaved rounds (each round runs every operation once, in order), so a
 * change of machine or JIT state during the run affects every figure alike and none is measured first.
 * `clock` (milliseconds; default the wall clock) may be {@link cpuClock} on a shared machine.
 */
export async function timeInterleaved<K extends string>(
  ops: Record<K, { op: () => unknown; iterations: number }>, options: { rounds: number; warmup?: number; clock?: () => number },
): Promise<Record<K, Sample>> {
  const { rounds, warmup = 2, clock = () => performance.now() } = options
  const names = Object.keys(ops) as K[]
  const perOp = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>
  for (let r = 0; r < warmup + rounds; r++) {
    for (const name of names) {
      const { op, iterations } = ops[name]
      const start = clock()
      for (let i = 0; i < iterations; i++) {
        const result = op()
        if (result instanceof Promise) await result
      }
      if (r >= warmup) perOp[name].push((clock() - start) * 1000 / iterations)
    }
  }
  return Object.fromEntries(names.map((name) => [name, summarize(perOp[name], ops[name].iterations)])) as Record<K, Sample>
}

/** Summarises per-round, per-operation times (µs). */
export function summarize(perOp: number[], iterations: number): Sample {
  const sorted = perOp.slice().sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
  return { median, min: sorted[0], max: sorted[sorted.length - 1], rounds: perOp.length, iterations }
}

/** Heap used after a full garbage collection (requires `--expose-gc`). */
export function settledHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run the benchmark with node --expose-gc')
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().heapUsed
}

/** `12.3 µs` style formatting. */
export function us(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} ms` : `${value.toFixed(value < 10 ? 2 : 1)} µs`
}

/** The process's CPU time (user and system, every thread) in milliseconds: what a step costs, without the time other processes held the cores. */
export function cpuClock(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
