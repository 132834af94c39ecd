/**
 * What a wire format's provider accepts as a tool, as data of the format module (`toolRules`): the
 * name rule (a pattern) and the parameter-schema rule, each with the provider document it comes from.
 * The body builders refuse a tool that breaks them (`assertTools`), and `toolProblems` (in
 * `tool-check.ts`) lists every breach without throwing, for `dsh-prompt check`. Pure.
 * @module
 */
import { invalidToolName, invalidToolParameters } from './errors.js'
import type { WireTool } from './record.js'

/** A format's rule for tool names. */
export interface ToolNameRule {
  /** The whole name must match it. */
  readonly pattern: RegExp
  /** Where the provider documents it. */
  readonly source: string
}

/** A format's rule for a tool's `parameters`: `check` says what is wrong, or `undefined`. */
export interface ToolParametersRule {
  check(parameters: unknown): string | undefined
  /** Where the provider documents it. */
  readonly source: string
}

/** What a format's provider accepts as a tool. */
export interface ToolRules {
  readonly name: ToolNameRule
  readonly parameters: ToolParametersRule
}

/** A problem a provider would refuse a tool for: `WIRE_INVALID_TOOL_NAME` or `WIRE_INVALID_TOOL_PARAMETERS`. */
export type ToolProblem = ReturnType<typeof invalidToolName> | ReturnType<typeof invalidToolParameters>

/**
 * The parameter rule every built-in format documents: absent (a tool without parameters), or a JSON
 * Schema of an object (a plain object whose `type`, when given, is `"object"`). Nothing is rewritten to
 * make a schema pass: a `type: "string"` schema is refused, not sent as an object.
 */
export function objectSchemaRule(source: string): ToolParametersRule {
  return Object.freeze({
    source,
    check(parameters: unknown): string | undefined {
      if (parameters === undefined) return undefined
      if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters)) {
        return `must be a JSON Schema object, received ${parameters === null ? 'null' : Array.isArray(parameters) ? 'an array' : typeof parameters}`
      }
      const type = (parameters as { type?: unknown }).type
      if (type !== undefined && type !== 'object') return `must be a JSON Schema of type "object", received type ${JSON.stringify(type) ?? String(type)}`
      return undefined
    },
  })
}

/** The problems of `tools` under `format`'s `rules`, in tool order (a tool may have two). */
export function problemsUnder(format: string, rules: ToolRules, tools: readonly WireTool[]): ToolProblem[] {
  const problems: ToolProblem[] = []
  for (const tool of tools) {
    const name: unknown = tool.name
    if (typeof name !== 'string' || !rules.name.pattern.test(name)) problems.push(invalidToolName(format, String(name), String(rules.name.pattern), rules.name.source))
    const problem = rules.parameters.check(tool.parameters)
    if (problem !== undefined) problems.push(invalidToolParameters(format, String(name), problem, rules.parameters.source))
  }
  return problems
}

/** Throws the first problem of `tools` under `format`'s `rules` (a body builder never sends what the provider refuses). */
export function assertTools(format: string, rules: ToolRules, tools: readonly WireTool[]): void {
  const [first] = problemsUnder(format, rules, tools)
  if (first) throw first
}

const OPENAI_FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** OpenAI function tools (chat completions and Responses): the API reference's `FunctionDefinition`. */
export const OPENAI_TOOL_RULES: ToolRules = Object.freeze({
  name: Object.freeze({ pattern: OPENAI_FUNCTION_NAME, source: 'OpenAI API reference, FunctionDefinition.name: a-z, A-Z, 0-9, underscores and dashes, at most 64 (https://platform.openai.com/docs/api-reference/chat/create)' }),
  parameters: objectSchemaRule('OpenAI API reference, FunctionDefinition.parameters: "described as a JSON Schema object" (https://platform.openai.com/docs/guides/function-calling)'),
})

/** Anthropic client tools: the "Define tools" page. */
export const ANTHROPIC_TOOL_RULES: ToolRules = Object.freeze({
  name: Object.freeze({ pattern: /^[a-zA-Z0-9_-]{1,64}$/, source: 'Anthropic, Define tools: name "must match the regex ^[a-zA-Z0-9_-]{1,64}$" (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools)' }),
  parameters: objectSchemaRule('Anthropic, Define tools: input_schema is a JSON Schema object of type "object" (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools)'),
})

/** Gemini function declarations: `FunctionDeclaration` of `@google/genai`. */
export const GEMINI_TOOL_RULES: ToolRules = Object.freeze({
  name: Object.freeze({
    pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/,
    source: '@google/genai FunctionDeclaration.name: starts with a letter or an underscore; a-z, A-Z, 0-9, underscores, dots, colons and dashes; at most 128 (https://ai.google.dev/api/caching#FunctionDeclaration)',
  }),
  parameters: objectSchemaRule('@google/genai FunctionDeclaration.parametersJsonSchema: "must describe an object" (https://ai.google.dev/api/caching#FunctionDeclaration)'),
})
