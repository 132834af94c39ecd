/**
 * Heap peak of reading one large deployment file, per shape of file: the figures of
 * `docs/guarantees.md` §8. Each case runs in its own process (`--expose-gc --trace-gc
 * --max-semi-space-size=1`, so a scavenge runs about every megabyte of allocation); the peak is the
 * largest heap in use before any collection during the load (or at its end), less the heap after a full
 * collection just before it. A synchronous parse cannot be sampled by a timer; the collections inside it can.
 *
 *   yarn build && node --import tsx/esm bench/yaml-memory.ts            # every case, at 4 MiB
 *   node --import tsx/esm bench/yaml-memory.ts --bytes 1048576 list     # one case, another size
 *
 * `--parse` measures the `yaml` package's `parseDocument()` alone instead of `loadDeployment()`;
 * `--no-limits` loads with `maxYamlTokens` and `maxDoubleQuotedChars` at `Infinity` (the figures before the
 * limits).
 * Measures the built code (`packages/*\/lib`).
 * @module
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A deployment of about `bytes` bytes, by shape. */
const CASES: Record<string, (bytes: number) => string> = {
  plain: (bytes) => `plugins:\n  - name: dsh-system-prompt\n    config:\n      persona: ${'x'.repeat(bytes - 60)}\n`,
  double: (bytes) => `plugins:\n  - name: dsh-system-prompt\n    config:\n      persona: "${'x'.repeat(bytes - 60)}"\n`,
  single: (bytes) => `plugins:\n  - name: dsh-system-prompt\n    config:\n      persona: '${'x'.repeat(bytes - 60)}'\n`,
  // A plain scalar over many lines (folded into one line by the parser).
  folded: (bytes) => `plugins:\n  - name: dsh-system-prompt\n    config:\n      persona: x\n${'        xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n'.repeat(Math.floor((bytes - 60) / 75))}`,
  block: (bytes) => `plugins:\n  - name: dsh-system-prompt\n    config:\n      persona: |\n${'        xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n'.repeat(Math.floor((bytes - 60) / 75))}`,
  // Short items, as a generated list would have them: the most values a file of this size can hold.
  list: (bytes) => `plugins:\n  - name: dsh-system-prompt\n    config:\n      toolOrder:\n${'        - t\n'.repeat(Math.floor((bytes - 80) / 12))}`,
  flow: (bytes) => `plugins:\n  - name: dsh-system-prompt\n    config:\n      toolOrder: [${'t,'.repeat(Math.floor((bytes - 80) / 2))}t]\n`,
  // Shapes that hold no value but still make tokens: empty list items, blank lines, comments.
  dashes: (bytes) => `plugins:\n  - name: dsh-system-prompt\n    config:\n      toolOrder:\n${'        -\n'.repeat(Math.floor((bytes - 80) / 10))}`,
  blank: (bytes) => `plugins:\n  - name: dsh-system-prompt\n${'\n'.repeat(bytes - 40)}`,
  comments: (bytes) => `plugins:\n  - name: dsh-system-prompt\n${'#\n'.repeat(Math.floor((bytes - 40) / 2))}`,
  // At the default limits, the rest of the file a block scalar: the most an accepted file can cost.
  limitList: (bytes) => filled(`      toolOrder:\n${'        - t\n'.repeat(Math.floor((LIMIT_TOKENS - 400) / 5))}`, bytes),
  limitFlow: (bytes) => filled(`      toolOrder: [${'t,'.repeat(Math.floor((LIMIT_TOKENS - 400) / 2))}t]\n`, bytes),
  limitFlowLines: (bytes) => filled(`      toolOrder: [\n${'        t,\n'.repeat(Math.floor((LIMIT_TOKENS - 400) / 4))}        t]\n`, bytes),
  limitComments: (bytes) => filled('#\n'.repeat(Math.floor((LIMIT_TOKENS - 400) / 2)), bytes),
  limitDouble: (bytes) => filled(`      personaSuffix: "${'x'.repeat(LIMIT_QUOTED - 10)}"\n`, bytes),
  limitAll: (bytes) => filled(`      toolOrder: [${'t,'.repeat(Math.floor((LIMIT_TOKENS - 400) / 2))}t]\n      personaSuffix: "${'x'.repeat(LIMIT_QUOTED - 10)}"\n`, bytes),
  // Ordinary rows: a real deployment's shape, repeated (each row a disabled plugin with a small config).
  rows: (bytes) => {
    const row = (i: number) => `  - name: dsh-plugin-shell\n    id: shell-${i}\n    disabled: true\n    config:\n      defaultTimeoutMs: 120000\n      maxOutputBytes: 30000\n      note: "row ${i}: a short double-quoted note"\n`
    let text = 'plugins:\n  - name: dsh-system-prompt\n'
    for (let i = 0; text.length < bytes - 200; i++) text += row(i)
    return text
  },
}

// The loader's default limits (`packages/loader/src/yaml-limits.ts`).
const { DEFAULT_MAX_YAML_TOKENS: LIMIT_TOKENS, DEFAULT_MAX_DOUBLE_QUOTED_CHARS: LIMIT_QUOTED } = await import('dsh-loader')

/** `config` lines of one row, then a block-scalar persona that fills the file to about `bytes`. */
function filled(config: string, bytes: number): string {
  const head = `plugins:\n  - name: dsh-system-prompt\n    config:\n${config}      persona: |\n`
  const line = '        xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n'
  return head + line.repeat(Math.max(0, Math.floor((bytes - head.length) / line.length)))
}

const here = fileURLToPath(import.meta.url)

async function child(shape: string, bytes: number, parseOnly: boolean, noLimits: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-yaml-memory-'))
  const file = join(dir, 'deployment.yml')
  writeFileSync(file, CASES[shape](bytes))
  const { parseDocument, Lexer } = await import('yaml')
  const { CST } = await import('yaml')
  // Counted as the loader counts them: its control markers are not tokens of the text.
  let tokens = 0
  for (const token of new Lexer().lex(CASES[shape](bytes))) if (!['scalar', 'doc-mode', 'flow-error-end'].includes(CST.tokenType(token) ?? '')) tokens++
  const { loadDeployment, DeploymentError } = await import('dsh-loader')
  const { Context } = await import('cordis')
  const { readFileSync } = await import('node:fs')
  const text = parseOnly ? readFileSync(file, 'utf8') : ''
  const app = new Context()
  const gc = (globalThis as { gc?: () => void }).gc!
  gc()
  const before = process.memoryUsage().heapUsed
  console.log(`@@start ${before}`)
  const started = performance.now()
  let result = 'loads'
  if (parseOnly) {
    const doc = parseDocument(text)
    result = doc.errors.length ? doc.errors[0].code : 'parses'
  } else {
    try {
      const deployment = await loadDeployment(app, file, { env: {}, ...(noLimits ? { maxYamlTokens: Infinity, maxDoubleQuotedChars: Infinity } : {}) })
      await deployment.dispose()
    } catch (error) {
      result = DeploymentError.is(error) ? `${error.problems[0].code} (${error.problems.length})` : String(error)
    }
  }
  const ms = performance.now() - started
  // The heap in use at the end counts too (a short load may run no collection at all).
  console.log(`@@heap ${process.memoryUsage().heapUsed}`)
  console.log(`@@end ${Math.round(ms)} ${tokens} ${JSON.stringify(result)}`)
  gc()
  console.log(`@@after ${process.memoryUsage().heapUsed}`)
  rmSync(dir, { recursive: true, force: true })
}

function parent(shapes: string[], bytes: number, parseOnly: boolean, noLimits: boolean): void {
  console.log(`| ${(bytes / 1048576).toFixed(2)} MiB file | tokens | heap peak | × size | bytes/token | after | time | result |\n|---|---|---|---|---|---|---|---|`)
  for (const shape of shapes) {
    const args = ['--expose-gc', '--trace-gc', '--max-semi-space-size=1', '--import', 'tsx/esm', here, '--child', shape, '--bytes', String(bytes), ...(parseOnly ? ['--parse'] : []), ...(noLimits ? ['--no-limits'] : [])]
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 })
    let start = 0, peak = 0, after = 0, inside = false, ms = 0, tokens = 0, result = ''
    for (const line of run.stdout.split('\n')) {
      if (line.startsWith('@@start ')) { start = Number(line.slice(8)); peak = start; inside = true; continue }
      if (line.startsWith('@@end ')) { [ms, tokens, result] = [Number(line.split(' ')[1]), Number(line.split(' ')[2]), JSON.parse(line.split(' ').slice(3).join(' '))]; inside = false; continue }
      if (line.startsWith('@@heap ')) { peak = Math.max(peak, Number(line.slice(7))); continue }
      if (line.startsWith('@@after ')) { after = Number(line.slice(8)); continue }
      // "... ms: Scavenge 45.2 (50.1) -> 44.8 (51.1) MB, ..."
      const gc = inside ? /: (?:Scavenge|Mark-Compact|Mark-sweep)[^\d]*?([\d.]+) \([\d.]+\) -> ([\d.]+)/.exec(line) : null
      if (gc) peak = Math.max(peak, Number(gc[1]) * 1048576)
    }
    if (run.status !== 0 || !result) {
      console.log(`| ${shape} | failed: ${run.stderr.split('\n').slice(-5).join(' ')} |`)
      continue
    }
    const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`
    console.log(`| ${shape} | ${tokens} | ${mb(peak - start)} | ${((peak - start) / bytes).toFixed(1)}× | ${Math.round((peak - start) / tokens)} | ${mb(after - start)} | ${(ms / 1000).toFixed(2)} s | ${result} |`)
  }
}

const argv = process.argv.slice(2)
const flag = (name: string) => { const i = argv.indexOf(name); if (i < 0) return undefined; const [value] = argv.splice(i, 2).slice(1); return value }
const bytes = Number(flag('--bytes') ?? 4 * 1024 * 1024 - 1024)
const parseOnly = argv.includes('--parse') ? (argv.splice(argv.indexOf('--parse'), 1), true) : false
const noLimits = argv.includes('--no-limits') ? (argv.splice(argv.indexOf('--no-limits'), 1), true) : false
const childShape = flag('--child')
if (childShape) await child(childShape, bytes, parseOnly, noLimits)
else parent(argv.length ? argv : Object.keys(CASES), bytes, parseOnly, noLimits)
