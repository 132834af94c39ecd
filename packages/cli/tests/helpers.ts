import { spawn } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { main } from '../src/program.js'
import { CliError, scriptProblemLine, type ScriptProblem } from '../src/errors.js'
import { parseReplayScript } from '../src/replay-script.js'

/** The repository root: the CLI runs from here, so files show as `examples/...`. */
export const REPO = fileURLToPath(new URL('../../../', import.meta.url))

/** The built CLI (`yarn build` makes it; the tests run it as a user would). */
export const CLI = join(REPO, 'packages/cli/lib/cli.js')

/** ANSI colour escapes. */
export const ANSI = /\x1b\[[0-9;]*m/

/** The examples and fixtures, as the CLI shows them (relative to the repository root). */
export const EXAMPLE = {
  coding: 'examples/coding-agent/deployment.yml',
  oda: 'examples/oda-defaults/deployment.yml',
  minimal: 'examples/minimal/deployment.yml',
}

/** Options of an in-process replay or command that logs nothing and reads no environment variable. */
export const QUIET = { logLevel: 'silent' as const, env: {} }

/** A fixture file, relative to the repository root. */
export function fixture(name: string): string {
  return `packages/cli/tests/fixtures/${name}`
}

/** What one process did. */
export interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** Killed after `timeout` ms: a hang (no test asserts on how long a run took; see pipe.spec.ts). */
  timedOut: boolean
}

/** Options of a run. */
export interface RunOptions {
  /** Variables added to the cleaned environment (see {@link baseEnv}). */
  env?: Record<string, string>
  /** Kill the process after this many milliseconds (default 15000). */
  timeout?: number
}

/**
 * The environment of a child: the test's own without the colour switches and `NODE_OPTIONS` (mocha's
 * `--conditions=source` must not reach the built CLI), so a run is a plain `node` on a non-TTY pipe.
 */
export function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const key of ['NO_COLOR', 'FORCE_COLOR', 'NODE_OPTIONS', 'DSH_CWD', 'ODA_WORKSPACE']) delete env[key]
  return { ...env, ...extra }
}

/** Runs `command` with `args` from the repository root, stdout and stderr captured (both pipes, no TTY). */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO, env: baseEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, options.timeout ?? 15000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, timedOut })
    })
  })
}

/** Runs the built CLI with `args`. */
export function cli(args: readonly string[], options: RunOptions = {}): Promise<Run> {
  return run(process.execPath, [CLI, ...args], options)
}

/** Runs a bash command line (for pipelines) from the repository root; `$CLI` is the built CLI. */
export function sh(script: string, options: RunOptions = {}): Promise<Run> {
  return run('bash', ['-c', script], { ...options, env: { CLI: `${process.execPath} ${CLI}`, ...options.env } })
}

/**
 * Runs several invocations, at most `concurrency` at a time (the CI machine has two cores), and
 * resolves to their results by name. Each test then asserts on one result.
 */
export async function runAll<K extends string>(jobs: Record<K, () => Promise<Run>>, concurrency = 2): Promise<Record<K, Run>> {
  const names = Object.keys(jobs) as K[]
  const results = {} as Record<K, Run>
  let next = 0
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++]
      results[name] = await jobs[name]()
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker))
  return results
}

/**
 * Registers a mocha `before` hook in the calling suite that checks the build ({@link assertBuilt}) and
 * runs `jobs` ({@link runAll}); returns the results by name, filled in before the suite's first test.
 */
export function runBeforeAll<K extends string>(jobs: Record<K, () => Promise<Run>>, concurrency = 2): Record<K, Run> {
  const results = {} as Record<K, Run>
  before(async () => {
    assertBuilt()
    Object.assign(results, await runAll(jobs, concurrency))
  })
  return results
}

/** Fails with a clear message when the CLI has not been built, or is older than its sources (or the boot it uses). */
export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} does not exist: build first (yarn build, or npx tsc -b && node scripts/build.mjs)`)
  const builds: Array<[string, string[]]> = [
    ['packages/cli', ['program.ts', 'owners.ts', 'view.ts', 'checks.ts', 'commands/check.ts', 'commands/render.ts', 'commands/replay.ts']],
    ['packages/boot', ['boot.ts', 'after-load.ts', 'agents-section.ts', 'errors.ts']],
  ]
  for (const [pkg, sources] of builds) {
    const built = statSync(join(REPO, pkg, 'lib/index.js')).mtimeMs
    for (const source of sources) {
      if (statSync(join(REPO, pkg, 'src', source)).mtimeMs > built) {
        throw new Error(`${pkg}/lib is older than src/${source}: build again (yarn build)`)
      }
    }
  }
}

/** The lines of a text, without the trailing empty one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((line, index, all) => index < all.length - 1 || line !== '')
}

/** A writable stream that keeps what is written to it. */
class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString()
    callback()
  }
}

/** One in-process run of the CLI's `main()` (no colour): its exit code and what it wrote. */
export async function runInProcess(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture()
  const stderr = new Capture()
  const code = await main(argv, { stdout, stderr, env: { NO_COLOR: '1' } })
  return { code, stdout: stdout.text, stderr: stderr.text }
}

/** The problems a replay script fails with (`CLI_REPLAY_SCRIPT_INVALID`), each as its printed line; an accepted script fails the test. */
export function scriptProblems(text: string): string[] {
  try {
    parseReplayScript(text, 's.yml')
  } catch (error) {
    if (!CliError.is(error) || error.code !== 'CLI_REPLAY_SCRIPT_INVALID') throw error
    return (error.details as { problems: ScriptProblem[] }).problems.map(scriptProblemLine)
  }
  throw new Error('the script was accepted')
}
