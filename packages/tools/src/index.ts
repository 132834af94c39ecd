/**
 * `dsh-tools`: the `tools` service (tool schemas with guidance, per-scope restrictions), registered as
 * the prompt's tool provider.
 * @module
 */
import { ToolRegistry } from './tool-registry.js'

export { ToolRegistry } from './tool-registry.js'
export type { ToolDefinition, ToolRestriction, ToolChangeEvent, ToolView } from './tool-registry.js'
export { validateParameters } from './schema.js'
export { TOOL_NAME, isToolName } from './names.js'
export * as ToolErrors from './errors.js'
export { TOOL_NAME_RULE } from './errors.js'

export default ToolRegistry
