/**
 * How a failed command is reported: readable lines on stderr (each deployment problem as
 * `file:line:column: entry: message`), one JSON document on stdout with `--json`, an exit code, and a
 * stack trace only with `--stack`.
 * @module
 */
import { DeploymentError, formatProblem, terminalSafe, type Problem } from 'dsh-loader'
import { codeOf } from './codes.js'
import { CliError, describeError, EXIT, loadFailed, YAML_CASCADE_HINT, type FailureKind } from './errors.js'
import type { Output } from './output.js'

/** The `error` member of a failed command's JSON document. */
export interface FailureJson {
  kind: FailureKind
  /** The error's stable code (`LOADER_DEPLOYMENT_FAILED`, `CLI_UNKNOWN_AGENT`, ...); absent for an error without one. */
  code?: string
  message: string
  /** The fields the error is about (its catalogue entry's `details`); absent for an error without them. */
  details?: object
  problems?: readonly Problem[]
}

/** How to report: `--json`, `--stack`, and the exit code for a failure that is not a usage error. */
export interface ReportOptions {
  json?: boolean
  stack?: boolean
  /** The exit code of a deployment or render failure (1; `diff` uses 2, "trouble", like diff(1)). */
  failureCode?: number
}

/** Reports `error` and returns the exit code. */
export function reportFailure(output: Output, error: unknown, options: ReportOptions = {}): number {
  const failureCode = options.failureCode ?? EXIT.wrong
  const c = output.errorColors
  let failure: FailureJson
  let code: number
  if (DeploymentError.is(error)) {
    for (const problem of error.problems) output.error(problemLine(problem, c.bold))
    const file = error.problems[0]?.file ?? 'the deployment'
    output.error(`${c.red('error:')} ${loadFailed(file, error.problems.length)}`)
    if (yamlCascade(error.problems)) output.error(YAML_CASCADE_HINT)
    failure = { kind: 'deployment', code: error.code, message: error.message, problems: error.problems }
    code = failureCode
  } else if (CliError.is(error)) {
    // A message is one line: names from the deployment in it cannot start another.
    output.error(`${c.red('error:')} ${terminalSafe(error.message)}`)
    failure = { kind: error.kind, code: error.code, message: error.message, details: error.details }
    code = error.kind === 'usage' ? EXIT.usage : failureCode
  } else {
    output.error(`${c.red('error:')} ${terminalSafe(describeError(error))}`)
    failure = { kind: 'internal', code: codeOf(error), message: describeError(error), details: ownDetails(error) }
    code = failureCode
  }
  if (options.stack) {
    for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
      if (cause.stack) output.error(c.dim((depth ? 'caused by: ' : '') + cause.stack))
    }
  }
  if (options.json) output.json({ ok: false, exitCode: code, error: failure })
  return code
}

/** The `details` object a coded error carries, if any (an internal error reported as it was thrown). */
function ownDetails(error: unknown): object | undefined {
  const details = codeOf(error) ? (error as { details?: unknown }).details : undefined
  return typeof details === 'object' && details !== null ? details : undefined
}

/** Whether `problems` are several and start with a YAML syntax error (whose followers are often its echoes). */
export function yamlCascade(problems: readonly Problem[]): boolean {
  return problems.length > 1 && problems[0].code === 'LOADER_YAML_SYNTAX'
}

/** One problem as a line, the place in bold: `file:line:column: entry: message`; escaped for the terminal, so it stays one line. */
export function problemLine(problem: Problem, bold: (text: string) => string = (text) => text): string {
  const line = terminalSafe(formatProblem(problem))
  const place = line.slice(0, line.indexOf(': '))
  return bold(place) + line.slice(place.length)
}
