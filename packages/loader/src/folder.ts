/**
 * A row whose `name` is a folder (`./plugins/house-rules`): the plugin is the file its `package.json`
 * names, as for a package: `exports` (resolved by the package's own name, so conditions apply as they do
 * to package rows; failing that, the file it names for `.`, so an `import`-only entry works), else
 * `main`; without either, an index file. What is missing is said in words.
 * @module
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describeError, folderBadEntry, folderNoEntry, unresolvable } from './errors.js'
import { displayPath } from './source.js'

/** The file a folder row resolves to, or the message saying what is missing. */
export type FolderResolution = { ok: true; path: string } | ({ ok: false } & ReturnType<typeof folderNoEntry | typeof folderBadEntry | typeof unresolvable>)

/** The index files tried in a folder whose `package.json` names no entry (or that has none). */
export const INDEX_FILES = ['index.js', 'index.mjs', 'index.cjs', 'index.ts'] as const

interface Manifest {
  name?: unknown
  main?: unknown
  exports?: unknown
}

/** Resolves the folder `folder`, written as `name` in the row. */
export function resolveFolder(name: string, folder: string): FolderResolution {
  const manifestFile = join(folder, 'package.json')
  if (!existsSync(manifestFile)) return indexFile(folder) ?? { ok: false, ...folderNoEntry(name, displayPath(folder), undefined, INDEX_FILES) }
  let manifest: Manifest
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest
  } catch (error) {
    return { ok: false, ...unresolvable(name, `${displayPath(manifestFile)} is not valid JSON: ${describeError(error)}`) }
  }
  const shown = displayPath(manifestFile)
  if (manifest.exports !== undefined) {
    // A package resolving its own name honours its `exports` and the active conditions, as a package row does.
    if (typeof manifest.name === 'string' && manifest.name) {
      try {
        return { ok: true, path: createRequire(manifestFile).resolve(manifest.name) }
      } catch (error) {
        if (!['MODULE_NOT_FOUND', 'ERR_PACKAGE_PATH_NOT_EXPORTED'].includes(String((error as { code?: unknown }).code))) return { ok: false, ...unresolvable(name, describeError(error)) }
      }
    }
    // No name, or an `exports` offering only `import`: the file `exports` names for `.`.
    const target = exportsTarget(manifest.exports)
    if (target !== undefined && isFile(join(folder, target))) return { ok: true, path: join(folder, target) }
    return { ok: false, ...folderBadEntry(name, shown, 'exports', target ?? JSON.stringify(manifest.exports)) }
  }
  if (manifest.main !== undefined) {
    try {
      return { ok: true, path: createRequire(manifestFile).resolve(folder) }
    } catch {
      return { ok: false, ...folderBadEntry(name, shown, 'main', String(manifest.main)) }
    }
  }
  return indexFile(folder) ?? { ok: false, ...folderNoEntry(name, displayPath(folder), shown, INDEX_FILES) }
}

/** The first index file of the folder, if any. */
function indexFile(folder: string): { ok: true; path: string } | undefined {
  const found = INDEX_FILES.map((file) => join(folder, file)).find(isFile)
  return found ? { ok: true, path: found } : undefined
}

/** The file an `exports` field names for `.`: a string, or the first of `import`, `default`, `node`, `require`. */
function exportsTarget(exports: unknown): string | undefined {
  let entry = exports
  if (entry && typeof entry === 'object' && '.' in entry) entry = (entry as Record<string, unknown>)['.']
  for (let depth = 0; depth < 4 && entry && typeof entry === 'object'; depth++) {
    const conditions = entry as Record<string, unknown>
    entry = conditions.import ?? conditions.default ?? conditions.node ?? conditions.require
  }
  return typeof entry === 'string' ? entry : undefined
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}
