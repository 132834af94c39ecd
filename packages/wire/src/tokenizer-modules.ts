/**
 * Loads tokenizer packages synchronously, on the first count that needs them (R-CACHE-10): a harness that
 * never reads a token count never pays for a tokenizer's tables (`gpt-tokenizer`'s o200k: about half a
 * second and 55 MB). The module is resolved as `import()` would resolve it (the package's `import`
 * condition) and loaded with `require()`, which Node 20.19 and later run on an ES module: the same
 * module instance an `import()` of the package gets, without waiting for a promise. `loadedTokenizers()`
 * says which have been loaded (for tests and `bench/`).
 * @module
 */
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const loaded = new Set<string>()

const require = createRequire(import.meta.url)

/** Loads the package module `specifier` synchronously, as the tokenizer `name`. */
export function loadModule<T>(name: string, specifier: string): T {
  const module = require(fileURLToPath(import.meta.resolve(specifier))) as T
  loaded.add(name)
  return module
}

/** Whether the package module `specifier` is installed, without loading it. */
export function resolves(specifier: string): boolean {
  try {
    import.meta.resolve(specifier)
    return true
  } catch {
    return false
  }
}

/** The tokenizers this process has loaded so far, in the order they were loaded. */
export function loadedTokenizers(): string[] {
  return [...loaded]
}
