/**
 * `.ts` plugin files under plain Node.js, which cannot run TypeScript by itself (Node 20 has no type
 * stripping). When such an import fails, the loader registers tsx's ESM loader for the process, as
 * `node --import tsx/esm` would, and imports the file again. tsx is looked for from the deployment file's
 * folder, then from the loader package. Registration is process-wide and happens at most once: tsx's
 * scoped `tsImport()` would give the plugin its own copies of every module it imports (a second
 * `dsh-system-prompt`), so the plugin and the app would not share classes or state.
 * @module
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { codeOf, describeError } from './errors.js'
import { displayPath } from './source.js'

/** What looking for tsx gave: where it was registered from, or the folders tried and why it failed. */
export type TsxRegistration = { ok: true; from: string } | { ok: false; tried: string[]; reason?: string }

let registered: TsxRegistration | undefined

/** True for a path Node.js needs a TypeScript loader for (`.ts`, `.mts`, `.cts`). */
export function isTypeScriptPath(path: string): boolean {
  return /\.[cm]?ts$/.test(path)
}

/** True for Node's refusal of a file extension it has no loader for (`.ts` without tsx). */
export function isUnknownExtension(error: unknown): boolean {
  return codeOf(error) === 'ERR_UNKNOWN_FILE_EXTENSION'
}

/**
 * Registers tsx's ESM loader for the process, from the first of `anchors` (a file to resolve from, and
 * the folder messages show for it) that tsx resolves from. A success is kept: later calls return it without registering again. A failure is not, so a
 * later deployment next to a tsx install can still succeed.
 */
export async function registerTsx(anchors: ReadonlyArray<readonly [file: string, shown: string]>): Promise<TsxRegistration> {
  if (registered) return registered
  const tried: string[] = []
  for (const [anchor, shown] of anchors) {
    let manifestFile: string
    try {
      manifestFile = createRequire(anchor).resolve('tsx/package.json')
    } catch {
      tried.push(displayPath(shown))
      continue
    }
    const folder = dirname(manifestFile)
    try {
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { version?: string; exports?: Record<string, unknown> }
      const entry = (manifest.exports?.['./esm/api'] as { import?: string | { default?: string } } | undefined)?.import
      const file = typeof entry === 'string' ? entry : entry?.default
      if (typeof file !== 'string') return { ok: false, tried, reason: `tsx ${manifest.version ?? ''} at ${displayPath(folder)} has no ESM API (tsx 4 has tsx/esm/api)` }
      const api = await import(pathToFileURL(join(folder, file)).href) as { register(): unknown }
      api.register()
      return (registered = { ok: true, from: folder })
    } catch (error) {
      return { ok: false, tried, reason: `tsx at ${displayPath(folder)} could not be registered: ${describeError(error)}` }
    }
  }
  return { ok: false, tried }
}
