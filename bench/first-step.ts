/**
 * The first step of a fresh process (issue 24: "tokenizers load only when a count is read"). Each
 * round starts one child process per variant, which boots the built packages (`packages/<x>/lib`),
 * creates an agent with a registered tool and takes one step; the child times the step (and, for the
 * `read` variant, the step plus reading `report.requestTokens`) and reports its heap. Variants, in one
 * run, alternating round by round:
 * - `before`: another build, given with `--before <repository root>` (none without it), for example a
 *   checkout of 153b377, whose step counted its tokens before resolving;
 * - `now, no count read`: this build, a step whose figures nobody reads;
 * - `now, count read`: this build, a step and one count read (what a harness that shows counts pays).
 *
 *   yarn build && node --import tsx/esm bench/first-step.ts [--before <root>] [--rounds N]
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = fileURLToPath(new URL('..', import.meta.url))
const argument = (name: string) => {
  const at = process.argv.indexOf(name)
  return at < 0 ? undefined : process.argv[at + 1]
}
const before = argument('--before')
const rounds = Number(argument('--rounds') ?? 5)

/** The child: boots `root`'s built packages and times one step (reading a count when `read`). */
function child(root: string, read: boolean): string {
  const testing = pathToFileURL(`${root}/packages/testing/lib/index.js`).href
  return `
const { bootApp, tool } = await import(${JSON.stringify(testing)})
const { host } = await bootApp({ systemPrompt: { persona: 'Persona for {{model}}.' }, tools: true, agents: true })
host.tools.register(tool('read', { guidance: 'Read before you edit.' }))
const agent = await host.agents.create({ id: 'main', model: 'gpt-4.1', provider: 'openai' })
const start = performance.now()
const step = await agent.stepDetailed('Hello.')
${read ? 'if (!(step.report.requestTokens > 0)) throw new Error("no count")' : ''}
const ms = performance.now() - start
console.log(JSON.stringify({ ms, heapMB: process.memoryUsage().heapUsed / 2 ** 20 }))
process.exit(0)
`
}

function run(root: string, read: boolean): { ms: number; heapMB: number } {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', child(root, read)], { cwd: root, encoding: 'utf8' })
  return JSON.parse(out.trim().split('\n').pop()!)
}

const variants: Array<{ name: string; root: string; read: boolean }> = [
  ...(before ? [{ name: `before (${before})`, root: before, read: false }] : []),
  { name: 'now, no count read', root: here, read: false },
  { name: 'now, count read', root: here, read: true },
]
const samples = new Map<string, Array<{ ms: number; heapMB: number }>>(variants.map((v) => [v.name, []]))
for (let round = 0; round < rounds; round++) {
  for (const variant of round % 2 ? [...variants].reverse() : variants) samples.get(variant.name)!.push(run(variant.root, variant.read))
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
console.log(`first step of a fresh process (built packages, median of ${rounds} child processes each, alternating)`)
for (const { name } of variants) {
  const list = samples.get(name)!
  console.log(`${name.padEnd(40)} ${median(list.map((s) => s.ms)).toFixed(1).padStart(8)} ms   heap ${median(list.map((s) => s.heapMB)).toFixed(1).padStart(6)} MB`)
}
