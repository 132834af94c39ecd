import type { Agent, PromptChangePolicy, WireFormat } from 'dsh-agent'
import { bootApp, tool, type BootedApp } from 'dsh-testing'

/** A raw openai-chat usage object, as `completion.usage` comes back. */
export const RAW_USAGE = { prompt_tokens: 1200, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 1024 } }

/**
 * The registrations of the harness, the same before and after a restart: a persona, a tool, a
 * runtime context that names the model. `changed` adds what the conversation changed mid-way (the
 * agent-scoped persona that replaces the deployment's), which a restarted harness registers again.
 */
export async function harness(promptChange: PromptChangePolicy): Promise<BootedApp> {
  const booted = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, tools: true, agents: { promptChange } })
  booted.host.tools.register(tool('read', { description: 'Read a file.' }))
  booted.host.systemPrompt.context({ name: 'model:info', order: 300, text: 'Model: {{model}}.' })
  return booted
}

/** The agent-local registration the conversation makes mid-way (a persona change). */
export function changePersona(agent: Agent): void {
  agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'Be careful.\n\nCheck every path twice.' })
}

/**
 * A conversation with a tool call and its result, usage in both forms, and a system-prompt change
 * mid-way, every step in `format`. Leaves the agent after a reply, ready for its next step.
 */
export async function converse(agent: Agent, format: WireFormat): Promise<void> {
  await agent.step('Read a.txt.', { format })
  agent.record({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }] },
    { usage: { inputTokens: 40, cachedReadTokens: null, cacheWriteTokens: null, outputTokens: 7 } })
  agent.record({ role: 'tool', tool_call_id: 'c1', name: 'read', content: 'hello' })
  await agent.step(undefined, { format })
  agent.record({ role: 'assistant', content: 'It says hello.' }, { usage: RAW_USAGE, format: 'openai-chat' })
  changePersona(agent)
  await agent.step('Again, carefully.', { format })
  agent.record({ role: 'assistant', content: 'Still hello.' })
}
