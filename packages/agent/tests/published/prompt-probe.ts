// Written the way the published README tells a plugin to assemble for an agent:
// `ctx.systemPrompt.assemble(assembleContextFor(agent, signal))`.
import type { Context } from 'cordis'
import { assembleContextFor, type Agent } from 'dsh-agent'
import type { PromptAssembly } from 'dsh-system-prompt'

export const name = 'prompt-probe'
export const inject = ['systemPrompt']

/** Assembles what `agent` would be sent, through the published helper. */
export function probe(ctx: Context, agent: Agent, signal?: AbortSignal): Promise<PromptAssembly> {
  return ctx.systemPrompt.assemble(assembleContextFor(agent, signal))
}

export function apply(ctx: Context) {
  ctx.systemPrompt.variable('probe_agent', (context) => context.agent?.id)
}
