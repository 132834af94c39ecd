import type { Context, Fiber, FiberState, Plugin } from 'cordis'
import type { Environment } from './env.js'
import type { SchemaOutput, StandardSchemaLike } from './schema.js'
import type { DeploymentSource, KeyPath, Position } from './source.js'
import type { Timeouts } from './timeouts.js'

declare module 'cordis' {
  interface Events {
    /**
     * Emitted by `loadDeployment()` with the {@link Deployment} once it has loaded cleanly, just before it
     * resolves. Typed `unknown` exactly as `dsh-system-prompt` declares it (it listens), so both merge.
     */
    'deployment/loaded'(deployment: unknown): void
  }
}

/** The schemas of the extra top-level sections a caller declares (`agents:` for the CLI). */
export type SectionSchemas = Record<string, StandardSchemaLike>

/** The validated values of the declared sections, by key. */
export type SectionValues<S extends SectionSchemas> = { [K in keyof S]: SchemaOutput<S[K]> }

/**
 * A problem an `afterLoad` check reports. The loader adds the file, and the place from `line`/`column`,
 * else from `entry` + `key` (a path inside that row, like `config.toolOrder`), else from `key` alone
 * (a path from the top of the file, like `agents[0].preset`).
 */
export interface ProblemInput {
  /** The stable code of the problem (`LOADER_CHECK_PROBLEM` when left out). */
  code?: string
  message: string
  /** The id of the row at fault. */
  entry?: string
  /** A dotted key path: inside the row when `entry` is given, else from the top of the file. */
  key?: string
  line?: number
  column?: number
}

/**
 * A check run once everything has loaded (every entry active); its problems join the load's
 * `DeploymentError`. Throwing counts as one problem.
 */
export type AfterLoadHook<S extends SectionSchemas = SectionSchemas> =
  (ctx: Context, deployment: Deployment<S>) => Promise<ProblemInput[] | void> | ProblemInput[] | void

/** Options of {@link loadDeployment}. */
export interface LoadOptions<S extends SectionSchemas = {}> {
  /** Extra top-level sections the caller accepts, each validated by its schema. */
  sections?: S
  /** Variables for `${VAR}` substitution; defaults to `process.env`. */
  env?: Environment
  /** Checks run after everything has loaded; their problems join the same error. */
  afterLoad?: AfterLoadHook<S> | ReadonlyArray<AfterLoadHook<S>>
  /**
   * How a `.ts` plugin file loads when Node.js cannot run it by itself: through tsx, found next to the
   * file or the loader and registered for the process (default `true`); `false` makes such a row the
   * problem `LOADER_TYPESCRIPT_UNSUPPORTED` instead.
   */
  tsx?: boolean
  /** The largest deployment file read, in bytes (default 4 MiB); a larger one is refused before it is read. */
  maxFileBytes?: number
  /**
   * The most YAML tokens parsed (default 50 000): each key, value, indicator, comment and line break is
   * one, a whole scalar one however long. A file with more is refused before it is parsed
   * (`LOADER_YAML_TOO_MANY_TOKENS`, at the token past the limit): the parser holds a few hundred bytes
   * per token. `Infinity` for no limit.
   */
  maxYamlTokens?: number
  /**
   * The most characters of double-quoted strings parsed, in all (default 131 072). A file with more is
   * refused before it is parsed (`LOADER_YAML_DOUBLE_QUOTED_TOO_LONG`, at the string past the limit):
   * the parser builds such a string one character at a time, about 32 bytes each. Plain, single-quoted
   * and block scalars are not limited. `Infinity` for no limit.
   */
  maxDoubleQuotedChars?: number
  /**
   * How long to wait for one row's import, `apply` and disposal, in milliseconds (defaults: import
   * 10 000, apply 10 000, dispose 5 000). A wait that does not settle in time is the problem
   * `LOADER_IMPORT_TIMEOUT`, `LOADER_APPLY_TIMEOUT` or `LOADER_DISPOSE_TIMEOUT` of that row.
   */
  timeouts?: Timeouts
  /**
   * Called as the loader starts importing or mounting a row (for a caller that attributes what happens
   * meanwhile, like the CLI naming the row whose plugin wrote to stdout). Must not throw.
   */
  onRow?: (activity: RowActivity) => void
}

/** A row the loader starts working on, as told to `LoadOptions.onRow`. */
export interface RowActivity {
  /** What the loader starts: importing the row's module, or mounting it (its `apply`). */
  readonly phase: 'import' | 'apply'
  /** The row's index in `plugins:`. */
  readonly index: number
  /** The row's id. */
  readonly id: string
  /** The row's `name`, as written. */
  readonly name: string
  /** The module file the name resolved to. */
  readonly path: string
  /** The row as problems name it: `plugins[2] (id "tools")`. */
  readonly entry: string
  /** The line of the row in the file. */
  readonly line?: number
}

/** One mounted `plugins:` row. */
export interface DeploymentEntry {
  /** The row's index in `plugins:`. */
  readonly index: number
  /** The row's id (its `name` unless it sets `id:`). */
  readonly id: string
  /** The row's `name`, as written (after substitution). */
  readonly name: string
  /** The module file the name resolved to. */
  readonly path: string
  /** The plugin mounted. */
  readonly plugin: Plugin
  /** The config as written (after substitution); `fiber.config` holds the validated one. */
  readonly config: unknown
  /** The entry's fiber: a child of the loader's context. */
  readonly fiber: Fiber
  /** The fiber's state (2 = ACTIVE, 4 = DISPOSED once the entry is unloaded). */
  readonly state: FiberState
  /** Unloads this entry only: everything it registered goes. Idempotent. */
  dispose(): Promise<void>
}

/** A disabled row: validated for shape, never resolved or mounted. */
export interface DisabledEntry {
  readonly index: number
  readonly id: string
  readonly name: string
}

/** A row to add to a loaded deployment (`deployment.addRow()`): the keys of a `plugins:` row. */
export interface RowInput {
  /** A package name or a path (relative to the deployment file), as in the file. */
  name: string
  /** The row's id (default: its `name`); unique among the deployment's rows. */
  id?: string
  /** The plugin's config, checked by its schema like a file row's. */
  config?: unknown
  /** `true`: recorded as a disabled row, never resolved or mounted. */
  disabled?: boolean
}

/** A loaded deployment. */
export interface Deployment<S extends SectionSchemas = {}> {
  /** The deployment file (absolute). */
  readonly file: string
  /** The file as shown in messages (relative to the working directory when inside it). */
  readonly displayFile: string
  /** The mounted rows, in file order. */
  readonly entries: readonly DeploymentEntry[]
  /** The rows with `disabled: true`. */
  readonly disabled: readonly DisabledEntry[]
  /** The validated values of the declared sections. */
  readonly sections: SectionValues<S>
  /** The entry with this id, if mounted. */
  entry(id: string): DeploymentEntry | undefined
  /** The line and column of the value at a key path (`['plugins', 2, 'config', 'toolOrder']`). */
  locate(path: KeyPath): Position | undefined
  /**
   * Replaces the config of the mounted row `id` while everything runs, as a live Cordis deployment
   * reloads a plugin's config: checked like a file row's config, then applied with `fiber.update()` (in
   * place when the plugin handles `internal/update`, else that fiber restarts, and with it the plugins
   * that inject a service it provides). Every other row keeps its fiber and registrations. Throws a
   * `DeploymentError` (an unknown id: `LOADER_UNKNOWN_ROW`; an invalid config: each issue with its key)
   * and leaves the old config in force. Resolves to the row's entry (the same object as before).
   */
  reconfigure(id: string, config: unknown): Promise<DeploymentEntry>
  /**
   * Adds a row after the others, resolved (from the deployment file's folder), checked and mounted like
   * a file row. Throws a `DeploymentError` naming the row and leaves nothing mounted when it fails.
   * Resolves to the new entry (`undefined` for a `disabled: true` row, which is only recorded).
   */
  addRow(row: RowInput): Promise<DeploymentEntry | undefined>
  /** Unloads the mounted row `id` and removes it from `entries`; throws `LOADER_UNKNOWN_ROW` for an unknown id. */
  removeRow(id: string): Promise<void>
  /** Unloads every entry, last first. Idempotent. */
  dispose(): Promise<void>
}

/** What the loader knows about a mounted row when it builds the {@link Deployment} (`deployment.ts` builds it). */
export interface EntryInit {
  index: number
  id: string
  name: string
  path: string
  plugin: Plugin
  config: unknown
  fiber: Fiber
  /** The file, and how long its disposal may take (a row that takes longer is a `DeploymentError`). */
  source: DeploymentSource
  disposeMs: number
}
