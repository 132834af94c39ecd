import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import fc from 'fast-check'
import { DeploymentError, loadDeployment, type Problem } from 'dsh-loader'
import { displayPath, firstInvalidUtf8 } from '../src/source.js'
import { SOAK } from 'dsh-testing'
import { brokenCorpus, type BrokenCase } from './fuzz-corpus.js'
import { bootApp, rejection } from 'dsh-testing'
import { fixture } from './helpers.js'

const SEED = 0x5eed_0006
const ROUNDS = SOAK ? 40 : 4
// Problems that concern the whole file or its bytes, not one key: they name the file and (but for an empty
// file) a line, and no key.
const KEYLESS = [/^YAML syntax error: /, /^the deployment nests mappings and lists more than /, /^the deployment has more than \d+ YAML tokens /, /^the deployment's double-quoted strings hold more than /, /^the deployment file is not valid UTF-8: /, /^the deployment is empty /, /^the top level must be a mapping/, /^missing top-level key "plugins"/]

/**
 * `loading`, or a failure naming the case when it has not settled after HANG_MS. This bound only catches
 * a hang (each case loads in milliseconds): there is no assertion on how long a load takes, which a busy
 * machine would break; the loader's own limits (tokens, depth, quoted characters) bound its work.
 */
const HANG_MS = 60_000
async function settlesOrHangs<T>(loading: Promise<T>, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: the load has not settled after ${HANG_MS} ms (a hang)`)), HANG_MS)
  })
  try {
    return await Promise.race([loading, hang])
  } finally {
    clearTimeout(timer)
  }
}

describe('dsh-loader: problems reported for a fuzzed corpus of broken deployments (soak)', function () {
  this.timeout(SOAK ? 0 : 240_000)
  const folder = mkdtempSync(join(tmpdir(), 'dsh-fuzz-'))
  const corpus = brokenCorpus(SEED, ROUNDS, fixture('plugins/greeter.ts'))
  after(() => rmSync(folder, { recursive: true, force: true }))

  // Each case is loaded once (the first test); the others read what it reported.
  const outcomes = new Map<BrokenCase, { error: DeploymentError; file: string }>()
  const load = async (item: BrokenCase, index: number) => outcomes.get(item) ?? loadOnce(item, index)

  /** Loads one case; returns the DeploymentError after checking that it is one, in time, leaving nothing mounted. */
  async function loadOnce(item: BrokenCase, index: number): Promise<{ error: DeploymentError; file: string }> {
    const file = join(folder, `case-${index}.yml`)
    writeFileSync(file, item.bytes)
    const { app, host } = await bootApp()
    const plugins = [...app.registry.keys()]
    const error = await settlesOrHangs(rejection(() => loadDeployment(host, file, { env: {} })), item.label)
    expect(DeploymentError.is(error) && error instanceof DeploymentError, `${item.label}: ${String(error?.stack).slice(0, 300)}`).to.equal(true)
    expect([...app.registry.keys()], `${item.label}: plugins left mounted`).to.deep.equal(plugins)
    const outcome = { error: error as DeploymentError, file }
    outcomes.set(item, outcome)
    return outcome
  }

  it(`has ${corpus.length} cases from seed ${SEED.toString(16)}: wrong types at every key, unknown keys, huge values, deep junk, syntax and encoding damage`, () => {
    expect(corpus.length).to.equal(ROUNDS * 17 + 5)
  })

  it('every case fails with a DeploymentError (never another exception, a hang or a load) whose problems name the file and a line', async () => {
    for (const [index, item] of corpus.entries()) {
      const { error, file } = await load(item, index)
      const text = item.bytes.toString('utf8')
      const lineCount = text.split('\n').length
      expect(error.problems.length, item.label).to.be.above(0)
      for (const problem of error.problems) {
        expect(problem.file, item.label).to.equal(displayPath(file))
        if (item.label === 'empty file' || item.label === 'only comments') continue
        expect(problem.line, `${item.label}: ${problem.message}`).to.be.a('number').within(1, lineCount)
        expect(error.message, item.label).to.include(`${problem.file}:${problem.line}:`)
      }
    }
  })

  it('every problem not about the whole file or its syntax names the key at fault', async () => {
    for (const [index, item] of corpus.entries()) {
      const { error } = await load(item, index)
      for (const problem of error.problems) {
        if (KEYLESS.some((pattern) => pattern.test(problem.message))) continue
        expect(problem.key, `${item.label}: ${problem.message}`).to.be.a('string').and.not.equal('')
      }
    }
  })

  it('a mutation at a known key is reported at that key and its line; encoding damage at its line', async () => {
    for (const [index, item] of corpus.entries()) {
      if (item.key === undefined && item.lineOnly === undefined) continue
      const { error } = await load(item, index)
      const described = error.problems.map((p: Problem) => `${p.line}:${p.key ?? '-'} ${p.message.slice(0, 100)}`).join('\n')
      if (item.key !== undefined) {
        expect(error.problems.some((p) => p.key === item.key && p.line === item.line), `${item.label}\n${described}`).to.equal(true)
      } else {
        expect(error.problems.some((p) => p.line === item.lineOnly), `${item.label}\n${described}`).to.equal(true)
      }
    }
  })
})

describe('dsh-loader: the UTF-8 check of deployment files (soak)', () => {
  it('finds the first invalid byte exactly where a strict decoder fails, and nothing in valid text', () => {
    const strict = new TextDecoder('utf-8', { fatal: true })
    fc.assert(fc.property(fc.uint8Array({ maxLength: 24 }), fc.string({ unit: 'binary', maxLength: 8 }), (noise, valid) => {
      const bytes = Buffer.concat([Buffer.from(valid, 'utf8'), noise])
      const found = firstInvalidUtf8(bytes)
      let decodes = true
      try {
        strict.decode(bytes)
      } catch {
        decodes = false
      }
      expect(found === -1, `bytes ${bytes.toString('hex')}`).to.equal(decodes)
      if (found >= 0) {
        expect(() => strict.decode(bytes.subarray(0, found))).to.not.throw()
        expect(() => strict.decode(bytes.subarray(0, found + 4))).to.throw()
      }
    }), { numRuns: SOAK ? 200_000 : 5_000 })
  })
})
