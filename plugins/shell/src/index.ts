/**
 * `dsh-plugin-shell`: the `bash` tool with its `tool:bash` guidance section. Default-exports the plugin,
 * so a deployment row can name the package alone.
 * @module
 */
import type { Context } from 'cordis'
import type { ToolDefinition } from 'dsh-tools'
import { bashDescription, bashGuidance, bashParameters, BASH_TOOL } from './bash.js'
import { Config } from './config.js'

export { ABSOLUTE_PATH, BASH_TOOL, DEFAULT_LIMITS, bashDescription, bashGuidance, bashParameters } from './bash.js'
export type { ShellLimits } from './bash.js'
export { Config } from './config.js'
export type { ConfigInput } from './config.js'
export * as ShellErrors from './errors.js'

/** The plugin's name (the owner named in assemblies and error messages). */
export const name = 'dsh-plugin-shell'

/** Services the plugin needs. */
export const inject = ['tools']

/** The tool definition a config produces (what `apply` registers). */
export function bashTool(config: Config): ToolDefinition {
  const tool: ToolDefinition = {
    name: BASH_TOOL,
    description: config.description ?? bashDescription(config),
    parameters: bashParameters(config),
  }
  if (config.includeGuidance) tool.guidance = config.guidance ?? bashGuidance(config)
  return tool
}

/** Registers `bash` (and its guidance) through the plugin's context; disposing the plugin removes both. */
export function apply(ctx: Context, config: Config): void {
  ctx.tools.register(bashTool(config))
}

/** The plugin object. */
export const Shell = { name, inject, Config, apply }

export default Shell
