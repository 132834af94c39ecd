// Bundles each workspace package's `src/index.ts` to `lib/index.js` (ESM) with esbuild.
// Dependencies stay external, so cordis and our own services exist once at run time.
// Declarations come from `tsc -b` (see tsconfig.json at the root).
import { build } from 'esbuild'
import { readdirSync, existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const roots = ['packages', 'plugins']
const entries = []
for (const root of roots) {
  if (!existsSync(root)) continue
  for (const name of readdirSync(root)) {
    const dir = join(root, name)
    if (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'src/index.ts'))) continue
    entries.push(dir)
  }
}

await Promise.all(entries.map(async (dir) => {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  // Yarn writes a bin named like its package as a plain string.
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {})
  // Chunks of an earlier build (their names are content hashes) would otherwise be packed with the new ones.
  const lib = join(dir, 'lib')
  for (const name of existsSync(lib) ? readdirSync(lib) : []) if (/\.js(\.map)?$/.test(name)) rmSync(join(lib, name))
  await build({
    // The root entry, an `internal` and a `conformance` entry where the package has one, and the bins.
    entryPoints: [join(dir, 'src/index.ts'), ...['internal', 'conformance'].map((name) => join(dir, `src/${name}.ts`)).filter((file) => existsSync(file)), ...bins.map((bin) => join(dir, String(bin).replace(/^\.\/lib\//, 'src/').replace(/\.js$/, '.ts')))],
    outdir: join(dir, 'lib'),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    // Entries of one package share their modules (one PromptError class, one freeze registry), not copies.
    splitting: true,
    target: 'node20',
    // No source maps: theirs would point into src/, which the packages do not ship (issue 24).
    sourcemap: false,
    logLevel: 'warning',
  })
}))
console.error(`built ${entries.length} packages`)
