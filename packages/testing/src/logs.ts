/**
 * Capturing what the Cordis logger emits (`ctx.logger(name).info(...)` and the like), as plain text.
 * @module
 */
import { Logger, type Context, type LoggerType, type Message } from 'cordis'

/** One captured log message. */
export interface CapturedLog {
  /** `error`, `warn`, `info` or `debug`. */
  type: LoggerType
  /** The logger's name (a plugin's hyphenated name unless it chose one). */
  name: string
  /** The numeric level (0 error, 1 warn, 2 info, 3 debug). */
  level: number
  /** The formatted message, without colours. */
  text: string
  /** `<type> <name>: <text>`. */
  line: string
}

/**
 * Captures every message the logger of `app` emits from now on into the array it returns. `level` is
 * the most verbose level kept for every logger (3 keeps debug); when omitted, each logger's own level
 * applies (info by default). The exporter lives as long as `app`.
 */
export function captureLogs(app: Context, level?: number): CapturedLog[] {
  const logs: CapturedLog[] = []
  const exporter = {
    colors: false as const,
    ...level !== undefined && { levels: { default: level } },
    export(message: Message) {
      const text = Logger.format(exporter, message)
      logs.push({ type: message.type, name: message.name, level: message.level, text, line: `${message.type} ${message.name}: ${text}` })
    },
  }
  app.logger.exporter(exporter)
  return logs
}
