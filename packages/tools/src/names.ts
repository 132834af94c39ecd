/**
 * The tool-name rule, defined once: the OpenAI-compatible function-name rule every model-facing tool
 * name must follow. `register()`, presets' tool lists and messages all use it.
 * @module
 */

/** A model-facing tool (function) name. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** Whether `name` is a valid model-facing tool name (matches {@link TOOL_NAME}). */
export function isToolName(name: unknown): name is string {
  return typeof name === 'string' && TOOL_NAME.test(name)
}
