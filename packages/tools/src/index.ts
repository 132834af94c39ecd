/**
 * `dsh-tools`: the `tools` service (tool schemas with guidance, per-scope restrictions), registered as
 * the prompt's tool provider.
 * @module
 */
import { ToolRegistry } from './service.js'

export { ToolRegistry } from './service.js'
export type { ToolDefinition, ToolRestriction, ToolChangeEvent, ToolView } from './service.js'
export { validateParameters } from './schema.js'
export { TOOL_NAME, isToolName } from './names.js'
export * as ToolErrors from './errors.js'
export { TOOL_NAME_RULE } from './errors.js'

export default ToolRegistry
