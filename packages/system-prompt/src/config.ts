import z from 'schemastery'
import { TOOL_ORDER_REST, toolOrderProblem } from './tool-order.js'
import { invalidToolOrder } from './errors.js'

/** The identity line registered as `harness:identity` unless turned off. */
export const DEFAULT_IDENTITY = 'You are an AI agent powered by the DeepSeek Harness SDK.'

/**
 * Configuration of the `systemPrompt` service (`dsh-system-prompt`), as a deployment or a harness writes
 * it: every key optional (`const config: Config = { persona: 'x' }`); the service applies the defaults.
 */
export interface Config {
  /** Register the harness identity line as `harness:identity` (default `true`). */
  includeHarnessIdentity?: boolean
  /** The identity line's text (default {@link DEFAULT_IDENTITY}). */
  identity?: string
  /** The persona prefix, a strict template (default `''`). */
  persona?: string
  /** The persona suffix, a strict template rendered last (default `''`). */
  personaSuffix?: string
  /** `false` turns the runtime context off for the deployment (default `true`). */
  includeRuntimeContext?: boolean
  /** Explicit tool order with exactly one `<unlisted-tools>` rest entry (default: name order). */
  toolOrder?: string[]
}

/** The configuration with every default applied: what `systemPrompt.config` holds. */
export interface ResolvedConfig extends Required<Omit<Config, 'toolOrder'>> {
  toolOrder?: string[]
}

const toolOrder = z.transform(z.array(z.string()), (value: string[]) => {
  const problem = toolOrderProblem(value)
  if (problem) throw invalidToolOrder(value, problem)
  return value
})

/** The schemastery schema of {@link Config}; every key is described for config UIs. */
export const Config: z<Config, ResolvedConfig> = z.object({
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
