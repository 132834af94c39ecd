import { DeploymentError, type Problem } from './errors.js'
import type { DeploymentSource, KeyPath, Position } from './source.js'
import { formatKeyPath } from './source.js'

/** A `plugins:` row as far as problems need it: its index and (once known) its id. */
export interface RowRef {
  index: number
  id?: string
}

/** What a part of the loader reports; {@link ProblemList} adds the file, place and row label. */
export interface ProblemInit {
  message: string
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
      const problem: Problem = { file: this.source.display, message: item.message }
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
