/**
 * `yarn bench [--quick]`: the dsh benchmark (issue 5). Runs each group of rows (`bench/rows.ts`) in a
 * process of its own, with this process's node flags, so no row measures what an earlier one left in
 * the heap, the JIT or the listeners. Prints a table and writes JSON lines to bench/results/. Every
 * ratio is computed from figures measured in one run.
 *
 *   yarn bench --before <checkout> [--now <checkout>] [--runs 3] [--only f-anthropic,g-anthropic]
 *
 * times this build (or `--now`'s) and another one's (`<checkout>`, with `packages/<x>/lib` built) with
 * the same benchmark code, group by group, alternating which goes first, `--runs` times (3 by default),
 * and prints each row's median on both sides, the ratio of the medians and the spread of the run-by-run
 * ratios.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { GROUPS } from './rows.js'

const argument = (name: string) => {
  const at = process.argv.indexOf(name)
  return at < 0 ? undefined : process.argv[at + 1]
}
const quick = process.argv.includes('--quick')
const before = argument('--before')
const nowRoot = argument('--now')
const runs = Number(argument('--runs') ?? 3)
// Which side goes first in each group turns with the run; `--offset 1` starts on the other side (for runs made in separate calls).
const offset = Number(argument('--offset') ?? 0)
const only = argument('--only')?.split(',')
const ids = GROUPS.map((group) => group.id)
const groups = only ? ids.filter((id) => only.includes(id)) : ids
const rowFile = fileURLToPath(new URL('./row.ts', import.meta.url))

interface Line { kind: 'row' | 'note'; name?: string; display?: string; text?: string; [field: string]: unknown }
interface Outcome { lines: Line[]; error?: string }

/** Runs one group in a child process; `root` is another checkout whose packages it times. */
function runGroup(id: string, root?: string): Outcome {
  const args = [...process.execArgv, rowFile, id, ...(quick ? ['--quick'] : []), ...(root ? ['--root', root] : [])]
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 })
  const lines = child.stdout.split('\n').filter((line) => line.startsWith('{"kind"')).map((line) => JSON.parse(line) as Line)
  if (child.status === 0) return { lines }
  const error = child.stderr.split('\n').find((line) => /Error|error/.test(line)) ?? `exit ${child.status ?? child.signal}`
  return { lines, error: error.trim().slice(0, 160) }
}

/** The figure a row is compared by: its `value`, else its sample's median, else its median share. */
function figure(line: Line): number | undefined {
  for (const key of ['value', 'median', 'medianShare']) if (typeof line[key] === 'number') return line[key] as number
  return undefined
}

function show(value: number | undefined, unit: unknown): string {
  if (value === undefined) return '-'
  if (unit === 'us') return value >= 1000 ? `${(value / 1000).toFixed(2)} ms` : `${value.toFixed(2)} µs`
  if (unit === 'bytes') return `${(value / 1024).toFixed(2)} KB`
  if (unit === 'share') return `${(value * 100).toFixed(1)}%`
  return `${value.toFixed(3)} x`
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const results: Record<string, unknown>[] = []
let failed = false
if (!before) {
  console.log(`dsh benchmark${quick ? ' (quick)' : ''}: node ${process.version}, one process per group\n`)
  for (const id of groups) {
    const { lines, error } = runGroup(id)
    for (const line of lines) {
      if (line.kind === 'note') console.log(line.text)
      else console.log(`${line.name!.padEnd(52)} ${line.display}`), results.push({ group: id, ...line })
    }
    if (error) failed = true, console.log(`${id}: failed: ${error}`)
  }
} else {
  console.log(`dsh benchmark${quick ? ' (quick)' : ''}, before (${before}) against now${nowRoot ? ` (${nowRoot})` : ''}, ${runs} runs, one process per group, alternating\n`)
  const sides = ['before', 'now'] as const
  // figures[row][side][run]
  const figures = new Map<string, { unit: unknown; before: number[]; now: number[] }>()
  const failures = new Map<string, string>()
  for (let run = 0; run < runs; run++) {
    groups.forEach((id, index) => {
      for (const side of (run + index + offset) % 2 ? [...sides].reverse() : sides) {
        const { lines, error } = runGroup(id, side === 'before' ? before : nowRoot)
        if (error) failures.set(`${id} (${side})`, error)
        for (const line of lines) {
          const value = line.kind === 'row' ? figure(line) : undefined
          if (value === undefined) continue
          const entry = figures.get(line.name!) ?? { unit: line.unit, before: [], now: [] }
          entry[side][run] = value
          figures.set(line.name!, entry)
          results.push({ group: id, side, run, ...line })
          process.stderr.write(`run ${run + 1} ${side.padEnd(6)} ${line.name!.padEnd(56)} ${show(value, line.unit)}\n`)
        }
      }
    })
    process.stderr.write(`run ${run + 1} of ${runs} done\n`)
  }
  console.log(`${'row'.padEnd(56)} ${'before'.padStart(11)} ${'now'.padStart(11)}   ratio   spread of the runs' ratios`)
  for (const [name, { unit, before: was, now }] of figures) {
    const pairs = now.map((value, run) => value / was[run]).filter((ratio) => Number.isFinite(ratio))
    const ratio = was.length && now.length ? median(now.filter(Number.isFinite)) / median(was.filter(Number.isFinite)) : NaN
    const spread = pairs.length ? `${Math.min(...pairs).toFixed(2)}–${Math.max(...pairs).toFixed(2)}` : ''
    console.log(`${name.padEnd(56)} ${show(was.length ? median(was.filter(Number.isFinite)) : undefined, unit).padStart(11)} ` +
      `${show(now.length ? median(now.filter(Number.isFinite)) : undefined, unit).padStart(11)}   ${Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '  -  '}   ${spread}`)
  }
  for (const [where, error] of failures) console.log(`${where}: failed: ${error}`)
  failed = [...failures.keys()].some((where) => where.endsWith('(now)'))
}

mkdirSync(new URL('./results/', import.meta.url), { recursive: true })
const file = new URL(`./results/bench-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`, import.meta.url)
writeFileSync(file, results.map((row) => JSON.stringify({ ...row, node: process.version, quick, before })).join('\n') + '\n')
console.log(`\nJSON lines: ${file.pathname}`)
if (failed) process.exitCode = 1
