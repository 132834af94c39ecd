/**
 * `dsh-plugin-filesystem`: the `read`, `write`, `edit`, `glob` and `grep` tools with their guidance
 * sections. Default-exports the plugin, so a deployment row can name the package alone.
 * @module
 */
import type { Context } from 'cordis'
import { fileToolDefinitions } from './catalog.js'
import { Config } from './config.js'

export { FILE_TOOLS, fileToolDefinitions } from './catalog.js'
export type { FileToolOverride, FileToolSelection } from './catalog.js'
export { ABSOLUTE_PATH, DEFAULT_FILE_LIMITS, FILE_TOOL_NAMES } from './spec.js'
export type { FileToolLimits, FileToolName, FileToolSpec } from './spec.js'
export { Config } from './config.js'
export type { ConfigInput } from './config.js'
export * as FilesystemErrors from './errors.js'

/** The plugin's name (the owner named in assemblies and error messages). */
export const name = 'dsh-plugin-filesystem'

/** Services the plugin needs. */
export const inject = ['tools']

/**
 * Registers the configured tools (with their guidance) through the plugin's context. Each registration is
 * an effect of the plugin's fiber: if one fails (a tool of that name already exists in the layer), Cordis
 * disposes the ones made before it, so a failed load leaves nothing behind.
 */
export function apply(ctx: Context, config: Config): void {
  for (const tool of fileToolDefinitions(config)) ctx.tools.register(tool)
}

/** The plugin object. */
export const Filesystem = { name, inject, Config, apply }

export default Filesystem
