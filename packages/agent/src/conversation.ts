/**
 * What one step adds to the conversation record (R-CONV-4). Pure and Cordis-free. The record's types
 * and every lowering of it to a request body live in `dsh-wire`; this module re-exports the types
 * dsh-agent has always exported.
 *
 * The record is append-only. System-prompt versions and runtime-context snapshots are recorded only
 * when their text changed; an empty system-prompt entry records that the instructions were cleared
 * (it is never sent, and it hides every earlier system-prompt entry from later requests).
 * @module
 */
import { RUNTIME_CONTEXT_NONE } from 'dsh-system-prompt'
import { entry, lastOf, type ContentPart, type ConversationEntry } from 'dsh-wire'

export type {
  AssistantMessage, ChatMessage, ConversationEntry, CustomToolCall, EntrySource, FunctionToolCall, PromptChangePolicy, SystemMessage, ToolCall,
  ToolMessage, UserMessage,
} from 'dsh-wire'

/** User input with images or documents: its content parts, and their text joined as `content`. */
export interface UserInput { content: string; parts: ContentPart[] }

/**
 * Computes what one step adds to the record for the rendered `system` prompt, optional user `input` (text, or content parts with their text) and
 * rendered `snapshot` (`''` when no context has text), given what was recorded before (`latest`: its
 * latest system-prompt and runtime-context entries, when the caller keeps them). Returns new frozen
 * entries; recording nothing is an empty array.
 */
export function stepEntries(
  previous: readonly ConversationEntry[], system: string, input: string | UserInput | undefined, snapshot: string,
  latest: { system?: ConversationEntry; snapshot?: ConversationEntry } = { system: lastOf(previous, 'system-prompt'), snapshot: lastOf(previous, 'runtime-context') },
): ConversationEntry[] {
  const added: ConversationEntry[] = []
  const lastSystem = latest.system
  if (lastSystem === undefined ? system !== '' : lastSystem.content !== system) {
    added.push(entry({ role: 'system', content: system }, 'system-prompt'))
  }
  if (typeof input === 'string') added.push(entry({ role: 'user', content: input }, 'user'))
  else if (input !== undefined) added.push(entry({ role: 'user', content: input.content, parts: input.parts }, 'user'))
  const lastSnapshot = latest.snapshot?.content
  if (snapshot) {
    if (snapshot !== lastSnapshot) added.push(entry({ role: 'user', content: snapshot }, 'runtime-context'))
  } else if (lastSnapshot !== undefined && lastSnapshot !== RUNTIME_CONTEXT_NONE) {
    added.push(entry({ role: 'user', content: RUNTIME_CONTEXT_NONE }, 'runtime-context'))
  }
  return added
}
