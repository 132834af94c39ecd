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
