import z from 'schemastery'
import { TOOL_ORDER_REST, toolOrderProblem } from './tool-order.js'

/** The identity line registered as `harness:identity` unless turned off. */
export const DEFAULT_IDENTITY = 'You are an AI agent powered by the DeepSeek Harness SDK.'

/** Configuration of the `systemPrompt` service (`dsh-system-prompt`). */
export interface Config {
  includeHarnessIdentity: boolean
  identity: string
  persona: string
  personaSuffix: string
  includeRuntimeContext: boolean
  toolOrder?: string[]
}

const toolOrder = z.transform(z.array(z.string()), (value: string[]) => {
  const problem = toolOrderProblem(value)
  if (problem) throw new z.ValidationError(problem, {})
  return value
})

/** The schemastery schema of {@link Config}; every key is described for config UIs. */
export const Config: z<Partial<Config>, Config> = z.object({
  includeHarnessIdentity: z.boolean().default(true)
    .description('Register the harness identity line as section `harness:identity` (order -1000).'),
  identity: z.string().default(DEFAULT_IDENTITY)
    .description('The identity line\'s text.'),
  persona: z.string().default('')
    .description('The persona prefix: section `deployment:persona` at order 0, a strict `{{variable}}` template. Empty is dropped at render; a scope may still shadow it.'),
  personaSuffix: z.string().default('')
    .description('The persona suffix: section `deployment:persona-suffix`, always rendered last. A strict template; empty is dropped at render.'),
  includeRuntimeContext: z.boolean().default(true)
    .description('`false` turns the runtime context off for the deployment: no context provider is evaluated and nothing a listener adds survives.'),
  toolOrder: toolOrder
    .description(`Explicit model-facing tool order: tool names plus exactly one "${TOOL_ORDER_REST}" rest entry, where unlisted tools go in name order. Absent: name order.`),
}) as any
