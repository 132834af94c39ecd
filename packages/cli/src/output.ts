/**
 * Where the CLI writes: stdout for results (human text or one JSON document), stderr for errors and
 * logs. Colours only when the stream is a TTY with colours, never under `NO_COLOR` or `--no-color`
 * (`FORCE_COLOR` forces them on, as in most Node tools). A closed stdout (`| head -1`) is not an error.
 * @module
 */
import type { Writable } from 'node:stream'
import pc from 'picocolors'
import { terminalSafe } from 'dsh-loader'

/** The colour functions of one stream (identity functions when colours are off). */
export type Colors = ReturnType<typeof pc.createColors>

/** The streams and the environment the CLI runs with (the process's own by default). */
export interface OutputOptions {
  stdout?: Writable
  stderr?: Writable
  env?: NodeJS.ProcessEnv
  /** `false` from `--no-color`; `undefined` decides from the stream and the environment. */
  color?: boolean
}

/** Whether to colour what goes to `stream`: `--no-color` and `NO_COLOR` win, then `FORCE_COLOR`, then the TTY. */
export function colorEnabled(stream: Writable, flag: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (flag === false) return false
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  const force = env.FORCE_COLOR
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true
  const tty = stream as Writable & { isTTY?: boolean; hasColors?: () => boolean }
  return !!tty.isTTY && (typeof tty.hasColors === 'function' ? tty.hasColors() : true)
}

/** Writes results to stdout and messages to stderr, with each stream's colour setting. */
export class Output {
  /** Where results go (default `process.stdout`). */
  readonly stdout: Writable
  /** Where messages and logs go (default `process.stderr`). */
  readonly stderr: Writable
  /** The environment read for `NO_COLOR` and `FORCE_COLOR` (default `process.env`). */
  readonly env: NodeJS.ProcessEnv
  /** Colours for stdout. */
  colors: Colors
  /** Colours for stderr. */
  errorColors: Colors
  /** Whether stdout is coloured. */
  colorful = false
  /** Whether stderr is coloured. */
  errorColorful = false
  private stdoutClosed = false
  private stderrClosed = false
  /** What stdout got while held (a command runs), in order; `undefined` when not held. */
  private held?: string[]

  constructor(options: OutputOptions = {}) {
    this.stdout = options.stdout ?? process.stdout
    this.stderr = options.stderr ?? process.stderr
    this.env = options.env ?? process.env
    this.colors = this.errorColors = pc.createColors(false)
    this.setColor(options.color)
    // A reader that went away (`| head -1`) or a failing terminal ends output, quietly.
    this.stdout.on('error', () => { this.stdoutClosed = true })
    this.stderr.on('error', () => { this.stderrClosed = true })
  }

  /** Applies `--no-color` once the options are parsed. */
  setColor(flag: boolean | undefined): void {
    this.colorful = colorEnabled(this.stdout, flag, this.env)
    this.errorColorful = colorEnabled(this.stderr, flag, this.env)
    this.colors = pc.createColors(this.colorful)
    this.errorColors = pc.createColors(this.errorColorful)
  }

  /** Whether stdout is still open. */
  get open(): boolean {
    return !this.stdoutClosed && !this.stdout.destroyed
  }

  /**
   * Holds what is written to stdout until {@link release} (or {@link discard}): a command's result goes
   * out only once the command is over and nothing failed late, so stdout is one whole result.
   */
  hold(): void {
    this.held ??= []
  }

  /** Writes what was held, and writes through again. */
  release(): void {
    const held = this.held ?? []
    this.held = undefined
    if (held.length) this.write(held.join(''))
  }

  /** Drops what was held (a failure is reported instead), and writes through again. */
  discard(): void {
    this.held = undefined
  }

  /** Writes `text` to stdout as is (held while a command runs: see {@link hold}). */
  write(text: string): void {
    if (this.held) {
      this.held.push(text)
      return
    }
    if (!this.open) return
    try {
      this.stdout.write(text)
    } catch {
      this.stdoutClosed = true
    }
  }

  /**
   * Writes one line (or several) to stdout, made safe for a terminal: LF and TAB stay, and the colours
   * this output adds while colours are on; every other control, CR and bidi override is escaped.
   */
  line(text = ''): void {
    this.write(terminalSafe(text, this.colorful ? 'coloured' : 'lines') + '\n')
  }

  /** Writes one JSON document to stdout. */
  json(value: unknown): void {
    this.write(JSON.stringify(value, null, 2) + '\n')
  }

  /** Writes one line (or several) to stderr, made safe for a terminal as {@link line} does. */
  error(text: string): void {
    if (this.stderrClosed || this.stderr.destroyed) return
    try {
      this.stderr.write(terminalSafe(text, this.errorColorful ? 'coloured' : 'lines') + '\n')
    } catch {
      this.stderrClosed = true
    }
  }

  /** Resolves once everything written to stdout and stderr has been handed to the system. */
  flush(): Promise<void> {
    const drained = (stream: Writable, closed: boolean) => new Promise<void>((resolve) => {
      if (closed || stream.destroyed || !stream.writableLength) return resolve()
      const done = () => {
        stream.off('drain', done)
        stream.off('close', done)
        stream.off('error', done)
        resolve()
      }
      stream.on('drain', done)
      stream.on('close', done)
      stream.on('error', done)
    })
    return Promise.all([drained(this.stdout, this.stdoutClosed), drained(this.stderr, this.stderrClosed)]).then(() => {})
  }
}
