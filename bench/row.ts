/**
 * One group of the benchmark's rows, in this process alone (`bench/run.ts` starts one per group):
 * prints each figure as a JSON line (`{"kind":"row",...}`) and each heading as `{"kind":"note",...}`.
 *
 *   node --expose-gc --import tsx/esm bench/row.ts <group> [--quick] [--root <checkout>]
 *
 * With `--root`, the packages the bench imports by name come from that checkout (its `packages/<x>/lib`,
 * built), so one benchmark driver times two commits alike.
 */
import { register } from 'node:module'
import { pathToFileURL } from 'node:url'

const [id] = process.argv.slice(2)
const quick = process.argv.includes('--quick')
const at = process.argv.indexOf('--root')
if (at > 0) {
  const root = pathToFileURL(`${process.argv[at + 1]}/bench/`).href
  register('./root-hooks.mjs', import.meta.url, { data: { bench: new URL('.', import.meta.url).href, root } })
}
// Imported after the hooks are registered, so its imports of packages go through them.
const { GROUPS } = await import('./rows.js')
const group = GROUPS.find((candidate) => candidate.id === id)
if (!group) throw new Error(`no benchmark group ${JSON.stringify(id)}; groups: ${GROUPS.map((g) => g.id).join(', ')}`)
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`)
await group.run({
  quick,
  rounds: quick ? 5 : 15,
  report: (name, fields, display) => print({ kind: 'row', name, display, ...fields }),
  note: (text) => print({ kind: 'note', text }),
})
process.exit(0)
