/**
 * `dsh-loader`: loads a YAML deployment into a Cordis 4 context (each row its own child plugin, every
 * problem reported together in one `DeploymentError`), and the `LoggerBridge` that makes Cordis log
 * output visible.
 * @module
 */
export { loadDeployment } from './load.js'
export { DeploymentError, formatProblem } from './problems.js'
export type { Problem } from './problems.js'
export { codeOf, detailsOf } from './errors.js'
export type { LoaderMessage } from './errors.js'
export * as LoaderErrors from './errors.js'
export type {
  AfterLoadHook, Deployment, DeploymentEntry, DisabledEntry, LoadOptions, ProblemInput, RowActivity, RowInput, SectionSchemas, SectionValues,
} from './types.js'
export { DEFAULT_TIMEOUTS } from './timeouts.js'
export type { Timeouts } from './timeouts.js'
export { MAX_YAML_DEPTH } from './depth.js'
export { DEFAULT_MAX_DOUBLE_QUOTED_CHARS, DEFAULT_MAX_YAML_TOKENS } from './yaml-limits.js'
export { checkYamlLimits, DEFAULT_MAX_FILE_BYTES, readRegularFile } from './bounded-read.js'
export type { FileRole } from './bounded-read.js'
export type { YamlLimits } from './yaml-limits.js'
export type { SchemaOutput, StandardSchemaLike } from './schema.js'
export { substituteVariables } from './env.js'
export type { Environment, Substitution } from './env.js'
export { resolvePluginModule, pluginOf } from './resolve.js'
export type { Resolution } from './resolve.js'
export { formatKeyPath, parseKeyPath } from './source.js'
export type { KeyPath, Position } from './source.js'
export { terminalSafe } from './terminal.js'
export type { TerminalText } from './terminal.js'
export { LoggerBridge, LoggerBridgeConfig, LOG_LEVELS, renderLine, colorLevel } from './logger-bridge.js'
export type { LogLevel } from './logger-bridge.js'
