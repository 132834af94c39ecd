/**
 * What every filesystem tool provides: its model-facing description, JSON Schema parameters and guidance,
 * built from the deployment's limits. Pure and Cordis-free.
 * @module
 */

/** The names of the filesystem tools, in their guidance placement order. */
export const FILE_TOOL_NAMES = ['read', 'write', 'edit', 'glob', 'grep'] as const

/** One of the filesystem tools. */
export type FileToolName = (typeof FILE_TOOL_NAMES)[number]

/** The limits the texts and schemas state (set them to what your executor enforces). */
export interface FileToolLimits {
  /** The most lines one `read` call returns (also the schema's `limit` maximum). */
  readLineLimit: number
}

/** The limits used when the config sets none. */
export const DEFAULT_FILE_LIMITS: Readonly<FileToolLimits> = Object.freeze({ readLineLimit: 2000 })

/** A JSON Schema `pattern` for absolute paths: POSIX (`/srv/app`) or Windows (`C:\\work`). */
export const ABSOLUTE_PATH = '^(/|[A-Za-z]:[\\\\/])'

/** A filesystem tool's model-facing parts. */
export interface FileToolSpec {
  readonly name: FileToolName
  /** The description sent with the schema in every request. */
  description(limits: FileToolLimits): string
  /** JSON Schema of the arguments. */
  parameters(limits: FileToolLimits): Record<string, unknown>
  /** The `tool:<name>` guidance section, emitted verbatim. */
  guidance(limits: FileToolLimits): string
}

/** A JSON Schema property for an absolute path, with its description. */
export function absolutePath(description: string): Record<string, unknown> {
  return { type: 'string', pattern: ABSOLUTE_PATH, description }
}
