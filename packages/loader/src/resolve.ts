import { statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Plugin } from 'cordis'
import { unknownFile, unknownPackage, unresolvable, type LoaderMessage } from './errors.js'
import { resolveFolder } from './folder.js'
import { displayPath } from './source.js'
import { isTypeScriptPath, isUnknownExtension, registerTsx } from './typescript.js'

/** The file a row's `name` resolves to, or the message (with its code) saying why it does not. */
export type Resolution = { ok: true; path: string } | ({ ok: false } & LoaderMessage)

/** This module's file: package names not found next to the deployment are resolved from here. */
const LOADER_FILE = fileURLToPath(import.meta.url)
/** The loader package's folder (the parent of `src/` or `lib/`), as shown in messages. */
const LOADER_ROOT = fileURLToPath(new URL('..', import.meta.url))

/** True when `name` is a path (`./x.js`, `../y.ts`, `/abs/z.js`) rather than a package name. */
export function isPathName(name: string): boolean {
  return name === '.' || name === '..' || name.startsWith('./') || name.startsWith('../') || isAbsolute(name)
}

/**
 * Resolves a row's `name` to a file. A path is taken relative to the deployment file; a folder resolves
 * through its `package.json` (`exports`, `main`) or an index file. A package name
 * is resolved first from the deployment file's folder, then from the loader package, with
 * `createRequire(...).resolve` (which honours `exports` and the active `--conditions`, so runs with
 * `--conditions=source` get workspace packages' TypeScript sources).
 */
export function resolvePluginModule(name: string, deploymentFile: string): Resolution {
  if (isPathName(name)) {
    const target = resolve(dirname(deploymentFile), name)
    let stat: ReturnType<typeof statSync>
    try {
      stat = statSync(target, { throwIfNoEntry: false })
    } catch (error) {
      // A path the system refuses to look at (ENAMETOOLONG, ENOTDIR, EACCES, ...) names no plugin either.
      return { ok: false, ...unresolvable(name, (error as { code?: string }).code ?? messageOf(error)) }
    }
    if (stat?.isFile()) return { ok: true, path: target }
    if (stat?.isDirectory()) return resolveFolder(name, target)
    return { ok: false, ...unknownFile(name, displayPath(target)) }
  }
  const tried: string[] = []
  for (const [anchor, folder] of [[deploymentFile, dirname(deploymentFile)], [LOADER_FILE, LOADER_ROOT]] as const) {
    try {
      return { ok: true, path: createRequire(anchor).resolve(name) }
    } catch (error) {
      if (!isNotFound(error, name)) return { ok: false, ...unresolvable(name, messageOf(error)) }
      tried.push(displayPath(folder))
    }
  }
  return { ok: false, ...unknownPackage(name, tried) }
}

/** What importing a plugin module gave; `typeScript` says why a `.ts` file could not be loaded. */
export type Imported =
  | { ok: true; module: Record<string, unknown> }
  | { ok: false; error: unknown; typeScript?: { tried: string[]; reason?: string } }

/**
 * Imports a resolved plugin module; a module that throws while loading is a failure, not a crash. A
 * `.ts` file that Node.js cannot load by itself is loaded through tsx (registered for the process, see
 * `typescript.ts`) unless `options.tsx` is `false`.
 */
export async function importModule(path: string, options: { deploymentFile: string; tsx?: boolean }): Promise<Imported> {
  const url = pathToFileURL(path).href
  const first = await tryImport(url)
  if (first.ok || !isTypeScriptPath(path) || !isUnknownExtension(first.error)) return first
  if (options.tsx === false) return { ok: false, error: first.error, typeScript: { tried: [] } }
  const tsx = await registerTsx([[options.deploymentFile, dirname(options.deploymentFile)], [LOADER_FILE, LOADER_ROOT]])
  if (!tsx.ok) return { ok: false, error: first.error, typeScript: { tried: tsx.tried, reason: tsx.reason } }
  // Node keeps the failed import of this URL, so the retry asks for the same file under another one.
  return tryImport(`${url}?tsx`)
}

async function tryImport(url: string): Promise<Imported> {
  try {
    return { ok: true, module: await import(url) }
  } catch (error) {
    return { ok: false, error }
  }
}

/**
 * The plugin a module provides: its default export when that is a function, a class or an object
 * with `apply()`; else the module itself when it exports `apply()`. `undefined` when it has neither.
 */
export function pluginOf(module: Record<string, unknown>): Plugin | undefined {
  const candidate = module.default
  if (typeof candidate === 'function') return candidate as Plugin
  if (candidate && typeof candidate === 'object' && typeof (candidate as { apply?: unknown }).apply === 'function') {
    return candidate as Plugin
  }
  if (typeof module.apply === 'function') return module as unknown as Plugin
  return undefined
}

/** The names a module exports, for "exports no plugin" messages. */
export function exportNames(module: Record<string, unknown>): string[] {
  return Object.keys(module).sort()
}

function isNotFound(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown })?.code
  return code === 'MODULE_NOT_FOUND' && messageOf(error).startsWith(`Cannot find module '${name}'`)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
