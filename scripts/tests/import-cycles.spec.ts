/**
 * No package's sources import each other in a circle (issue 19): each file's relative imports are read
 * with the TypeScript parser (`scripts/import-graph.ts`), and a cycle fails the test naming its files.
 * A cycle of value imports is refused outright. A cycle held together only by `import type` is erased
 * at compile time and changes no module's evaluation order; the few that exist are listed below, so a
 * new one fails too.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { cycles, importEdges } from '../import-graph.js'

const REPO = fileURLToPath(new URL('../../', import.meta.url))

/** Every workspace package's `src`, as `packages/<name>/src`. */
function packageSources(): string[] {
  const out: string[] = []
  for (const root of ['packages', 'plugins']) {
    for (const name of readdirSync(join(REPO, root))) if (existsSync(join(REPO, root, name, 'src'))) out.push(`${root}/${name}/src`)
  }
  return out
}

/** Cycles made of type-only imports, known when this test was written (each one is two files that name each other's types). */
const KNOWN_TYPE_CYCLES: Readonly<Record<string, readonly string[]>> = {
  // A view holds its compiled caches, whose tool cache is checked against the view: types that name each other.
  'packages/system-prompt/src': ['compiled-view.ts → tool-check.ts → registry.ts → compiled-view.ts'],
  // The Anthropic body types and the breakpoint planner that marks them.
  'packages/wire/src': ['anthropic.ts → breakpoints.ts → anthropic.ts'],
}

describe('the import graph of every package', () => {
  it('finds a cycle and names its files (a planted three-file cycle, and a type-only one)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-cycles-'))
    try {
      mkdirSync(join(dir, 'formats'))
      writeFileSync(join(dir, 'session.ts'), "import { chat } from './formats/chat.js'\nexport const session = () => chat\n")
      writeFileSync(join(dir, 'formats/chat.ts'), "import { registry } from '../registry.js'\nexport const chat = registry\n")
      writeFileSync(join(dir, 'registry.ts'), "import { session } from './session.js'\nexport const registry = session\n")
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js'\nexport interface A { b?: B }\n")
      writeFileSync(join(dir, 'b.ts'), "export type { A } from './a.js'\nexport interface B { n: number }\n")
      const edges = importEdges(dir)
      expect(cycles(edges.filter((edge) => !edge.typeOnly)).map((cycle) => cycle.join(' → '))).to.deep.equal(['formats/chat.ts → registry.ts → session.ts → formats/chat.ts'])
      expect(cycles(edges).map((cycle) => cycle.join(' → '))).to.deep.equal(['a.ts → b.ts → a.ts', 'formats/chat.ts → registry.ts → session.ts → formats/chat.ts'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  for (const src of packageSources()) {
    it(`${src}: no cycle of value imports, and no type-only cycle beyond the known ones`, () => {
      const edges = importEdges(join(REPO, src))
      expect(edges.length, 'the package has relative imports to check').to.be.above(0)
      const named = (found: string[][]) => found.map((cycle) => cycle.join(' → '))
      expect(named(cycles(edges.filter((edge) => !edge.typeOnly))), `${src}: value-import cycles`).to.deep.equal([])
      expect(named(cycles(edges)), `${src}: type-only cycles`).to.deep.equal(KNOWN_TYPE_CYCLES[src] ?? [])
    })
  }
})
