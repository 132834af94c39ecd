import { expect } from 'chai'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO } from './helpers.js'

/** A stable code as catalogues write it: a quoted upper-snake literal with a package prefix. */
const CODE = /'([A-Z][A-Z0-9]*_[A-Z0-9_]+)'/g

/** Every `errors.ts` under `packages/<p>/src` and `plugins/<p>/src`, relative to the repository root. */
function catalogues(): string[] {
  const found: string[] = []
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name === 'errors.ts') found.push(relative(REPO, path))
    }
  }
  for (const group of ['packages', 'plugins']) {
    for (const pkg of readdirSync(join(REPO, group))) {
      const src = join(REPO, group, pkg, 'src')
      if (statSync(join(REPO, group, pkg)).isDirectory() && readdirSync(join(REPO, group, pkg)).includes('src')) walk(src)
    }
  }
  return found.sort()
}

/** Each code of a catalogue with the exported entries (`export const x`, `export class Y`) it appears in. */
function codesOf(file: string): Map<string, Set<string>> {
  const codes = new Map<string, Set<string>>()
  for (const block of readFileSync(join(REPO, file), 'utf8').split(/\n(?=export )/)) {
    const entry = /^export (?:const|function|class|interface|type) (\w+)/.exec(block)?.[1] ?? '(module)'
    for (const [, code] of block.matchAll(CODE)) codes.set(code, (codes.get(code) ?? new Set()).add(entry))
  }
  return codes
}

/** Building an error: `new Error(…)`, `new TypeError(…)`, `new RangeError(…)`, `new z.ValidationError(…)`, `new SomethingError(…)`. */
const BUILDS_ERROR = /new (?:z\.)?(?:[A-Z]\w*)?Error\((?!\))/

/**
 * Source files allowed to build an error outside their catalogue, each with the reason. Classes the
 * catalogue defines are built with `new` only in it; a `new Error()` without a message (a stack capture)
 * is no error and is not matched.
 */
const BUILDS_OUTSIDE: Record<string, string> = {
  // DeploymentError is the loader's aggregate of problems: the loader's load and reconfigure steps collect
  // the catalogue's problems and throw them together; its class lives beside Problem, in problems.ts.
  'packages/loader/src/load.ts': 'new DeploymentError(problems): the aggregate of catalogue problems',
  'packages/loader/src/reconfigure.ts': 'new DeploymentError(problems): the aggregate of catalogue problems',
  'packages/loader/src/problems.ts': 'new DeploymentError(problems): the aggregate of catalogue problems',
  // An internal signal, never a user's error: record() and readLedger() catch it and throw their coded
  // AGENT_INVALID_RECORD / AGENT_LEDGER_INVALID_ENTRY naming the agent or line.
  'packages/agent/src/entry-shape.ts': 'new EntryShapeError(problem): caught and rethrown as a coded error',
}

/** Every `.ts` file under `packages/<p>/src` and `plugins/<p>/src`, relative to the repository root. */
function sources(): string[] {
  const found: string[] = []
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith('.ts')) found.push(relative(REPO, path))
    }
  }
  for (const group of ['packages', 'plugins']) {
    for (const pkg of readdirSync(join(REPO, group))) {
      if (statSync(join(REPO, group, pkg)).isDirectory() && readdirSync(join(REPO, group, pkg)).includes('src')) walk(join(REPO, group, pkg, 'src'))
    }
  }
  return found.sort()
}

describe('the error catalogues: one place per package builds its errors', () => {
  it('no source file builds an error outside its package\'s errors.ts (but the listed ones, each with its reason)', () => {
    const outside = sources().filter((file) => !file.endsWith('/errors.ts'))
      .flatMap((file) => readFileSync(join(REPO, file), 'utf8').split('\n').flatMap((line, index) =>
        BUILDS_ERROR.test(line) && !(file in BUILDS_OUTSIDE) ? [`${file}:${index + 1}: ${line.trim()}`] : []))
    expect(outside).to.deep.equal([])
  })

  it('every file listed as an exception still builds an error (a fixed one leaves the list)', () => {
    const stale = Object.keys(BUILDS_OUTSIDE).filter((file) => !BUILDS_ERROR.test(readFileSync(join(REPO, file), 'utf8')))
    expect(stale).to.deep.equal([])
  })
})

describe('the error catalogues: every code is unique and documented', () => {
  const files = catalogues()
  const byFile = new Map(files.map((file) => [file, codesOf(file)]))

  it('finds a catalogue with codes in every package', () => {
    expect(files.length).to.be.at.least(12)
    for (const [file, codes] of byFile) if (!file.includes('/scope/')) expect(codes.size, file).to.be.above(0)
  })

  it('a code belongs to one catalogue, one entry in it, and carries its package\'s prefix', () => {
    const owner = new Map<string, string>()
    for (const [file, codes] of byFile) {
      const prefixes = new Set([...codes.keys()].map((code) => code.split('_')[0]))
      expect(prefixes.size, `${file} mixes prefixes ${[...prefixes].join(', ')}`).to.be.at.most(1)
      for (const [code, entries] of codes) {
        expect(owner.get(code), `${code} in ${file} and ${owner.get(code)}`).to.equal(undefined)
        expect([...entries], `${code} made by several entries of ${file}`).to.have.length(1)
        owner.set(code, file)
      }
    }
    expect(owner.size).to.be.above(100)
  })

  it('docs/troubleshooting.md lists every code', () => {
    const doc = readFileSync(join(REPO, 'docs/troubleshooting.md'), 'utf8')
    const listed = new Set([...doc.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g)].map((m) => m[1]))
    const missing = [...byFile.values()].flatMap((codes) => [...codes.keys()]).filter((code) => !listed.has(code))
    expect(missing).to.deep.equal([])
  })
})
