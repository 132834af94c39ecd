/**
 * Tool definitions for tests: valid, small, and named by the caller.
 * @module
 */
import type { ToolDefinition } from 'dsh-tools'

/** A JSON Schema object with one required string property (default `path`). */
export function objectSchema(property = 'path'): Record<string, unknown> {
  return { type: 'object', properties: { [property]: { type: 'string' } }, required: [property] }
}

/** A complete tool definition named `name` (description `The <name> tool.`, a `path` parameter), with `extra` on top. */
export function tool(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, description: `The ${name} tool.`, parameters: objectSchema(), ...extra }
}
