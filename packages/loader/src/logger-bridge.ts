import type { Writable } from 'node:stream'
import { inspect } from 'node:util'
import { Logger, type Context, type Exporter, type Message } from 'cordis'
import z from 'schemastery'
import { describeValue, invalidTarget } from './errors.js'
import { terminalSafe } from './terminal.js'

/** Log levels by name; a logger call passes when its level is at most the configured one. */
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug'

/** Cordis 4 `LoggerLevel` numbers by name (`silent` lets nothing through). */
export const LOG_LEVELS: Readonly<Record<LogLevel, number>> = { silent: -1, error: 0, warn: 1, info: 2, debug: 3 }

/** Configuration of the {@link LoggerBridge} plugin. */
export interface LoggerBridgeConfig {
  /** The level for every logger without its own entry in `levels`. */
  level: LogLevel
  /** Levels for single loggers, by logger name (`{ 'system-prompt': 'debug' }`). */
  levels: Record<string, LogLevel>
  /** `auto`: colours only when the target is a TTY that has them (honours `NO_COLOR`/`FORCE_COLOR`). */
  colors: 'auto' | boolean
  /** Prefix each line with the local time. */
  timestamp: boolean
  /** Print errors with their stack (off: one line, `Name: message`). */
  stack: boolean
  /** Where lines go; `process.stderr` when absent, so stdout stays clean for machine output. */
  target?: Writable
}

const level = z.union(['silent', 'error', 'warn', 'info', 'debug'] as const)

const target = z.transform(z.any(), (value: unknown) => {
  if (value === undefined || value === null) return undefined
  if (typeof (value as Writable).write !== 'function' || typeof (value as Writable).on !== 'function') {
    throw invalidTarget(describeValue(value))
  }
  return value as Writable
}, true)

/** The schemastery schema of {@link LoggerBridgeConfig}; every key is described for config UIs. */
export const LoggerBridgeConfig: z<Partial<LoggerBridgeConfig>, LoggerBridgeConfig> = z.object({
  level: level.default('info').description('The level for every logger without its own entry in `levels`: silent, error, warn, info or debug.'),
  levels: z.dict(level).default({}).description('Levels for single loggers, by logger name.'),
  colors: z.union([z.const('auto'), z.boolean()]).default('auto')
    .description('`auto`: colours only when the target is a TTY that has them (honours NO_COLOR and FORCE_COLOR).'),
  timestamp: z.boolean().default(false).description('Prefix each line with the local time.'),
  stack: z.boolean().default(false).description('Print errors with their stack; off, an error is one line `Name: message`.'),
  target: target.hidden().description('The writable stream lines go to (code only); process.stderr when absent.'),
}) as any

/**
 * Makes Cordis log output visible: an exporter on Cordis 4's built-in `ctx.logger` (which otherwise
 * only buffers, and shadows `@cordisjs/plugin-logger`), writing `[I] name message` lines to a stream,
 * `process.stderr` by default. It installs no process-wide handlers, and once the target fails (a
 * closed pipe: `EPIPE`) it stops writing, so a closed output never crashes or spins the process.
 */
export const LoggerBridge = {
  name: 'logger-bridge',
  Config: LoggerBridgeConfig,
  apply(ctx: Context, config: LoggerBridgeConfig) {
    const stream = config.target ?? process.stderr
    let closed = false
    const exporter: Exporter & { colors: number } = {
      colors: colorLevel(config.colors, stream),
      levels: Object.fromEntries([['default', LOG_LEVELS[config.level]], ...Object.entries(config.levels).map(([name, value]) => [name, LOG_LEVELS[value]])]),
      formatters: {
        o: (value, exp) => formatValue(value, !!exp.colors, config.stack),
        O: (value, exp) => formatValue(value, !!exp.colors, config.stack),
      },
      export(message) {
        if (closed || stream.destroyed || stream.writableEnded) return
        try {
          stream.write(renderLine(exporter, message, config) + '\n')
        } catch {
          closed = true
        }
      },
    }
    const onError = () => { closed = true }
    ctx.effect(() => {
      stream.on('error', onError)
      return () => releaseGuard(stream, onError)
    }, 'LoggerBridge: stop writing when the target fails')
    ctx.logger.exporter(exporter)
  },
}

/** The colour level for a target: 0 (none), 1 (16), 2 (256) or 3 (truecolor). */
export function colorLevel(setting: 'auto' | boolean, stream: Writable): number {
  const tty = stream as Writable & { isTTY?: boolean; hasColors?: () => boolean; getColorDepth?: () => number }
  const depth = tty.isTTY && typeof tty.getColorDepth === 'function' ? tty.getColorDepth() : 4
  const fromDepth = depth >= 24 ? 3 : depth >= 8 ? 2 : 1
  if (setting === true) return fromDepth
  if (setting === false) return 0
  if (!tty.isTTY || typeof tty.hasColors !== 'function' || !tty.hasColors()) return 0
  return fromDepth
}

/**
 * Renders one Cordis log message as a line: `[I] name message` (`[E]`, `[W]`, `[D]`), continuation
 * lines indented under the message. Errors are one line unless `stack` is set. The logger's name and
 * the message are escaped for the terminal ({@link terminalSafe}).
 */
export function renderLine(exporter: Exporter, message: Message, options: { timestamp?: boolean; stack?: boolean } = {}): string {
  let args = message.args
  if (!options.stack && args[0] instanceof Error) args = ['%s', errorLine(args[0]), ...args.slice(1)]
  let body: string
  try {
    body = Logger.format(exporter, { ...message, args })
  } catch (error) {
    body = `(unprintable log message: ${errorLine(error)})`
  }
  const colors = exporter.colors || 0
  // What a plugin logs is made safe for a terminal (its own colours from inspect() stay while colours are on).
  body = terminalSafe(body, colors ? 'coloured' : 'lines')
  const typeColor = message.type === 'error' ? 1 : message.type === 'warn' ? 3 : message.type === 'debug' ? 8 : -1
  const prefix = `[${message.type[0].toUpperCase()}]`
  let head = ''
  let indent = prefix.length + 1
  if (options.timestamp) {
    const time = formatTime(new Date(message.ts))
    head += Logger.color(exporter, 8, time) + ' '
    indent += time.length + 1
  }
  head += (typeColor >= 0 ? Logger.color(exporter, typeColor, prefix) : prefix) + ' '
  head += Logger.color(exporter, Logger.code(message.name, colors), terminalSafe(message.name), ';1') + ' '
  return head + body.replace(/\n/g, '\n' + ' '.repeat(indent))
}

function formatValue(value: unknown, colors: boolean, stack: boolean): string {
  if (value instanceof Error && !stack) return errorLine(value)
  return inspect(value, { colors, depth: 4, compact: true, breakLength: Infinity })
}

function errorLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  return `${error.name || 'Error'}: ${error.message}`
}

function formatTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

/** Removes the error guard once nothing is left to flush (a late `EPIPE` must still find it). */
function releaseGuard(stream: Writable, onError: () => void): void {
  if (!stream.writableLength || stream.destroyed) {
    stream.off('error', onError)
    return
  }
  const release = () => {
    stream.off('drain', release)
    stream.off('close', release)
    // Keep swallowing the error that ended the stream, if that is what fired.
    setImmediate(() => stream.off('error', onError))
  }
  stream.on('drain', release)
  stream.on('close', release)
}
