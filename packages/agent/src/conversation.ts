/**
 * The conversation record (SPEC §10) and the request messages built from it. Pure and Cordis-free.
 *
 * The record is append-only. System-prompt versions and runtime-context snapshots are recorded only
 * when their text changed; an empty system-prompt entry records that the instructions were cleared
 * (it is never sent, and it hides every earlier system-prompt entry from later requests).
 * @module
 */
import { RUNTIME_CONTEXT_NONE } from 'dsh-system-prompt'

/** Where a conversation entry came from. */
export type EntrySource = 'system-prompt' | 'runtime-context' | 'user' | 'assistant' | 'tool'

/** A function tool call the model made (OpenAI-compatible). */
export interface FunctionToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** A custom (free-form input) tool call, as the OpenAI SDK types one; recorded and sent back as it came. */
export interface CustomToolCall {
  id: string
  type: 'custom'
  custom: { name: string; input: string }
}

/** A tool call the model made. */
export type ToolCall = FunctionToolCall | CustomToolCall

/** The system prompt (or a version of it appended later), as sent. */
export interface SystemMessage {
  role: 'system'
  content: string
}

/** User input or a runtime-context snapshot, as sent. */
export interface UserMessage {
  role: 'user'
  content: string
}

/** The model's reply: text, tool calls, or both. */
export interface AssistantMessage {
  role: 'assistant'
  content: string | null
  tool_calls?: ToolCall[]
}

/** A tool result for the call `tool_call_id`. */
export interface ToolMessage {
  role: 'tool'
  content: string
  tool_call_id: string
  name?: string
}

/**
 * A chat-completions message as sent: a union told apart by `role`, so a request is assignable to the
 * official SDK's request type (`ChatCompletionCreateParamsNonStreaming` of `openai`) without a cast.
 */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/** One entry of the append-only record: the message plus where it came from. Frozen. */
export type ConversationEntry = ChatMessage & { readonly source: EntrySource }

/** How a changed system prompt enters the requests. */
export type PromptChangePolicy = 'append' | 'replace'

/**
 * Computes what one step adds to the record for the rendered `system` prompt, optional user `input` and
 * rendered `snapshot` (`''` when no context has text), given what was recorded before. Returns new
 * frozen entries; recording nothing is an empty array.
 */
export function stepEntries(
  previous: readonly ConversationEntry[], system: string, input: string | undefined, snapshot: string,
): ConversationEntry[] {
  const added: ConversationEntry[] = []
  const lastSystem = lastOf(previous, 'system-prompt')
  if (lastSystem === undefined ? system !== '' : lastSystem.content !== system) {
    added.push(entry({ role: 'system', content: system }, 'system-prompt'))
  }
  if (input !== undefined) added.push(entry({ role: 'user', content: input }, 'user'))
  const lastSnapshot = lastOf(previous, 'runtime-context')?.content
  if (snapshot) {
    if (snapshot !== lastSnapshot) added.push(entry({ role: 'user', content: snapshot }, 'runtime-context'))
  } else if (lastSnapshot !== undefined && lastSnapshot !== RUNTIME_CONTEXT_NONE) {
    added.push(entry({ role: 'user', content: RUNTIME_CONTEXT_NONE }, 'runtime-context'))
  }
  return added
}

/**
 * The request messages for a record. `append`: every entry in order, except system-prompt entries
 * before the latest clear (and the clear markers themselves). `replace`: the latest system prompt (if
 * it has text) at the head, then every other entry in order.
 */
export function buildMessages(record: readonly ConversationEntry[], policy: PromptChangePolicy): ChatMessage[] {
  const messages: ChatMessage[] = []
  if (policy === 'replace') {
    const latest = lastOf(record, 'system-prompt')
    if (latest?.content) messages.push(wire(latest))
    for (const item of record) if (item.source !== 'system-prompt') messages.push(wire(item))
    return messages
  }
  let clearedAt = -1
  for (let i = record.length - 1; i >= 0; i--) {
    if (record[i].source === 'system-prompt' && !record[i].content) { clearedAt = i; break }
  }
  for (let i = 0; i < record.length; i++) {
    const item = record[i]
    if (item.source === 'system-prompt' && (i <= clearedAt || !item.content)) continue
    messages.push(wire(item))
  }
  return messages
}

/** A frozen conversation entry. */
export function entry<M extends ChatMessage>(message: M, source: EntrySource): ConversationEntry {
  return Object.freeze({ ...message, source }) as unknown as ConversationEntry
}

const wires = new WeakMap<ConversationEntry, ChatMessage>()

/** The wire message of an entry (without `source`), built once per entry and shared (frozen). */
function wire(item: ConversationEntry): ChatMessage {
  let message = wires.get(item)
  if (!message) {
    const { source: _source, ...rest } = item
    message = Object.freeze(rest) as ChatMessage
    wires.set(item, message)
  }
  return message
}

function lastOf(record: readonly ConversationEntry[], source: EntrySource): ConversationEntry | undefined {
  for (let i = record.length - 1; i >= 0; i--) if (record[i].source === source) return record[i]
}
