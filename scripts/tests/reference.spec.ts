/**
 * The contract lives in the repository (issue 19): code, tests, docs and Agent Notes cite the reference
 * (`docs/reference/`) by rule id, never the specification the project started from; every id cited
 * exists; `.agents/notes/README.md` indexes every note; and no Markdown page (notes, the reference, docs,
 * READMEs) points at a repository file that does not exist.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const REFERENCE = 'docs/reference'
const NOTES = '.agents/notes'

/** The files git knows (tracked, or new and not ignored), so build output and node_modules stay out. */
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
  .split('\n').filter((file) => /\.(?:ts|mts|cts|js|mjs|cjs|md|ya?ml|json|sh)$/.test(file) && existsSync(join(REPO, file)))
const read = (file: string) => readFileSync(join(REPO, file), 'utf8')

/** The old specification by its name, as a word (its section citations, its file name, "the … defaults"); spelled so this file does not match itself. */
const OLD_CITATION = new RegExp(`\\b${'SP'}EC\\b`)
/** The script that rewrites such citations holds them in its table, as it must. */
const REWRITER = 'scripts/cite-reference.mjs'

/** The rule ids the reference defines (`**R-ORDER-1**`), and the page prefixes of its index. */
function definedIds(): { ids: Map<string, string>; prefixes: Set<string> } {
  const ids = new Map<string, string>()
  for (const page of readdirSync(join(REPO, REFERENCE)).filter((name) => name.endsWith('.md') && name !== 'README.md')) {
    for (const [, id] of read(`${REFERENCE}/${page}`).matchAll(/\*\*(R-[A-Z]+-\d+)\*\*/g)) {
      if (ids.has(id)) throw new Error(`${id} is defined twice: ${ids.get(id)} and ${page}`)
      ids.set(id, page)
    }
  }
  const prefixes = new Set([...read(`${REFERENCE}/README.md`).matchAll(/\| `(R-[A-Z]+)` \|/g)].map(([, prefix]) => prefix))
  return { ids, prefixes }
}

/** Each citation of a rule id in `text` that the reference does not define. */
function unknownCitations(text: string, ids: ReadonlyMap<string, string>, prefixes: ReadonlySet<string>): string[] {
  return [...text.matchAll(/(?<![\w-])(R-[A-Z]+)(-\d+)?(?![\w-])/g)]
    .filter(([whole, prefix, number]) => (number ? !ids.has(whole) : !prefixes.has(prefix)))
    .map(([whole]) => whole)
}

/** Repository paths a Markdown file points at: relative links, and backticked paths from the repository root. */
function pointedPaths(file: string): string[] {
  const text = read(file)
  const paths: string[] = []
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target) || target.startsWith('#') || !/(\.(md|ts|mjs|cjs|js|json|ya?ml|sh|png|svg|html)|\/)(#.*)?$/.test(target)) continue
    paths.push(normalize(join(dirname(file), target.replace(/#.*$/, ''))))
  }
  for (const [, path] of text.matchAll(/`((?:packages|plugins|docs|scripts|examples|bench|\.agents)\/[^`\s]+)`/g)) {
    if (/[*{}<>$]/.test(path)) continue
    paths.push(path.replace(/[:#].*$/, '').replace(/\/$/, ''))
  }
  return paths
}

/** Whether git ignores `path`: an output location (`bench/results`) that a page names before anything is written there. */
function ignored(path: string): boolean {
  // A folder that does not exist yet matches a folder pattern (`bench/results/`) only with its slash.
  return [path, `${path}/`].some((candidate) => {
    try {
      execFileSync('git', ['check-ignore', '-q', candidate], { cwd: REPO })
      return true
    } catch {
      return false
    }
  })
}

describe('the reference in the repository: citations, the notes index, and links that resolve', () => {
  const { ids, prefixes } = definedIds()

  it('the reference defines its rules, and its index names a prefix for every page', () => {
    expect(ids.size).to.be.greaterThan(100)
    const pagePrefixes = new Set([...ids.keys()].map((id) => id.replace(/-\d+$/, '')))
    expect([...pagePrefixes].filter((prefix) => !prefixes.has(prefix))).to.deep.equal([])
  })

  it('no source, test, doc or note cites the specification the project started from (it is not in the repository)', () => {
    const citing = files.filter((file) => file !== REWRITER && OLD_CITATION.test(read(file)))
    expect(citing).to.deep.equal([])
  })

  it('every rule id cited anywhere exists in the reference', () => {
    const unknown = files.flatMap((file) => unknownCitations(read(file), ids, prefixes).map((id) => `${file}: ${id}`))
    expect(unknown).to.deep.equal([])
  })

  it('.agents/notes/README.md indexes every note, and nothing that is not one', () => {
    const notes = readdirSync(join(REPO, NOTES)).filter((name) => name.endsWith('.md') && name !== 'README.md').sort()
    // One table row per note: `| <date> | [<topic>](<file>) | <decision> | <status> |`.
    const indexed = [...read(`${NOTES}/README.md`).matchAll(/^\| (\d{4}-\d{2}-\d{2}) \| \[[^\]]+\]\(([^)]+\.md)\)/gm)]
      .map(([, date, name]) => (name.startsWith(date) ? name : `${name} (dated ${date})`)).sort()
    expect(indexed).to.deep.equal(notes)
  })

  it('no Agent Note, reference page, doc or README points at a repository file that does not exist', () => {
    const pages = files.filter((file) => file.endsWith('.md'))
    const missing = pages.flatMap((file) => pointedPaths(file).filter((path) => !existsSync(join(REPO, path)) && !ignored(path)).map((path) => `${file}: ${path}`))
    expect(missing).to.deep.equal([])
  })
})
