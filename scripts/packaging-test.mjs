// The packaging test (issue 10): what a harness author gets from the published packages, checked on
// this machine. It builds, packs every non-private workspace with `yarn pack` (which rewrites the
// `workspace:` ranges), installs the tarballs with npm into a fresh project outside the workspace (their
// third-party dependencies from the registry npm is configured with), and there:
//   1. imports every package from its built code (plain node, no `source` condition),
//   2. runs the installed `dsh-prompt` bin (`check` and `render`) on a copy of examples/coding-agent,
//   3. compiles the embedding example (examples/harness) and a consumer file with tsc against the
//      installed declarations (--module nodenext --strict --skipLibCheck; a second file that imports
//      cordis itself with --moduleResolution bundler), then runs the example.
// Run: `yarn test:pack`; `yarn test` runs it last (scripts/tests/adoption.spec.ts). DSH_PACK_KEEP=1 keeps
// the temporary folder.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, posix, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = fileURLToPath(new URL('..', import.meta.url))
/** Yarn as this run was started with (`yarn test:pack` sets npm_execpath), else the `yarn` on PATH. */
const YARN = process.env.npm_execpath && basename(process.env.npm_execpath) === 'yarn' ? process.env.npm_execpath : 'yarn'
const root = readJson(join(REPO, 'package.json'))
const started = Date.now()

/** The workspaces `yarn pack --no-private` packs: every package whose manifest is not private. */
const workspaces = ['packages', 'plugins'].flatMap((group) => readdirSync(join(REPO, group))
  .map((name) => join(REPO, group, name))
  .filter((dir) => existsSync(join(dir, 'package.json'))))
  .map((dir) => ({ dir, manifest: readJson(join(dir, 'package.json')) }))
const published = workspaces.filter((w) => !w.manifest.private)

/** The versions installed next to the tarballs come from the workspace's own manifests, never from here. */
const cordis = workspaces.find((w) => w.manifest.peerDependencies?.cordis)?.manifest.peerDependencies.cordis
const extras = [`cordis@${cordis}`, `openai@${root.devDependencies.openai}`, `@anthropic-ai/sdk@${root.devDependencies['@anthropic-ai/sdk']}`, `@google/genai@${root.devDependencies['@google/genai']}`, `typescript@${root.devDependencies.typescript}`, `@types/node@${root.devDependencies['@types/node']}`]

const work = mkdtempSync(join(tmpdir(), 'dsh-packaging-'))
const packs = join(work, 'packs')
const project = join(work, 'harness-project')
if (!relative(REPO, project).startsWith('..')) fail('setup', `the fresh project ${project} is inside the workspace`)

let stepNumber = 0
const STEPS = 7

/** Runs one named step; any error fails the whole test loudly with the step's name. */
function step(name, fn) {
  const at = Date.now()
  stepNumber++
  console.log(`[packaging ${stepNumber}/${STEPS}] ${name}`)
  try {
    const detail = fn()
    console.log(`  ok (${((Date.now() - at) / 1000).toFixed(1)} s)${detail ? `: ${detail}` : ''}`)
  } catch (error) {
    fail(name, error instanceof Error ? error.message : String(error))
  }
}

function fail(name, message) {
  console.error(`\npackaging test FAILED at step "${name}":\n${message}`)
  console.error(`(the temporary folder ${work} is kept for inspection)`)
  process.exit(1)
}

/** The environment for npm and node in the fresh project: Yarn's run-time variables removed. */
function cleanEnv() {
  const env = { ...process.env }
  for (const key of Object.keys(env)) {
    if (/^npm_(package_|execpath|node_execpath|lifecycle_|config_user_agent)/.test(key) || ['BERRY_BIN_FOLDER', 'PROJECT_CWD', 'INIT_CWD'].includes(key)) delete env[key]
  }
  return env
}

/** Runs a command; resolves to its stdout, or throws with the command, its exit status and its output. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options })
  if (result.error) throw new Error(`${command} ${args.join(' ')}: ${result.error.message}`)
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n')
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}\n${output}`)
  }
  return result.stdout
}

const inProject = (command, args) => run(command, args, { cwd: project, env: cleanEnv() })

step('build the workspace (tsc -b, esbuild)', () => {
  run(YARN, ['build'], { cwd: REPO })
})

step(`pack the ${published.length} non-private workspaces with yarn pack`, () => {
  const unpublished = workspaces.filter((w) => w.manifest.private).map((w) => w.manifest.name)
  if (JSON.stringify(unpublished) !== JSON.stringify(['dsh-testing'])) throw new Error(`private workspaces: ${unpublished.join(', ')}; only dsh-testing should be`)
  run(YARN, ['workspaces', 'foreach', '-A', '--no-private', 'pack', '--out', join(packs, '%s.tgz')], { cwd: REPO })
  const made = readdirSync(packs).sort()
  const expected = published.map((w) => `${w.manifest.name}.tgz`).sort()
  if (JSON.stringify(made) !== JSON.stringify(expected)) throw new Error(`tarballs ${made.join(', ')}; expected ${expected.join(', ')}`)
  for (const tarball of made) {
    const entries = run('tar', ['tzf', join(packs, tarball)]).split('\n').filter(Boolean)
    const manifest = run('tar', ['xzf', join(packs, tarball), '-O', 'package/package.json'])
    if (manifest.includes('workspace:')) throw new Error(`${tarball}: package.json still has a workspace: range`)
    if (JSON.parse(manifest).private) throw new Error(`${tarball}: package.json is private`)
    const stray = entries.filter((entry) => /^package\/(src|tests?)\//.test(entry))
    if (stray.length) throw new Error(`${tarball} ships ${stray.slice(0, 3).join(', ')}: files should be lib and README only`)
    // A shipped source map must point only at shipped files (a stack trace must not name a missing src/ file).
    for (const map of entries.filter((entry) => entry.endsWith('.map'))) {
      const { sources = [] } = JSON.parse(run('tar', ['xzf', join(packs, tarball), '-O', map]))
      const missing = sources.map((source) => posix.join(posix.dirname(map), source)).filter((source) => !entries.includes(source))
      if (missing.length) throw new Error(`${tarball}: ${map} points at ${missing.slice(0, 3).join(', ')}, which the package does not ship`)
    }
    for (const needed of ['package/README.md', 'package/lib/index.js', 'package/lib/index.d.ts']) {
      if (!entries.includes(needed)) throw new Error(`${tarball} lacks ${needed}`)
    }
  }
  return made.join(', ')
})

step(`npm install the tarballs and ${extras.join(', ')} into a fresh project (${project})`, () => {
  mkdirSync(project, { recursive: true })
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'dsh-harness-project', private: true, type: 'module' }, null, 2))
  const tarballs = readdirSync(packs).map((name) => join(packs, name))
  // As the README says: --save-exact, so the project records Cordis's prerelease exactly.
  inProject('npm', ['install', '--save-exact', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', '--no-update-notifier', ...tarballs, ...extras])
  const recorded = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies?.cordis
  if (recorded !== cordis) throw new Error(`the project's package.json records cordis ${JSON.stringify(recorded)}, not exactly ${cordis}`)
  const missing = published.filter((w) => !existsSync(join(project, 'node_modules', w.manifest.name, 'lib/index.js')))
  if (missing.length) throw new Error(`not installed: ${missing.map((w) => w.manifest.name).join(', ')}`)
  return `${published.length} packages, their dependencies from the registry npm is configured with`
})

step('import every package from its built code (node ESM)', () => {
  const names = published.map((w) => w.manifest.name)
  const probe = `
    const out = []
    for (const name of ${JSON.stringify(names)}) {
      const url = import.meta.resolve(name)
      if (!url.includes('/node_modules/' + name + '/lib/')) throw new Error(name + ' resolves to ' + url)
      const module = await import(name)
      const keys = Object.keys(module)
      if (!keys.length) throw new Error(name + ' exports nothing')
      out.push(name + ' (' + keys.length + ')')
    }
    console.log(out.join(', '))`
  return inProject('node', ['--input-type=module', '-e', probe]).trim()
})

step('run the installed dsh-prompt bin on a copy of examples/coding-agent', () => {
  mkdirSync(join(project, 'coding-agent'))
  copyFileSync(join(REPO, 'examples/coding-agent/deployment.yml'), join(project, 'coding-agent/deployment.yml'))
  const check = inProject('npx', ['--no-install', 'dsh-prompt', 'check', 'coding-agent/deployment.yml']).trim()
  if (!check.startsWith('ok: ')) throw new Error(`check printed: ${check}`)
  const render = inProject('npx', ['--no-install', 'dsh-prompt', 'render', 'coding-agent/deployment.yml', '--agent', 'reviewer'])
  if (!render.includes('== system prompt: ')) throw new Error(`render printed no system prompt:\n${render.slice(0, 400)}`)
  return check
})

step('tsc: the embedding example and the consumer files against the installed declarations', () => {
  mkdirSync(join(project, 'harness'))
  for (const name of ['run.ts', 'compaction.ts', 'mock-server.ts', 'format-mock.ts', 'formats.ts', 'deployment.yml', 'notes.md']) copyFileSync(join(REPO, 'examples/harness', name), join(project, 'harness', name))
  for (const name of ['consumer.ts', 'consumer-cordis.ts']) copyFileSync(join(REPO, 'scripts/packaging', name), join(project, name))
  const common = ['--target', 'es2022', '--strict', '--skipLibCheck', '--types', 'node']
  // nodenext emits harness/run.js, which the next step runs.
  inProject('npx', ['--no-install', 'tsc', '--module', 'nodenext', '--moduleResolution', 'nodenext', ...common, 'harness/run.ts', 'harness/mock-server.ts', 'consumer.ts'])
  // cordis' own declarations resolve only without nodenext (consumer.ts says why): the context-owner path.
  inProject('npx', ['--no-install', 'tsc', '--noEmit', '--module', 'preserve', '--moduleResolution', 'bundler', ...common, 'consumer-cordis.ts', 'consumer.ts', 'harness/run.ts'])
  return `tsc ${inProject('npx', ['--no-install', 'tsc', '--version']).trim().replace(/^Version /, '')}: --module nodenext (harness/run.ts, harness/mock-server.ts, consumer.ts), --moduleResolution bundler (and consumer-cordis.ts)`
})

step('run the embedding example (examples/harness) on the installed packages', () => {
  const output = inProject('node', ['harness/run.js']).trim().split('\n')
  if (!output.at(-1)?.startsWith('ok: ')) throw new Error(output.join('\n'))
  return output.at(-1)
})

if (process.env.DSH_PACK_KEEP) console.log(`kept ${work}`)
else rmSync(work, { recursive: true, force: true })
console.log(`packaging test passed in ${((Date.now() - started) / 1000).toFixed(1)} s`)

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'))
}

