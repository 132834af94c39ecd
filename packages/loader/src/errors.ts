/**
 * Every message of `dsh-loader`, made in one place, plus the one error type a failed load throws.
 * The strings are part of the contract: tests, the CLI and the troubleshooting docs quote them.
 * @module
 */

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
  /** Every problem found, in file order (problems without a line last). */
  readonly problems: readonly Problem[]

  constructor(problems: readonly Problem[]) {
    super(problems.map(formatProblem).join('\n'))
    this.problems = problems
  }

  /** True for a `DeploymentError` (also across duplicate copies of this module). */
  static is(error: unknown): error is DeploymentError {
    return error instanceof Error && error.name === 'DeploymentError' && Array.isArray((error as DeploymentError).problems)
  }
}

// ---- the file ---------------------------------------------------------------------------------

/** The file could not be read (`reason` is the system's word for it). */
export const unreadable = (reason: string) => `cannot read the deployment file: ${reason}`

/** The file has bytes that are not UTF-8 (the first bad one is at the problem's place). */
export const invalidUtf8 = (byte: number) =>
  `the deployment file is not valid UTF-8: byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} does not start or continue a UTF-8 character (save the file as UTF-8)`

/** A syntax (or other parse) error reported by the `yaml` package. */
export const yamlSyntax = (message: string) => `YAML syntax error: ${oneLine(message)}`

/** A value the `yaml` package could not turn into data (an alias to a missing anchor, ...). */
export const yamlValue = (message: string) => `invalid YAML value: ${oneLine(message)}`

/** The file holds no data (empty, or only comments). */
export const emptyDeployment = () => 'the deployment is empty (expected a top-level "plugins:" list)'

/** The top level is a list or a scalar instead of a mapping. */
export const topNotMapping = (found: string) =>
  `the top level must be a mapping with a "plugins:" list, found ${found}`

/** The top level has no `plugins:` key. */
export const missingPlugins = () => 'missing top-level key "plugins" (the list of plugins to load)'

/** A top-level key that is neither `plugins` nor a section the caller declared. */
export const unknownTopKey = (key: string, allowed: readonly string[]) =>
  `unknown top-level key ${JSON.stringify(key)} (allowed: ${allowed.join(', ')})`

/** `plugins:` holds something other than a list. */
export const pluginsNotList = (found: string) =>
  `"plugins" must be a list of rows like "- name: <package or ./path>", found ${found}`

// ---- rows -------------------------------------------------------------------------------------

/** The keys a `plugins:` row may have. */
export const ROW_KEYS = ['name', 'id', 'config', 'disabled'] as const

/** A `plugins:` item that is not a mapping. */
export const rowNotMapping = (found: string) =>
  `a row must be a mapping with a "name:" key, found ${found}`

/** A row key other than `name`, `id`, `config`, `disabled`. */
export const unknownRowKey = (key: string) =>
  `unknown key ${JSON.stringify(key)} (allowed: ${ROW_KEYS.join(', ')})`

/** A row without `name:`. */
export const missingName = () => 'missing "name" (a package name or a relative path like ./plugin.js)'

/** A config key (a path inside the row's `config`) that the plugin's schema does not declare. */
export const unknownConfigKey = (key: string, allowed: readonly string[]) =>
  `unknown config key ${JSON.stringify(key)} (allowed${key.includes('.') || key.includes('[') ? ' there' : ''}: ${allowed.length ? allowed.join(', ') : '(none)'})`

/** A key of a declared top-level section that its schema does not declare. */
export const unknownSectionKey = (section: string, key: string, allowed: readonly string[]) =>
  `unknown key ${JSON.stringify(key)} in ${JSON.stringify(section)} (allowed there: ${allowed.length ? allowed.join(', ') : '(none)'})`

/** A `__proto__` mapping key: refused anywhere in a config, since copying it would replace an object's prototype. */
export const protoKey = () =>
  'the key "__proto__" is not allowed (copying it into an object would replace the object\'s prototype)'

/** A row key whose value has the wrong type. */
export const wrongType = (key: string, expected: string, found: string) =>
  `${JSON.stringify(key)} must be ${expected}, found ${found}`

/** A row key whose string value is empty. */
export const emptyString = (key: string) => `${JSON.stringify(key)} must not be empty`

/** A row whose id (explicit, or defaulted to its name) an earlier row already has. */
export const duplicateId = (id: string, other: string, line: number | undefined) =>
  `duplicate id ${JSON.stringify(id)}: ${other}${line ? ` (line ${line})` : ''} already uses it (ids must be unique in the file; set a distinct "id:")`

// ---- environment substitution -----------------------------------------------------------------

/** `${NAME}` with the variable unset and no default; `key` is the key path of the value. */
export const envMissing = (key: string, variable: string) =>
  `${key}: environment variable ${JSON.stringify(variable)} is not set (write \${${variable}:-default} to give a default)`

/** A `${` that does not open a well-formed `${NAME}` or `${NAME:-default}`. */
export const envMalformed = (key: string, text: string) =>
  `${key}: malformed substitution ${JSON.stringify(text)} (write \${NAME} or \${NAME:-default}; $\${ for a literal \${)`

// ---- plugins ----------------------------------------------------------------------------------

/**
 * A package name found neither from the deployment's folder nor from the loader package. A name that
 * ends like a script file (`plugins/rules.js`) was meant as a path: the message says how to write one.
 */
export const unknownPackage = (name: string, tried: readonly string[]) =>
  `unknown plugin ${JSON.stringify(name)}: no package of that name found from ${tried.join(' or from ')}${
    /\.[cm]?[jt]s$/.test(name) ? ` (a file of your own is named by a path starting with ./, ../ or /, such as ${JSON.stringify('./' + name)})` : ''}`

/** A relative (or absolute) path with no file behind it. */
export const unknownFile = (name: string, path: string) =>
  `unknown plugin ${JSON.stringify(name)}: no file ${path}`

/** A name whose resolution failed for another reason than "not found" (e.g. `exports` without a matching condition). */
export const unresolvable = (name: string, message: string) =>
  `cannot resolve plugin ${JSON.stringify(name)}: ${oneLine(message)}`

/** A module that was found but threw (or failed to compile) while loading. */
export const importFailed = (name: string, path: string, message: string) =>
  `cannot load plugin ${JSON.stringify(name)} from ${path}: ${oneLine(message)}`

/** A module that exports no plugin. */
export const noPlugin = (name: string, exported: readonly string[]) =>
  `module ${JSON.stringify(name)} exports no plugin (expected a default export that is a function, a class or an object with apply(), or an apply() export; found ${exported.length ? `exports ${exported.join(', ')}` : 'no exports'})`

/** A plugin the loader refuses to mount, and why. */
export const unsupportedPlugin = (name: string, reason: string) =>
  `plugin ${JSON.stringify(name)} is not supported here: ${reason}`

/** Why `@cordisjs/plugin-logger` is refused as a deployment row. */
export const PLUGIN_LOGGER_REASON =
  'under cordis 4.0.0-rc.10 its logger is shadowed by the built-in one (it prints nothing) and it installs process-wide error handlers that can spin when stdout closes; mount the LoggerBridge of dsh-loader instead'

/** A plugin whose `Config` Cordis 4 could not use. */
export const configNotStandard = () =>
  'the plugin\'s Config is not a Standard Schema (cordis 4 validates configs through `~standard`; schemastery >= 3.15 provides it)'

/** One issue of a config, from the plugin's schema (schemastery's message names the `$.path`). */
export const invalidConfig = (message: string) => `invalid config: ${oneLine(message)}`

/** One issue of a declared top-level section, from the caller's schema. */
export const invalidSection = (key: string, message: string) => `invalid ${JSON.stringify(key)}: ${oneLine(message)}`

// ---- mounting ---------------------------------------------------------------------------------

/**
 * A plugin whose `apply` (or constructor) threw or rejected. When it read a service it does not inject
 * (Cordis: `cannot get property "x" without inject`), the message says what to add.
 */
export const applyFailed = (error: unknown) => {
  const message = describeError(error)
  const service = /cannot get property "([^"]+)" without inject/.exec(message)?.[1]
  return `apply failed: ${message}${service ? ` (add ${JSON.stringify(service)} to the plugin's inject list, as in inject: [${JSON.stringify(service)}])` : ''}`
}

/** A mounted plugin that stayed inactive because services it injects were never provided. */
export const missingServices = (names: readonly string[]) =>
  names.length === 1
    ? `service ${JSON.stringify(names[0])} is never provided (this plugin injects it; no active plugin provides it)`
    : `services ${names.map((n) => JSON.stringify(n)).join(', ')} are never provided (this plugin injects them; no active plugin provides them)`

/** A mounted plugin that stayed inactive for no reason the loader can name. */
export const notActive = (state: string) => `the plugin did not become active (state ${state})`

/** An `afterLoad` check that threw. */
export const hookFailed = (error: unknown) => `afterLoad check failed: ${describeError(error)}`

/** A `deployment/loaded` listener that threw. */
export const loadedListenerFailed = (error: unknown) => `a deployment/loaded listener failed: ${describeError(error)}`

// ---- logger bridge ----------------------------------------------------------------------------

/** A `LoggerBridge` target that is not a writable stream. */
export const invalidTarget = (found: string) => `LoggerBridge target must be a writable stream, found ${found}`

// ---- helpers ----------------------------------------------------------------------------------

/** An error as one line: its message, prefixed by its name unless that is plain `Error`. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const name = error.name && error.name !== 'Error' ? `${error.name}: ` : ''
    return name + oneLine(error.message)
  }
  return oneLine(String(error))
}

/** Collapses a multi-line text into one line (problems are one line each). */
export function oneLine(text: string): string {
  return text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean).join(' ')
}

/** A short description of a found value, for "must be X, found Y" messages. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'string') return `a string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  if (typeof value === 'object') return 'a mapping'
  return `a ${typeof value} (${String(value)})`
}
