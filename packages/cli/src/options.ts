/**
 * The options every command has (`--json`, `--no-color`, `--verbose`, `--log-level`, `--stack`,
 * `--max-file-size`, `--timeout`) and
 * how they become boot options.
 * @module
 */
import { Option, type Command } from 'commander'
import { invalidFileSize, invalidLimit, invalidTimeout } from './errors.js'
import { activeGuard } from './guard.js'
import type { LogLevel } from 'dsh-loader'
import type { BootOptions } from 'dsh-boot'
import type { Output } from './output.js'

/** The options every command has, as commander parses them. */
export interface CommonOptions {
  json?: boolean
  /** `false` with `--no-color`. */
  color?: boolean
  verbose?: boolean
  logLevel?: LogLevel
  stack?: boolean
  /** `--max-file-size <bytes>`, as parsed. */
  maxFileSize?: number
  /** `--max-yaml-tokens <n>` and `--max-quoted-chars <n>`, as parsed. */
  maxYamlTokens?: number
  maxQuotedChars?: number
  /** `--timeout <ms>`, as parsed: the bound of every wait on a plugin (import, apply, dispose, each assembly). */
  timeout?: number
}

/** The log levels `--log-level` accepts. */
export const LOG_LEVEL_NAMES: readonly LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug']

/**
 * Adds the common options to a command. `check` is silent by default (it reports what the log would say
 * as findings) and runs no agent step, so its help promises no `section=` lines; `history` loads no
 * deployment, so it offers none of the deployment file's flags.
 */
export function withCommonOptions(command: Command): Command {
  const check = command.name() === 'check'
  command
    .option('--json', 'machine output: one JSON document on stdout')
    .option('--no-color', 'no colours (they are used only on a terminal, and never with NO_COLOR set)')
  // `history` reads a ledger and loads no deployment: no plugin logs, no YAML, nothing to wait for.
  if (command.name() === 'history') {
    return command
      .option('--stack', 'print errors with their stack trace')
      .option('--max-file-size <bytes>', 'the largest ledger read (default 4194304: 4 MiB)', fileSize)
  }
  return command
    .option('-v, --verbose', check ? 'log at debug level on stderr' : 'log at debug level on stderr (shows each agent step\'s section=<name> bytes=<n> lines)')
    .addOption(new Option('--log-level <level>', `log level on stderr; default ${check ? 'silent, as check reports what the log would say as findings' : 'warn'}`).choices(LOG_LEVEL_NAMES as string[]))
    .option('--stack', 'print errors with their stack trace')
    .option('--max-file-size <bytes>', 'the largest file read: deployment, replay script, ledger (default 4194304: 4 MiB)', fileSize)
    .option('--max-yaml-tokens <n>', 'the most YAML tokens a deployment file may hold, comments and blank lines included (default 20000)', limit('--max-yaml-tokens'))
    .option('--max-quoted-chars <n>', 'the most double-quoted characters a deployment file may hold (default 131072; block scalars are not limited)', limit('--max-quoted-chars'))
    .option('--timeout <ms>', 'how long to wait for a plugin: each import, apply, dispose and assembly (defaults: 10000 each, dispose 5000)', timeoutMs)
}

/** The log level from `--log-level`, else `--verbose` (debug), else `warn`. */
export function logLevelOf(options: CommonOptions): LogLevel {
  return options.logLevel ?? (options.verbose ? 'debug' : 'warn')
}

/** Boot options from the common options. */
export function bootOptionsOf(options: CommonOptions, output: Output, extra: Partial<BootOptions> = {}): BootOptions {
  return {
    logLevel: logLevelOf(options),
    stack: !!options.stack,
    color: options.color === false ? false : undefined,
    logTarget: output.stderr,
    env: output.env,
    ...(options.maxFileSize !== undefined ? { maxFileBytes: options.maxFileSize } : {}),
    ...(options.maxYamlTokens !== undefined ? { maxYamlTokens: options.maxYamlTokens } : {}),
    ...(options.maxQuotedChars !== undefined ? { maxDoubleQuotedChars: options.maxQuotedChars } : {}),
    ...(options.timeout !== undefined ? { timeouts: { import: options.timeout, apply: options.timeout, dispose: options.timeout } } : {}),
    // The running command's guard names the row a plugin's stray output or exit comes from.
    ...(activeGuard() ? { onRow: activeGuard()!.onRow } : {}),
    ...extra,
  }
}

/**
 * The parsers below throw the catalogue's usage errors (`CliError`, kind `usage`) rather than commander's
 * `InvalidArgumentError`: commander passes any other error through untouched, so the error reaches
 * `reportFailure` with its code and details (`--json` included) instead of becoming `CLI_USAGE`.
 */

/** A whole number written in digits only (no sign, exponent, point or spaces) that is safe and at least 1. */
function wholeAtLeastOne(value: string): number | undefined {
  const n = Number(value)
  return /^\d+$/.test(value) && Number.isSafeInteger(n) && n >= 1 ? n : undefined
}

/** `--timeout`: a whole number of milliseconds a timer can wait (1 to 2^31 - 1). */
function timeoutMs(value: string): number {
  const ms = wholeAtLeastOne(value)
  if (ms === undefined || ms > 2 ** 31 - 1) throw invalidTimeout(value)
  return ms
}

/** `--max-yaml-tokens`, `--max-quoted-chars` and `--max-turns`: a limit, a whole number of at least 1. */
export function limit(flag: string) {
  return (value: string): number => {
    const n = wholeAtLeastOne(value)
    if (n === undefined) throw invalidLimit(flag, value)
    return n
  }
}

/** `--max-file-size`: a whole number of bytes, at least 1. */
function fileSize(value: string): number {
  const bytes = wholeAtLeastOne(value)
  if (bytes === undefined) throw invalidFileSize(value)
  return bytes
}
