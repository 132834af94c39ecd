/**
 * The agent's debug lines (`section=<name> bytes=<n>` per section, then the total: R-CONV-12), written
 * only when an exporter of the Cordis logger would take them. In Cordis 4.0.0-rc.10 every
 * `logger.debug()` costs about 2 µs even when no exporter takes debug lines: it counts the message on
 * the logger service through that service's context proxy, which builds a context for the write. A
 * step writes a line per section, so a deployment of 48 sections paid about 120 µs of a 360 µs step
 * for lines nobody saw. Whether anyone would see them is read once per step, the way the logger itself
 * decides it for each exporter.
 * @module
 */
import type { Logger } from 'cordis'

/** The debug level of Cordis's logger, and the level it assumes when nothing sets one. */
const DEBUG = 3
const INFO = 2

/** Where an agent writes its debug lines. */
export interface DebugLog {
  /** Whether a line written now reaches at least one exporter. */
  enabled(): boolean
  write(message: string): void
  /** Reports a failure that must not stop the agent (an `agent/step` listener's) as a warning: its message, without its stack. */
  warn(error: Error): void
}

interface ExporterLevels {
  readonly levels?: Readonly<Record<string, number>>
}

/** The debug log of `logger`, each line prefixed with `prefix`. */
export function debugLog(logger: Logger, prefix: string): DebugLog {
  return {
    enabled: () => debugEnabled(logger),
    write: (message) => logger.debug(`${prefix}${message}`),
    warn: (error) => logger.warn(error.message),
  }
}

/**
 * Whether a debug line of `logger` reaches an exporter: the rule `Logger` applies per exporter (its
 * level for this logger's name, else its default level, else the logger's own level, else info). A
 * logger whose service is not shaped as expected counts as enabled, so nothing is ever lost.
 */
export function debugEnabled(logger: Logger): boolean {
  const exporters = (logger as unknown as { service?: { exporters?: unknown } }).service?.exporters
  if (!(exporters instanceof Map)) return true
  for (const exporter of exporters.values() as Iterable<ExporterLevels>) {
    const level = exporter.levels?.[logger.name] ?? exporter.levels?.default ?? logger.level ?? INFO
    if (level >= DEBUG) return true
  }
  return false
}
