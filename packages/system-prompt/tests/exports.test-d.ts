/**
 * A type test: `tsc -b` checks it (through tsconfig.tests.json) and mocha never runs it. R-SP-6 lists
 * these types as exported by name from the package root. This file stops compiling when one of them is
 * no longer exported, or when a field written here is renamed, removed or changes type, or a new field
 * becomes required.
 */
import type {
  AssembleContext, AssembledContext, AssembledSection, Config, PromptContext, PromptSection, ToolProviderResult, ToolSchema,
  TOOL_ORDER_REST,
} from 'dsh-system-prompt'

declare const signal: AbortSignal
declare const rest: typeof TOOL_ORDER_REST

export const section = { name: 's', order: 1, text: 'S', complete: false, interpolate: true } satisfies PromptSection
export const context = { name: 'c', order: 1, text: () => 'C', interpolate: false } satisfies PromptContext
export const assembled = { name: 's', order: 1, text: 'S' } satisfies AssembledSection
export const assembledContext = { name: 'c', order: 1, text: 'C' } satisfies AssembledContext
export const schema = { name: 't', description: 'T', parameters: { type: 'object' } } satisfies ToolSchema
export const provided = { schemas: [schema], knownNames: ['t'] } satisfies ToolProviderResult
export const options = { scope: {}, signal } satisfies AssembleContext
export const config = { toolOrder: [rest] } satisfies Partial<Config>
