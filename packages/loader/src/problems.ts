/**
 * A problem of a deployment file (what is wrong and where, with the stable code of its cause), the
 * list the loader collects them in, and the one error type a failed load throws.
 * @module
 */
import { DEPLOYMENT_FAILED, type LoaderMessage } from './errors.js'
import type { DeploymentSource, KeyPath, Position } from './source.js'
import { formatKeyPath } from './source.js'

/** One thing wrong with a deployment file, with the place it comes from. */
export interface Problem {
  /** The deployment file, relative to the working directory when it lies inside it. */
  file: string
  /** 1-based line in the file, when the problem has a place. */
  line?: number
  /** 1-based column in the file, when the problem has a place. */
  column?: number
  /** The row at fault, as `plugins[2] (id "tools")`. */
  entry?: string
  /** The id of the row at fault (when it has one). */
  id?: string
  /** The key at fault, as a path from the top of the file: `plugins[2].config.toolOrder`. */
  key?: string
  /**
   * The stable code of the problem's cause: the loader's own (`LOADER_UNKNOWN_TOP_KEY`, ...), or the
   * code of the error a plugin, schema or check threw (`PRESETS_DUPLICATE_ID`, ...). Decide by this.
   */
  code: string
  /** What is wrong: one line, no file or entry prefix. */
  message: string
}

/** Formats one problem as the line `file:line:column: entry: message`. */
export function formatProblem(problem: Problem): string {
  let where = problem.file
  if (problem.line !== undefined) where += `:${problem.line}` + (problem.column !== undefined ? `:${problem.column}` : '')
  return `${where}: ${problem.entry ? `${problem.entry}: ` : ''}${problem.message}`
}

/**
 * Thrown by `loadDeployment` when anything is wrong: it carries every problem found, and its message
 * has one line per problem (see {@link formatProblem}). Nothing is left mounted when it is thrown.
 */
export class DeploymentError extends Error {
  override name = 'DeploymentError'
  /** `LOADER_DEPLOYMENT_FAILED`; each problem has the code of its own cause. */
  readonly code = DEPLOYMENT_FAILED
  /** Every problem found, in file order (problems without a line last). */
  readonly problems: readonly Problem[]
  /** The fields the error is about: its problems. */
  readonly details: { readonly problems: readonly Problem[] }

  constructor(problems: readonly Problem[]) {
    super(problems.map(formatProblem).join('\n'))
    this.problems = problems
    this.details = { problems }
  }

  /** True for a `DeploymentError` (also across duplicate copies of this module). */
  static is(error: unknown): error is DeploymentError {
    return error instanceof Error && error.name === 'DeploymentError' && Array.isArray((error as DeploymentError).problems)
  }
}

/** A `plugins:` row as far as problems need it: its index and (once known) its id. */
export interface RowRef {
  index: number
  id?: string
}

/** What a part of the loader reports; {@link ProblemList} adds the file, place and row label. */
export interface ProblemInit extends LoaderMessage {
  /** The row at fault. */
  row?: RowRef
  /** The node at fault (its start is the place). */
  node?: unknown
  /** The key path at fault: names the key and, without `node`, gives the place. */
  path?: KeyPath
  /** An explicit place, when neither `node` nor `path` gives one. */
  position?: Position
}

/** The label of a row in messages: `plugins[2] (id "tools")`. */
export function rowLabel(row: RowRef): string {
  return `plugins[${row.index}]` + (row.id !== undefined ? ` (id ${JSON.stringify(row.id)})` : '')
}

/**
 * Collects the problems of one deployment file. Row labels are made at the end, so a problem found
 * before the row's id is known still names it by id.
 */
export class ProblemList {
  private readonly pending: Array<ProblemInit & { at?: Position; seq: number }> = []

  constructor(readonly source: DeploymentSource) {}

  /** How many problems were found so far. */
  get size(): number {
    return this.pending.length
  }

  /** Records a problem. */
  add(init: ProblemInit): void {
    const at = init.position ?? this.source.positionOfNode(init.node) ?? (init.path ? this.source.locate(init.path) : undefined)
    this.pending.push({ ...init, at, seq: this.pending.length })
  }

  /** The problems so far, in file order (problems without a place last, in the order found). */
  problems(): Problem[] {
    const sorted = [...this.pending].sort((a, b) => {
      if (!a.at || !b.at) return (a.at ? 0 : 1) - (b.at ? 0 : 1) || a.seq - b.seq
      return a.at.line - b.at.line || a.at.column - b.at.column || a.seq - b.seq
    })
    return sorted.map((item) => {
      const problem: Problem = { file: this.source.display, code: item.code, message: item.message }
      if (item.at) {
        problem.line = item.at.line
        problem.column = item.at.column
      }
      if (item.row) {
        problem.entry = rowLabel(item.row)
        if (item.row.id !== undefined) problem.id = item.row.id
      }
      if (item.path?.length) problem.key = formatKeyPath(item.path)
      return problem
    })
  }

  /** The `DeploymentError` carrying every problem so far. */
  error(): DeploymentError {
    return new DeploymentError(this.problems())
  }
}
