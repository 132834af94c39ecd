/**
 * The CLI side of `packages/loader/tests/problems.fuzz.spec.ts`: the built `dsh-prompt check` on broken
 * deployment files generated from a seed by the loader's corpus (`packages/loader/tests/fuzz-corpus.ts`).
 * Nothing is committed but the seed. Each file costs one process (the CLI checks one file per run), so
 * the normal suite runs a sample of 12 files that covers every mutation family; `DSH_SOAK=1` runs the
 * whole corpus (294 files, less the syntax mutations that happen to leave valid YAML, see {@link isBroken}).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { expect } from 'chai'
import { parseKeyPath } from 'dsh-loader'
import type * as Yaml from 'yaml'
import { SOAK } from 'dsh-testing'
import { random } from 'dsh-testing'
import { brokenCorpus, type BrokenCase } from '../../loader/tests/fuzz-corpus.js'
import { assertBuilt, cli, lines, runAll, type Run } from './helpers.js'

const SEED = 0x5eed_0c11
/** Rounds of every mutation family: 17 give 17 × 17 + 5 = 294 files in the soak run. */
const ROUNDS = SOAK ? 17 : 3
/** Files checked in the normal suite. */
const SAMPLE = 12
/** A run that takes longer than this is killed and counts as a hang. */
const PROCESS_TIMEOUT = 20_000
/** A stack frame line, as Node prints them. */
const STACK_FRAME = /^\s+at /m

const requireHere = createRequire(import.meta.url)
/** The `yaml` package and schemastery as the loader and the prompt service resolve them. */
const { parseDocument } = createRequire(requireHere.resolve('dsh-loader'))('yaml') as typeof Yaml
const SCHEMASTERY = pathToFileURL(createRequire(requireHere.resolve('dsh-system-prompt')).resolve('schemastery')).href

/** The mutation family of a case, from its label. */
function familyOf(item: BrokenCase): string {
  const family = ['wrong type', 'unknown key', 'huge value', 'nested junk', 'syntax damage', 'non-UTF-8'].find((prefix) => item.label.startsWith(prefix))
  return family ?? 'whole file'
}

/**
 * Whether a case is a broken file. Some of the corpus's syntax mutations leave valid YAML (` "unclosed`
 * or ` &anchor *alias` appended to a plain scalar only lengthens the string), and such a file may be a
 * valid deployment, which `check` rightly passes. Those are left out.
 */
function isBroken(item: BrokenCase): boolean {
  return familyOf(item) !== 'syntax damage' || parseDocument(item.bytes.toString('utf8')).errors.length > 0
}

/**
 * A seeded sample of `size` cases: one of each family but wrong types, then wrong types at distinct keys.
 * The corpus has 12 keys with wrong types, so the sample covers a different subset for another seed.
 */
function sampleOf(corpus: readonly BrokenCase[], size: number, seed: number): BrokenCase[] {
  const next = random(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]
  const families = [...new Set(corpus.map(familyOf))].filter((family) => family !== 'wrong type')
  const sample = families.map((family) => pick(corpus.filter((item) => familyOf(item) === family)))
  const wrong = corpus.filter((item) => familyOf(item) === 'wrong type')
  while (sample.length < size) {
    const item = pick(wrong)
    if (!sample.some((taken) => taken.key === item.key)) sample.push(item)
  }
  return sample
}

/**
 * What the CLI must report for a case. The corpus states what the loader reports with no declared
 * sections; the CLI declares `agents:`, so a file holding only `agents: []` lacks `plugins:` (line 1, no
 * key) instead of having an unknown top-level key.
 */
function expectationOf(item: BrokenCase): { key?: string; line?: number } {
  if (item.key === 'agents') return { line: 1 }
  return item.key !== undefined ? { key: item.key, line: item.line } : { line: item.lineOnly }
}

/** A problem line split into its place and its message (the row label `plugins[i] (id "x"): ` removed). */
function parseProblemLine(line: string, file: string): { line?: number; column?: number; message: string } | undefined {
  if (!line.startsWith(`${file}:`)) return undefined
  const rest = line.slice(file.length + 1)
  const place = /^(\d+):(\d+): /.exec(rest)
  const text = place ? rest.slice(place[0].length) : rest.replace(/^ /, '')
  const message = text.replace(/^plugins\[\d+\](?: \(id "(?:[^"\\]|\\.)*"\))?: /, '')
  return place ? { line: Number(place[1]), column: Number(place[2]), message } : { message }
}

/**
 * Whether a message names the key at `key`: its last name appears in it as a word (`"id" must be …`,
 * `$.persona expected …`, `unknown config key "junk" …`), or, for a `name` key, the plugin it names is
 * quoted because it resolves to nothing.
 */
function namesKey(message: string, key: string): boolean {
  const last = parseKeyPath(key).filter((segment): segment is string => typeof segment === 'string').at(-1)
  if (last === undefined) return false
  const escaped = last.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  if (new RegExp(`(^|[^\\w$])${escaped}($|[^\\w$])`).test(message)) return true
  return last === 'name' && /plugin "/.test(message)
}

describe('dsh-prompt check on a fuzzed corpus of broken deployments (soak)', function () {
  this.timeout(SOAK ? 0 : 90_000)
  let folder = ''
  const generated = brokenCorpus(SEED, ROUNDS, './greeter.mjs')
  const corpus = generated.filter(isBroken)
  const cases = SOAK ? corpus : sampleOf(corpus, SAMPLE, SEED)
  const fileOf = (index: number) => join(folder, `case-${index}.yml`)
  const runs: Run[] = []
  let json: Record<'encoding' | 'unknownKey' | 'wrongType', Run>
  const jsonCase = (family: string) => cases.findIndex((item) => familyOf(item) === family)

  before(async () => {
    assertBuilt()
    folder = mkdtempSync(join(tmpdir(), 'dsh-check-fuzz-'))
    // The corpus's second row is this plugin, next to the files: a real schemastery schema, in plain
    // JavaScript, since the built CLI runs on plain node (no TypeScript loader).
    writeFileSync(join(folder, 'greeter.mjs'), [
      `import z from ${JSON.stringify(SCHEMASTERY)}`,
      `export const name = 'greeter'`,
      `export const inject = ['systemPrompt']`,
      `export const Config = z.object({ section: z.string().required(), text: z.string().required(), order: z.number().default(100) })`,
      `export function apply(ctx, config) { ctx.systemPrompt.section({ name: config.section, order: config.order, text: config.text }) }`,
      '',
    ].join('\n'))
    cases.forEach((item, index) => writeFileSync(fileOf(index), item.bytes))
    const jobs = Object.fromEntries(cases.map((_, index) => [index, () => cli(['check', fileOf(index)], { timeout: PROCESS_TIMEOUT })]))
    const results = await runAll(jobs, 2)
    cases.forEach((_, index) => runs.push(results[index]))
    json = await runAll({
      encoding: () => cli(['check', fileOf(jsonCase('non-UTF-8')), '--json'], { timeout: PROCESS_TIMEOUT }),
      unknownKey: () => cli(['check', fileOf(jsonCase('unknown key')), '--json'], { timeout: PROCESS_TIMEOUT }),
      wrongType: () => cli(['check', fileOf(jsonCase('wrong type')), '--json'], { timeout: PROCESS_TIMEOUT }),
    }, 2)
  })
  after(() => {
    if (folder) rmSync(folder, { recursive: true, force: true })
  })

  it(`checks ${SOAK ? 'every one of the' : `a sample of ${SAMPLE} from the`} ${corpus.length} broken files of seed ${SEED.toString(16)} (${generated.length - corpus.length} syntax mutations left valid YAML), covering every mutation family`, () => {
    expect(generated.length).to.equal(ROUNDS * 17 + 5)
    expect(cases.length).to.equal(SOAK ? corpus.length : SAMPLE)
    expect([...new Set(cases.map(familyOf))].sort()).to.deep.equal(['huge value', 'nested junk', 'non-UTF-8', 'syntax damage', 'unknown key', 'whole file', 'wrong type'])
  })

  it('exits 1 on every file: never 0, never killed by the timeout', () => {
    for (const [index, item] of cases.entries()) {
      const run = runs[index]
      expect(run.timedOut, `${item.label}: still running after ${PROCESS_TIMEOUT} ms`).to.equal(false)
      expect(run.code, `${item.label}\n${run.stdout.slice(0, 500)}${run.stderr.slice(0, 500)}`).to.equal(1)
    }
  })

  it('never prints a stack trace on stdout or stderr', () => {
    for (const [index, item] of cases.entries()) {
      const run = runs[index]
      expect(STACK_FRAME.test(run.stdout), `${item.label}: stdout\n${run.stdout.slice(0, 1000)}`).to.equal(false)
      expect(STACK_FRAME.test(run.stderr), `${item.label}: stderr\n${run.stderr.slice(0, 1000)}`).to.equal(false)
    }
  })

  it('prints one line per problem naming the file and a line in it, then the count of problems', () => {
    for (const [index, item] of cases.entries()) {
      const file = fileOf(index)
      const output = lines(runs[index].stdout)
      const lineCount = item.bytes.toString('utf8').split('\n').length
      const problems = output.slice(0, -1)
      expect(problems.length, `${item.label}\n${runs[index].stdout.slice(0, 500)}`).to.be.above(0)
      expect(output.at(-1), item.label).to.equal(`${problems.length} ${problems.length === 1 ? 'problem' : 'problems'} in ${file}`)
      for (const text of problems) {
        const problem = parseProblemLine(text, file)
        expect(problem, `${item.label}: ${text.slice(0, 300)}`).to.not.equal(undefined)
        // An empty file (or one with only comments) has no line to point at.
        if (item.label === 'empty file' || item.label === 'only comments') continue
        expect(problem!.line, `${item.label}: ${text.slice(0, 300)}`).to.be.a('number').within(1, lineCount)
      }
    }
  })

  it('reports a mutation at a known key on that key\'s line, naming the key; damage without a key on its line', () => {
    for (const [index, item] of cases.entries()) {
      const expected = expectationOf(item)
      if (expected.line === undefined) continue
      const problems = lines(runs[index].stdout).slice(0, -1).map((text) => parseProblemLine(text, fileOf(index))!)
      const described = problems.map((p) => `${p.line}: ${p.message.slice(0, 120)}`).join('\n')
      const found = problems.some((p) => p.line === expected.line && (expected.key === undefined || namesKey(p.message, expected.key)))
      expect(found, `${item.label}: expected line ${expected.line}${expected.key ? ` naming ${expected.key}` : ''}\n${described}`).to.equal(true)
    }
  })

  it('--json prints one JSON document with exit 1, whose problems carry the file, the line and the key', () => {
    for (const [name, run] of Object.entries(json)) {
      expect(run.code, `${name}: ${run.stderr.slice(0, 300)}`).to.equal(1)
      expect(STACK_FRAME.test(run.stdout + run.stderr), name).to.equal(false)
    }
    const check = (run: Run, family: string) => {
      const index = jsonCase(family)
      const doc = JSON.parse(run.stdout)
      expect(doc).to.include({ ok: false, command: 'check', file: fileOf(index), checked: null })
      expect(doc.problems.length, family).to.be.above(0)
      for (const problem of doc.problems) expect(problem).to.include({ file: fileOf(index), kind: 'load' }).and.to.have.property('code').that.matches(/^LOADER_[A-Z0-9_]+$/)
      return { item: cases[index], problems: doc.problems as Array<{ line?: number; key?: string; message: string }> }
    }
    const encoding = check(json.encoding, 'non-UTF-8')
    expect(encoding.problems).to.have.length(1)
    expect(encoding.problems[0].line).to.equal(encoding.item.lineOnly)
    expect(encoding.problems[0].key).to.equal(undefined)
    expect(encoding.problems[0].message).to.match(/^the deployment file is not valid UTF-8: byte 0x[0-9A-F]{2} does not start or continue a UTF-8 character \(save the file as UTF-8\)$/)
    for (const [run, family] of [[json.unknownKey, 'unknown key'], [json.wrongType, 'wrong type']] as const) {
      const { item, problems } = check(run, family)
      const expected = expectationOf(item)
      expect(problems.some((p) => p.key === expected.key && p.line === expected.line), `${item.label}\n${JSON.stringify(problems).slice(0, 500)}`).to.equal(true)
    }
  })
})
