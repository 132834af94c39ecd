/**
 * The import graph of each workspace package's sources, and its cycles. A relative `import` or
 * `export ... from` inside `src/` is an edge; `typeOnly` edges (`import type`, `export type`, or a
 * specifier list of types alone) are erased by the compiler. Read with the TypeScript parser, so
 * comments, strings and dynamic imports never count as edges.
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

/** One edge: `from` imports `to` (paths relative to the package's `src`). */
export interface ImportEdge { from: string; to: string; typeOnly: boolean }

function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sources(path))
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

/** The edges between the files of `src`. */
export function importEdges(src: string): ImportEdge[] {
  const edges: ImportEdge[] = []
  for (const file of sources(src)) {
    const parsed = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false)
    for (const statement of parsed.statements) {
      let specifier: ts.Expression | undefined
      let typeOnly = false
      if (ts.isImportDeclaration(statement)) {
        specifier = statement.moduleSpecifier
        const clause = statement.importClause
        typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((element) => element.isTypeOnly)))
      } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
        specifier = statement.moduleSpecifier
        typeOnly = statement.isTypeOnly || (!!statement.exportClause && ts.isNamedExports(statement.exportClause) &&
          statement.exportClause.elements.length > 0 && statement.exportClause.elements.every((element) => element.isTypeOnly))
      }
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue
      const target = resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts'))
      if (!existsSync(target)) continue
      edges.push({ from: relative(src, file), to: relative(src, target), typeOnly })
    }
  }
  return edges
}

/** A cycle `[a, b, …, a]` written from its smallest file, so it reads the same whichever file the walk met first. */
function rotated(cycle: string[]): string[] {
  const ring = cycle.slice(0, -1)
  const first = ring.indexOf([...ring].sort()[0])
  const turned = [...ring.slice(first), ...ring.slice(0, first)]
  return [...turned, turned[0]]
}

/** Every cycle of `edges` as a list of files (the smallest first, and repeated at the end), one per strongly connected group. */
export function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const edge of edges) next.set(edge.from, [...next.get(edge.from) ?? [], edge.to])
  const found: string[][] = []
  const done = new Set<string>()
  for (const start of [...next.keys()].sort()) {
    if (done.has(start)) continue
    // A depth-first walk that reports the first back edge it meets, then marks the walked files done.
    const path: string[] = []
    const onPath = new Set<string>()
    const walk = (file: string): string[] | undefined => {
      if (onPath.has(file)) return [...path.slice(path.indexOf(file)), file]
      if (done.has(file)) return undefined
      path.push(file)
      onPath.add(file)
      for (const to of next.get(file) ?? []) {
        const cycle = walk(to)
        if (cycle) return cycle
      }
      path.pop()
      onPath.delete(file)
      done.add(file)
      return undefined
    }
    const cycle = walk(start)
    if (cycle) {
      found.push(rotated(cycle))
      for (const file of cycle) done.add(file)
    }
  }
  return found
}
