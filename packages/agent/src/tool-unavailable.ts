/**
 * Calls to tools the agent declares but cannot run now (a removed tool kept inert, a tool announced
 * for the next epoch): each gets a coded `AGENT_TOOL_UNAVAILABLE` error and the tool result that
 * answers it (`agent.record()` returns them); and who owns each tool of an assembly, which the errors
 * and the tool plan name.
 * @module
 */
import { assemblyNotes, type PromptAssembly } from 'dsh-system-prompt'
import type { ConversationEntry, ToolMessage } from 'dsh-wire'
import { toolUnavailable } from './errors.js'

/** A tool the agent still declares but no longer offers, or offers but does not declare yet. */
export interface UnavailableTool {
  readonly owner: string | null
  readonly reason: 'removed' | 'not-yet-declared'
}

/** A call of a reply the agent cannot run now, with the coded error and the tool result to record for it. */
export interface UnavailableCall {
  readonly call: { readonly id: string; readonly name: string }
  /** `AGENT_TOOL_UNAVAILABLE`, naming the tool, the call and the tool's (former) owner. */
  readonly error: ReturnType<typeof toolUnavailable>
  /** The tool result that answers the call (`agent.record(result)` sends it to the model). */
  readonly result: ToolMessage
}

/** The calls of `item` (a recorded reply) to tools in `unavailable`, each with its coded error and the result that answers it. */
export function unavailableCalls(agentId: string, item: ConversationEntry, unavailable: ReadonlyMap<string, UnavailableTool>): UnavailableCall[] {
  if (item.role !== 'assistant' || !item.tool_calls?.length || unavailable.size === 0) return []
  const found: UnavailableCall[] = []
  for (const call of item.tool_calls) {
    const name = call.type === 'function' ? call.function.name : call.custom.name
    const tool = unavailable.get(name)
    if (!tool) continue
    const error = toolUnavailable(agentId, { id: call.id, name }, tool.owner, tool.reason)
    found.push({ call: { id: call.id, name }, error, result: { role: 'tool', tool_call_id: call.id, name, content: `${error.code}: ${error.message}` } })
  }
  return found
}

/** The owner of each tool of an assembly: the registration behind it (the `tools` service's view), else the assembly's notes. */
export function toolOwners(origin: ReadonlyMap<string, { readonly owner: string }> | undefined, assembly: PromptAssembly): (name: string) => string | null {
  const notes = assemblyNotes(assembly)
  return (name) => origin?.get(name)?.owner ?? notes?.tools.owners.get(name) ?? null
}
