/**
 * What keeps the CLI in charge while a command runs (from loading the deployment to the end of the
 * command's work), whatever its plugins do:
 * - anything written to `process.stdout` (a plugin's `console.log`) goes to stderr, each line marked
 *   `[plugin output] ` (with the row, when the writer's module is one), so stdout carries only what the
 *   CLI's `Output` writes after the command (it holds its output until then);
 * - `process.exit()` is replaced: the call throws into the plugin and the command fails (`CLI_PLUGIN_EXIT`);
 * - an uncaught exception or an unhandled rejection becomes the command's failure (`CLI_UNCAUGHT_EXCEPTION`,
 *   `CLI_UNHANDLED_REJECTION`) instead of Node's crash report.
 * Everything is put back when the command ends, so `main()` can run many times in one process (one
 * command at a time). Out of reach: a plugin that blocks the thread, `fs.writeSync(1, …)`, `process.kill`.
 * @module
 */
import { fileURLToPath } from 'node:url'
import { terminalSafe, type RowActivity } from 'dsh-loader'
import { exitIntercepted, pluginExit, uncaughtException, unhandledRejection, type CliError } from './errors.js'
import type { Output } from './output.js'

/** The guard of the command running now (one at a time), for the boot options and the assembly bound. */
let active: CommandGuard | undefined

/** The guard of the running command, if any. */
export function activeGuard(): CommandGuard | undefined {
  return active
}

type Write = typeof process.stdout.write
type Exit = typeof process.exit
const PROCESS_EVENTS = ['uncaughtException', 'unhandledRejection'] as const

/** One command's guard: {@link start} before the command, {@link stop} after it. */
export class CommandGuard {
  /** The first late failure or exit seen while the command ran: it is what the command reports. */
  failure?: CliError
  /** The rows the loader has started, by module file. */
  private readonly rows = new Map<string, RowActivity>()
  /** The row the loader started last, while the deployment is still loading. */
  private loading?: RowActivity
  private lineStart = true
  private readonly undo: Array<() => void> = []

  /** `timeoutMs`: the bound of each assembly (`--timeout`), `undefined` for the default. */
  constructor(private readonly output: Output, readonly timeoutMs?: number) {}

  /** For the loader's `onRow`: remembers the row and that loading goes on. */
  readonly onRow = (activity: RowActivity): void => {
    this.rows.set(activity.path, activity)
    this.loading = activity
  }

  /** The deployment has loaded: what happens from now on is no longer the last row's doing. */
  loaded(): void {
    this.loading = undefined
  }

  /** Installs the guard for the running command. */
  start(): void {
    active = this
    const stdout = process.stdout
    const own = Object.getOwnPropertyDescriptor(stdout, 'write')
    stdout.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      this.pluginOutput(chunk, typeof encoding === 'string' ? encoding as BufferEncoding : undefined)
      const done = typeof encoding === 'function' ? encoding : callback
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)())
      return true
    }) as Write
    this.undo.push(() => {
      if (own) Object.defineProperty(stdout, 'write', own)
      else delete (stdout as { write?: Write }).write
    })

    const exit = process.exit
    process.exit = ((code?: unknown) => {
      const stack = stackHere()
      this.fail(pluginExit(code, this.rowIn(stack, true), exitIntercepted(code)))
      throw exitIntercepted(code)
    }) as Exit
    this.undo.push(() => { process.exit = exit })

    for (const event of PROCESS_EVENTS) {
      const saved = process.rawListeners(event) as Array<(...args: unknown[]) => void>
      process.removeAllListeners(event)
      const handler = event === 'uncaughtException'
        ? (error: unknown) => this.fail(uncaughtException(error, this.rowIn(stackOf(error), false)))
        : (reason: unknown) => this.fail(unhandledRejection(reason, this.rowIn(stackOf(reason), false)))
      process.on(event, handler)
      this.undo.push(() => {
        process.off(event, handler)
        for (const listener of saved) process.on(event, listener)
      })
    }
  }

  /** Puts everything back, once a rejection left unhandled by the command's last step has been seen. */
  async stop(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve))
    if (!this.lineStart) this.output.stderr.write('\n')
    for (const undo of this.undo.splice(0).reverse()) undo()
    if (active === this) active = undefined
  }

  private fail(error: CliError): void {
    this.failure ??= error
  }

  /** A write to stdout that is not the CLI's: to stderr, each line marked as the plugin's. */
  private pluginOutput(chunk: unknown, encoding: BufferEncoding | undefined): void {
    let text: string
    try {
      text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(encoding ?? 'utf8')
    } catch {
      return
    }
    const row = this.rowIn(stackHere(), false)
    const mark = row ? `[plugin output: ${row}] ` : '[plugin output] '
    let out = ''
    const lines = text.split('\n')
    lines.forEach((line, index) => {
      const last = index === lines.length - 1
      if (last && line === '') return
      if (this.lineStart) out += mark
      out += terminalSafe(line)
      this.lineStart = !last
      if (!last) out += '\n'
    })
    try {
      this.output.stderr.write(out)
    } catch {
      // stderr is gone: nothing left to tell.
    }
  }

  /**
   * The row whose module is the nearest frame of `stack` that is a row's module, as problems name it
   * (`plugins[1] (id "x"), line 4`); else, when `loadingRow`, the row being loaded.
   */
  private rowIn(stack: string | undefined, loadingRow: boolean): string | undefined {
    for (const file of framesOf(stack)) {
      const row = this.rows.get(file)
      if (row) return label(row)
    }
    return loadingRow && this.loading ? label(this.loading) : undefined
  }
}

function label(row: RowActivity): string {
  return `${row.entry}${row.line !== undefined ? `, line ${row.line}` : ''}`
}

/** The stack where we are, deep enough to reach a plugin's frame under `console.log`'s own. */
function stackHere(): string | undefined {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 64
  try {
    return new Error().stack
  } finally {
    Error.stackTraceLimit = limit
  }
}

function stackOf(value: unknown): string | undefined {
  try {
    return value instanceof Error && typeof value.stack === 'string' ? value.stack : undefined
  } catch {
    return undefined
  }
}

/** The files of a stack's frames, nearest first (file URLs as paths, a `?query` dropped). */
function framesOf(stack: string | undefined): string[] {
  const files: string[] = []
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const match = /((?:file:\/\/)?\/[^():?\s]+)(?:\?[^:)\s]*)?:\d+:\d+\)?\s*$/.exec(line)
    if (!match) continue
    try {
      files.push(match[1].startsWith('file://') ? fileURLToPath(match[1]) : match[1])
    } catch {
      // Not a path after all.
    }
  }
  return files
}
