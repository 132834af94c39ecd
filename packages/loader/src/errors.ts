/**
 * Every message of `dsh-loader`, made in one place. The strings are part of the contract: tests, the
 * CLI and the troubleshooting docs quote them. Each message is a {@link LoaderMessage}: its words with a
 * stable `code` (`LOADER_*`) and the `details` it is about, so what reacts to it never reads the words.
 * A problem caused by a thrown error (a plugin's `apply`, a schema, a check) takes that error's own
 * `code` when it has one.
 * @module
 */
import z from 'schemastery'
import { describeError, lostByCordis, oneLine } from './text.js'

export { describeError, describeValue, oneLine } from './text.js'

/** A message with its stable code and the structured fields it is about. */
export interface LoaderMessage<C extends string = string, D extends object = object> {
  readonly code: C
  readonly message: string
  readonly details: D
}

/** The `code` of an error (or of any value) when it is a non-empty string, else `undefined`. */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code
  return typeof code === 'string' && code ? code : undefined
}

/** The `details` of `error` when its code is `code` (an empty object if it has none), else `undefined`. */
export function detailsOf<D extends object>(error: unknown, code: string): Partial<D> | undefined {
  if (codeOf(error) !== code) return undefined
  const details = (error as { details?: unknown }).details
  return typeof details === 'object' && details !== null ? details as Partial<D> : {}
}

/**
 * A message of the catalogue thrown as the loader's one error shape: an `Error` whose `code` and
 * `details` are the message's (plus any `extra` fields the loader reads back, such as a `position`).
 */
export const thrown = <C extends string, D extends object, E extends object = object>(message: LoaderMessage<C, D>, extra?: E) =>
  Object.assign(new Error(message.message), { code: message.code, details: message.details }, extra)

// ---- the file ---------------------------------------------------------------------------------

/** The file could not be read; the system's error code (`ENOENT`, ...) picks the reason shown. */
export const unreadable = (error: unknown) => {
  const cause = codeOf(error)
  const reason = cause === 'ENOENT' ? 'no such file' : cause === 'EISDIR' ? 'it is a directory' : cause === 'EACCES' ? 'permission denied' : describeError(error)
  return { code: 'LOADER_UNREADABLE' as const, message: `cannot read the deployment file: ${reason}`, details: { reason, cause } }
}

/** The deployment path names a FIFO, a socket or a device: refused before it is opened. */
export const notRegularFile = (kind: string, what = 'the deployment file') => Object.assign(
  new Error(`cannot read ${what}: it is ${kind}, not a regular file`),
  { code: 'LOADER_NOT_A_FILE' as const, details: { kind, what } },
)

/** The deployment file is larger than the limit (`maxFileBytes`, `--max-file-size`). */
export const fileTooLarge = (bytes: number, limit: number, what = 'the deployment file', raise = '--max-file-size <bytes>, or maxFileBytes when loading') => Object.assign(
  new Error(`cannot read ${what}: it is ${bytes} bytes, more than the limit of ${limit} bytes (raise it with ${raise})`),
  { code: 'LOADER_FILE_TOO_LARGE' as const, details: { bytes, limit, what } },
)

/** The file has bytes that are not UTF-8 (the first bad one is at the problem's place). */
export const invalidUtf8 = (byte: number) => ({
  code: 'LOADER_INVALID_UTF8' as const,
  message: `the deployment file is not valid UTF-8: byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} does not start or continue a UTF-8 character (save the file as UTF-8)`,
  details: { byte },
})

/** A file whose lines end in CR alone, which YAML parsers read as one line. */
export const crLineEndings = () => ({
  code: 'LOADER_CR_LINE_ENDINGS' as const,
  message: 'the deployment file ends its lines with CR alone (classic Mac OS line endings), so it reads as one line: save it with LF (or CRLF) line endings',
  details: {},
})

/** A syntax (or other parse) error reported by the `yaml` package. */
export const yamlSyntax = (message: string) =>
  ({ code: 'LOADER_YAML_SYNTAX' as const, message: `YAML syntax error: ${oneLine(message)}`, details: { reason: oneLine(message) } })

/** A value the `yaml` package could not turn into data (an alias to a missing anchor, ...). */
export const yamlValue = (message: string) =>
  ({ code: 'LOADER_YAML_VALUE' as const, message: `invalid YAML value: ${oneLine(message)}`, details: { reason: oneLine(message) } })

/** The file holds no data (empty, or only comments). */
export const emptyDeployment = () =>
  ({ code: 'LOADER_EMPTY_DEPLOYMENT' as const, message: 'the deployment is empty (expected a top-level "plugins:" list)', details: {} })

/** The top level is a list or a scalar instead of a mapping. */
export const topNotMapping = (found: string) =>
  ({ code: 'LOADER_TOP_NOT_MAPPING' as const, message: `the top level must be a mapping with a "plugins:" list, found ${found}`, details: { found } })

/** The top level has no `plugins:` key. */
export const missingPlugins = () =>
  ({ code: 'LOADER_MISSING_PLUGINS' as const, message: 'missing top-level key "plugins" (the list of plugins to load)', details: {} })

/** A top-level key that is neither `plugins` nor a section the caller declared. */
export const unknownTopKey = (key: string, allowed: readonly string[]) =>
  ({ code: 'LOADER_UNKNOWN_TOP_KEY' as const, message: `unknown top-level key ${JSON.stringify(key)} (allowed: ${allowed.join(', ')})`, details: { key, allowed } })

/** `plugins:` holds something other than a list. */
export const pluginsNotList = (found: string) => ({
  code: 'LOADER_PLUGINS_NOT_LIST' as const,
  message: `"plugins" must be a list of rows like "- name: <package or ./path>", found ${found}`,
  details: { found },
})

// ---- rows -------------------------------------------------------------------------------------

/** The keys a `plugins:` row may have. */
export const ROW_KEYS = ['name', 'id', 'config', 'disabled'] as const

/** A `plugins:` item that is not a mapping. */
export const rowNotMapping = (found: string) =>
  ({ code: 'LOADER_ROW_NOT_MAPPING' as const, message: `a row must be a mapping with a "name:" key, found ${found}`, details: { found } })

/** A row key other than `name`, `id`, `config`, `disabled`. */
export const unknownRowKey = (key: string) =>
  ({ code: 'LOADER_UNKNOWN_ROW_KEY' as const, message: `unknown key ${JSON.stringify(key)} (allowed: ${ROW_KEYS.join(', ')})`, details: { key, allowed: ROW_KEYS } })

/** A row without `name:`. */
export const missingName = () =>
  ({ code: 'LOADER_MISSING_NAME' as const, message: 'missing "name" (a package name or a relative path like ./plugin.js)', details: {} })

/** A config key (a path inside the row's `config`) that the plugin's schema does not declare. */
export const unknownConfigKey = (key: string, allowed: readonly string[]) => ({
  code: 'LOADER_UNKNOWN_CONFIG_KEY' as const,
  message: `unknown config key ${JSON.stringify(key)} (allowed${key.includes('.') || key.includes('[') ? ' there' : ''}: ${allowed.length ? allowed.join(', ') : '(none)'})`,
  details: { key, allowed },
})

/** A key of a declared top-level section that its schema does not declare. */
export const unknownSectionKey = (section: string, key: string, allowed: readonly string[]) => ({
  code: 'LOADER_UNKNOWN_SECTION_KEY' as const,
  message: `unknown key ${JSON.stringify(key)} in ${JSON.stringify(section)} (allowed there: ${allowed.length ? allowed.join(', ') : '(none)'})`,
  details: { section, key, allowed },
})

/** A `__proto__` mapping key: refused anywhere in a config, since copying it would replace an object's prototype. */
export const protoKey = () => ({
  code: 'LOADER_PROTO_KEY' as const,
  message: 'the key "__proto__" is not allowed (copying it into an object would replace the object\'s prototype)',
  details: {},
})

/** A row key whose value has the wrong type. */
export const wrongType = (key: string, expected: string, found: string) =>
  ({ code: 'LOADER_WRONG_TYPE' as const, message: `${JSON.stringify(key)} must be ${expected}, found ${found}`, details: { key, expected, found } })

/** A row key whose string value is empty. */
export const emptyString = (key: string) =>
  ({ code: 'LOADER_EMPTY_STRING' as const, message: `${JSON.stringify(key)} must not be empty`, details: { key } })

/** A row whose id (explicit, or defaulted to its name) an earlier row already has. */
export const duplicateId = (id: string, other: string, line: number | undefined) => ({
  code: 'LOADER_DUPLICATE_ID' as const,
  message: `duplicate id ${JSON.stringify(id)}: ${other}${line ? ` (line ${line})` : ''} already uses it (ids must be unique in the file; set a distinct "id:")`,
  details: { id, other, line },
})

// ---- environment substitution -----------------------------------------------------------------

/** `${NAME}` with the variable unset and no default; `key` is the key path of the value. */
export const envMissing = (key: string, variable: string) => ({
  code: 'LOADER_ENV_MISSING' as const,
  message: `${key}: environment variable ${JSON.stringify(variable)} is not set (write \${${variable}:-default} to give a default)`,
  details: { key, variable },
})

/** `${…:-…}` defaults nested deeper than the loader follows. */
export const envTooDeep = (key: string, limit: number) => ({
  code: 'LOADER_ENV_TOO_DEEP' as const,
  message: `${key}: substitution defaults are nested more than ${limit} levels deep (\${A:-\${B}} nests one level)`,
  details: { key, limit },
})

/** A `${` that does not open a well-formed `${NAME}` or `${NAME:-default}`. */
export const envMalformed = (key: string, text: string) => ({
  code: 'LOADER_ENV_MALFORMED' as const,
  message: `${key}: malformed substitution ${JSON.stringify(text)} (write \${NAME} or \${NAME:-default}; $\${ for a literal \${)`,
  details: { key, text },
})

// ---- plugins ----------------------------------------------------------------------------------

/**
 * A package name found neither from the deployment's folder nor from the loader package. A name that
 * ends like a script file (`plugins/rules.js`) was meant as a path: the message says how to write one.
 */
export const unknownPackage = (name: string, tried: readonly string[]) => ({
  code: 'LOADER_UNKNOWN_PACKAGE' as const,
  message: `unknown plugin ${JSON.stringify(name)}: no package of that name found from ${tried.join(' or from ')}${
    /\.[cm]?[jt]s$/.test(name) ? ` (a file of your own is named by a path starting with ./, ../ or /, such as ${JSON.stringify('./' + name)})` : ''}`,
  details: { name, tried },
})

/** A relative (or absolute) path with no file behind it. */
export const unknownFile = (name: string, path: string) =>
  ({ code: 'LOADER_UNKNOWN_FILE' as const, message: `unknown plugin ${JSON.stringify(name)}: no file ${path}`, details: { name, path } })

/** A name whose resolution failed for another reason than "not found" (e.g. `exports` without a matching condition). */
export const unresolvable = (name: string, message: string) =>
  ({ code: 'LOADER_UNRESOLVABLE' as const, message: `cannot resolve plugin ${JSON.stringify(name)}: ${oneLine(message)}`, details: { name, reason: oneLine(message) } })

/**
 * A folder row whose folder names no plugin file: no `package.json` (or one without `exports` and
 * `main`) and none of the index files. `manifest` is the `package.json` shown, when there is one.
 */
export const folderNoEntry = (name: string, folder: string, manifest: string | undefined, tried: readonly string[]) => ({
  code: 'LOADER_FOLDER_NO_ENTRY' as const,
  message: `cannot resolve plugin ${JSON.stringify(name)}: ${manifest ? `${manifest} names no entry ("exports" or "main") and the folder has none of` : `the folder ${folder} has no package.json and none of`} ${tried.join(', ')} (add a package.json whose "exports" or "main" names the plugin's file, or name the file itself in the row, such as ${JSON.stringify(`${name.replace(/\/+$/, '')}/plugin.js`)})`,
  details: { name, folder, manifest, tried },
})

/** A folder row whose `package.json` names an entry (`field` is `exports` or `main`) that is not there. */
export const folderBadEntry = (name: string, manifest: string, field: 'exports' | 'main', entry: string) => ({
  code: 'LOADER_FOLDER_BAD_ENTRY' as const,
  message: `cannot resolve plugin ${JSON.stringify(name)}: ${manifest} names ${JSON.stringify(entry)} in "${field}", but there is no such file (build the plugin first, or point "${field}" at the plugin's file)`,
  details: { name, manifest, field, entry },
})

/**
 * A `.ts` plugin file that Node.js cannot load by itself, when tsx (which would) was not found (`tried`
 * says from where), could not be registered (`reason`), or is turned off (`tried` empty, no `reason`).
 */
export const typeScriptUnsupported = (name: string, path: string, tried: readonly string[], reason?: string) => {
  const off = !tried.length && reason === undefined
  const why = reason ?? (off ? 'loading TypeScript through tsx is turned off (tsx: false)' : `tsx was not found from ${tried.join(' or from ')}`)
  const install = off ? '' : 'install tsx next to the deployment (npm install --save-dev tsx) and it is used; or '
  return {
    code: 'LOADER_TYPESCRIPT_UNSUPPORTED' as const,
    message: `cannot load plugin ${JSON.stringify(name)} from ${path}: Node.js cannot run TypeScript by itself and ${why} (to load it: ${install}start node with --import tsx/esm; or compile the plugin to JavaScript and name the .js file)`,
    details: { name, path, tried, reason },
  }
}

/** A module that was found but threw (or failed to compile) while loading. */
export const importFailed = (name: string, path: string, message: string) => ({
  code: 'LOADER_IMPORT_FAILED' as const,
  message: `cannot load plugin ${JSON.stringify(name)} from ${path}: ${oneLine(message)}`,
  details: { name, path, reason: oneLine(message) },
})

/** A module that exports no plugin. */
export const noPlugin = (name: string, exported: readonly string[]) => ({
  code: 'LOADER_NO_PLUGIN' as const,
  message: `module ${JSON.stringify(name)} exports no plugin (expected a default export that is a function, a class or an object with apply(), or an apply() export; found ${exported.length ? `exports ${exported.join(', ')}` : 'no exports'})`,
  details: { name, exported },
})

/** A plugin the loader refuses to mount, and why. */
export const unsupportedPlugin = (name: string, reason: string) =>
  ({ code: 'LOADER_UNSUPPORTED_PLUGIN' as const, message: `plugin ${JSON.stringify(name)} is not supported here: ${reason}`, details: { name, reason } })

/** Why `@cordisjs/plugin-logger` is refused as a deployment row. */
export const PLUGIN_LOGGER_REASON =
  'under cordis 4.0.0-rc.10 its logger is shadowed by the built-in one (it prints nothing) and it installs process-wide error handlers that can spin when stdout closes; mount the LoggerBridge of dsh-loader instead'

/** A plugin whose `Config` Cordis 4 could not use. */
export const configNotStandard = () => ({
  code: 'LOADER_CONFIG_NOT_STANDARD' as const,
  message: 'the plugin\'s Config is not a Standard Schema (cordis 4 validates configs through `~standard`; schemastery >= 3.15 provides it)',
  details: {},
})

/**
 * One issue of a config, from the plugin's schema (schemastery's message names the `$.path`). `cause`
 * is the code the issue (or the error the schema threw) carries, which the problem takes instead.
 */
export const invalidConfig = (message: string, cause?: string) =>
  ({ code: cause ?? 'LOADER_INVALID_CONFIG', message: `invalid config: ${oneLine(message)}`, details: { issue: oneLine(message) } })

/** One issue of a declared top-level section, from the caller's schema; `cause` as for {@link invalidConfig}. */
export const invalidSection = (key: string, message: string, cause?: string) => ({
  code: cause ?? 'LOADER_INVALID_SECTION',
  message: `invalid ${JSON.stringify(key)}: ${oneLine(message)}`,
  details: { section: key, issue: oneLine(message) },
})

// ---- mounting ---------------------------------------------------------------------------------

/**
 * A plugin whose `apply` (or constructor) threw or rejected; the problem takes the error's own code.
 * When it read a service it does not inject (Cordis: `cannot get property "x" without inject`), the
 * message says what to add.
 */
export const applyFailed = (error: unknown) => {
  const message = lostByCordis(error)
    ? 'a value that is not an Error was thrown, and Cordis could not turn it into one (a Symbol, a null-prototype object or a revoked Proxy?)'
    : describeError(error)
  const service = /cannot get property "([^"]+)" without inject/.exec(message)?.[1]
  return {
    code: codeOf(error) ?? 'LOADER_APPLY_FAILED',
    message: `apply failed: ${message}${service ? ` (add ${JSON.stringify(service)} to the plugin's inject list, as in inject: [${JSON.stringify(service)}])` : ''}`,
    details: { reason: message, service },
  }
}

/** How a timeout message says how to raise the bound: the CLI flag, or the load option. */
const RAISE = (key: string) => `raise it with --timeout <ms>, or timeouts.${key} when loading`

/** A row's module whose import (top-level `await` included) did not settle within the bound. */
export const importTimeout = (name: string, path: string, ms: number) => ({
  code: 'LOADER_IMPORT_TIMEOUT' as const,
  message: `cannot load plugin ${JSON.stringify(name)} from ${path}: importing it did not finish within ${ms} ms (a top-level await that never settles?; ${RAISE('import')})`,
  details: { name, path, wait: 'import' as const, ms },
})

/** A plugin whose `apply` (or constructor) did not settle within the bound. */
export const applyTimeout = (ms: number) => ({
  code: 'LOADER_APPLY_TIMEOUT' as const,
  message: `apply did not finish within ${ms} ms (it returned a promise that never settles?; ${RAISE('apply')})`,
  details: { wait: 'apply' as const, ms },
})

/** A plugin whose disposal (its disposers) did not settle within the bound; it may stay partly loaded. */
export const disposeTimeout = (ms: number) => ({
  code: 'LOADER_DISPOSE_TIMEOUT' as const,
  message: `dispose did not finish within ${ms} ms (a disposer that never settles?; what it registered may stay loaded; ${RAISE('dispose')})`,
  details: { wait: 'dispose' as const, ms },
})

/** A `timeouts` value that is not a positive number of milliseconds (thrown by `loadDeployment`). */
export const invalidTimeout = (key: string, value: unknown) => Object.assign(
  new TypeError(`timeouts.${key} must be a positive number of milliseconds, received ${describeReceived(value)}`),
  { code: 'LOADER_INVALID_TIMEOUT' as const, details: { key } },
)

/** YAML nested deeper than the loader reads (it would exhaust the stack). */
export const yamlTooDeep = (limit: number) => ({
  code: 'LOADER_YAML_TOO_DEEP' as const,
  message: `the deployment nests mappings and lists more than ${limit} levels deep, which is more than the loader reads (a real deployment needs a handful; flatten the structure)`,
  details: { limit },
})

/** A file with more YAML tokens than the loader parses (`maxYamlTokens`): the parse would hold too much memory. */
export const yamlTooManyTokens = (limit: number, what = 'the deployment', raise = 'maxYamlTokens when loading') => ({
  code: 'LOADER_YAML_TOO_MANY_TOKENS' as const,
  message: `${what} has more than ${limit} YAML tokens (each key, value, indicator, comment and line break counts one; a real deployment has a few thousand), which is more than the loader parses: the YAML parser holds a few hundred bytes per token (split the file, or raise the limit with ${raise})`,
  details: { limit, what },
})

/** A file with more double-quoted text than the loader parses (`maxDoubleQuotedChars`). */
export const yamlDoubleQuotedTooLong = (limit: number, what = 'the deployment', raise = 'maxDoubleQuotedChars when loading') => ({
  code: 'LOADER_YAML_DOUBLE_QUOTED_TOO_LONG' as const,
  message: `${what}'s double-quoted strings hold more than ${limit} characters in all, which is more than the loader parses: the YAML parser builds them one character at a time, about 32 bytes each (write long text as a block scalar, | or >, which has no such limit; or raise the limit with ${raise})`,
  details: { limit, what },
})

/** A `maxYamlTokens` or `maxDoubleQuotedChars` that is not a positive whole number (thrown by `loadDeployment`). */
export const invalidLimit = (key: string, value: unknown) => Object.assign(
  new TypeError(`${key} must be a positive whole number (or Infinity for no limit), received ${describeReceived(value)}`),
  { code: 'LOADER_INVALID_LIMIT' as const, details: { key } },
)

function describeReceived(value: unknown): string {
  try {
    return typeof value === 'string' ? JSON.stringify(value) : String(value)
  } catch {
    return 'a value that cannot be shown'
  }
}

/** A mounted plugin that stayed inactive because services it injects were never provided. */
export const missingServices = (names: readonly string[]) => ({
  code: 'LOADER_MISSING_SERVICES' as const,
  message: names.length === 1
    ? `service ${JSON.stringify(names[0])} is never provided (this plugin injects it; no active plugin provides it)`
    : `services ${names.map((n) => JSON.stringify(n)).join(', ')} are never provided (this plugin injects them; no active plugin provides them)`,
  details: { services: names },
})

/** A mounted plugin that stayed inactive for no reason the loader can name. */
export const notActive = (state: string) =>
  ({ code: 'LOADER_NOT_ACTIVE' as const, message: `the plugin did not become active (state ${state})`, details: { state } })

/** An `afterLoad` check that threw; the problem takes the error's own code. */
export const hookFailed = (error: unknown) =>
  ({ code: codeOf(error) ?? 'LOADER_HOOK_FAILED', message: `afterLoad check failed: ${describeError(error)}`, details: { reason: describeError(error) } })

/** A `deployment/loaded` listener that threw; the problem takes the error's own code. */
export const loadedListenerFailed = (error: unknown) => ({
  code: codeOf(error) ?? 'LOADER_LOADED_LISTENER_FAILED',
  message: `a deployment/loaded listener failed: ${describeError(error)}`,
  details: { reason: describeError(error) },
})

/**
 * A problem an `afterLoad` check reported, with its own code (or `LOADER_CHECK_PROBLEM` when it gave
 * none). An `entry` that names no row is kept in the message, as `"<entry>": <message>`.
 */
export const checkProblem = (input: { code?: string; message: string; entry?: string }, rowFound: boolean) => ({
  code: input.code ?? 'LOADER_CHECK_PROBLEM',
  message: input.entry !== undefined && !rowFound ? `${JSON.stringify(input.entry)}: ${input.message}` : input.message,
  details: { entry: input.entry },
})

/** What a failed load throws: {@link DeploymentError}'s code (its `problems` say what is wrong). */
export const DEPLOYMENT_FAILED = 'LOADER_DEPLOYMENT_FAILED'

// ---- reloading one row ------------------------------------------------------------------------

/** `reconfigure()` or `removeRow()` named an id no mounted row has (`disabled` when a disabled row has it). */
export const unknownRow = (id: string, known: readonly string[], disabled: boolean) => ({
  code: 'LOADER_UNKNOWN_ROW' as const,
  message: `no mounted row has the id ${JSON.stringify(id)}${disabled ? ' (that row is disabled: it was never mounted)' : ''}; mounted rows: ${known.length ? known.map((k) => JSON.stringify(k)).join(', ') : '(none)'}`,
  details: { id, known, disabled },
})

/** `addRow()` was given something other than a row object. */
export const rowNotObject = (found: string) =>
  ({ code: 'LOADER_ROW_NOT_OBJECT' as const, message: `a row to add must be an object like { name: "<package or ./path>", config: {...} }, found ${found}`, details: { found } })

/** The deployment was unloaded: its rows can no longer be changed. */
export const deploymentDisposed = () =>
  ({ code: 'LOADER_DEPLOYMENT_DISPOSED' as const, message: 'the deployment has been unloaded: its rows can no longer be changed', details: {} })

/**
 * A row that stayed inactive after a change made elsewhere (`reconfigure()`, `addRow()`, `removeRow()`
 * restarted the service it injects); `reason` is why it is inactive now.
 */
export const rowDisturbed = (change: string, reason: string) => ({
  code: 'LOADER_ROW_DISTURBED' as const,
  message: `stopped working after ${change}: ${oneLine(reason)}`,
  details: { change, reason: oneLine(reason) },
})

// ---- logger bridge ----------------------------------------------------------------------------

/** A `LoggerBridge` target that is not a writable stream (a config error at `$.target`). */
export const invalidTarget = (found: string) =>
  Object.assign(new z.ValidationError(`LoggerBridge target must be a writable stream, found ${found}`, { path: ['target'] }), {
    code: 'LOADER_INVALID_TARGET' as const, details: { found },
  })

