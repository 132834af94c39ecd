/**
 * The conversation record (R-CONV-4) as every wire format reads it: entries with a `role`, their
 * content and where they came from. Pure and Cordis-free. The entry shapes are OpenAI chat messages
 * (the format the record was first written for); the other formats lower them in their own files.
 * @module
 */
import { invalidToolArguments } from './errors.js'
import type { ContentPart, ReplyPart } from './parts.js'
import type { ProviderMiss } from './provider-miss.js'
import type { Usage } from './usage.js'

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
  /**
   * A compaction's re-anchor (dsh-agent): the text sent in place of this version, which updates the kept
   * opening to `content` by naming only what changed. Never on an opening; `content` stays the version.
   */
  reanchor?: string
}

/** User input or a runtime-context snapshot, as sent. */
export interface UserMessage {
  role: 'user'
  content: string
  /** User input's text, images and documents in order, when it holds more than text (`content`: its text). */
  parts?: ContentPart[]
  /**
   * On a tool-change note (dsh-agent): the tools it offers from here on through the format's append path
   * (`tool-append.ts`). A format with one sends them after the note; another sends the note alone.
   */
  toolAdditions?: WireTool[]
}

/** The model's reply: text, tool calls, or both. */
export interface AssistantMessage {
  role: 'assistant'
  content: string | null
  tool_calls?: ToolCall[]
  /**
   * The reply in the provider's order, when it holds more than one text followed by tool calls: text,
   * tool calls (by id), reasoning state, images. `content` is its text joined, `tool_calls` its calls.
   */
  parts?: ReplyPart[]
}

/** A tool result for the call `tool_call_id`. */
export interface ToolMessage {
  role: 'tool'
  content: string
  tool_call_id: string
  name?: string
  /** Text, images and documents in order, when the result holds more than text (`content`: its text). */
  parts?: ContentPart[]
}

/**
 * A chat-completions message as sent: a union told apart by `role`, so a request is assignable to the
 * official SDK's request type (`ChatCompletionCreateParamsNonStreaming` of `openai`) without a cast.
 */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/**
 * One entry of the append-only record: the message plus where it came from, and for a model reply the
 * normalised usage the harness reported with it (`agent.record(reply, { usage })`). Frozen.
 */
export type ConversationEntry = ChatMessage & { readonly source: EntrySource; readonly usage?: Usage; readonly reply?: ReplyFacts }

/**
 * What the provider said about a reply, kept on its entry (and in the ledger) for the diagnostics
 * bridge: the reply's id in its format (what the next request of that format names) and the provider's
 * diagnosis of the request that got it, when it gave one. Never sent.
 */
export interface ReplyFacts {
  readonly id: string
  /** The reply format the id belongs to (`anthropic`, `openai-responses`, ...). */
  readonly format: string
  readonly miss?: ProviderMiss
}

/** How a changed system prompt enters the requests. */
export type PromptChangePolicy = 'append' | 'replace'

/** A tool offered to the model: the fields every format needs (a `ToolSchema` of dsh-system-prompt fits). */
export interface WireTool {
  name: string
  description?: string
  /** JSON Schema of the parameters (an object schema). */
  parameters?: Record<string, unknown>
}

/** A frozen conversation entry. */
export function entry<M extends ChatMessage>(message: M, source: EntrySource, usage?: Usage, reply?: ReplyFacts): ConversationEntry {
  const made: Record<string, unknown> = usage === undefined ? { ...message, source } : { ...message, source, usage: Object.freeze({ ...usage }) }
  if (reply !== undefined) made.reply = Object.freeze({ ...reply, ...(reply.miss ? { miss: Object.freeze({ ...reply.miss }) } : {}) })
  return Object.freeze(made) as unknown as ConversationEntry
}

/**
 * Where one entry goes in a request (R-WIRE-3), given what the request holds so far: `opening` (the
 * system prompt at the head), `rest` (everything after it, in record order), `clear-opening` (under
 * `replace`: a cleared prompt leaves the head empty) or `skip`. `append`: every entry, except system-
 * prompt entries up to the latest clear (`beforeClear`) and the clear markers; the first entry sent is
 * the opening when it is a system prompt. `replace`: the latest system prompt is the opening, every
 * other entry follows. The one rule, read by `sentEntries` for a whole record and by a wire session
 * entry by entry.
 */
export function placeEntry(
  item: ConversationEntry, policy: PromptChangePolicy, sent: { opening: boolean; rest: number }, beforeClear: boolean,
): 'opening' | 'clear-opening' | 'rest' | 'skip' {
  if (item.source !== 'system-prompt') return 'rest'
  if (policy === 'replace') return item.content ? 'opening' : 'clear-opening'
  if (beforeClear || !item.content) return 'skip'
  return !sent.opening && sent.rest === 0 ? 'opening' : 'rest'
}

/** The index of the latest clear of the system prompt in `record` (`-1` for none): under `append`, nothing before it is sent. */
export function latestClear(record: readonly ConversationEntry[]): number {
  for (let i = record.length - 1; i >= 0; i--) if (record[i].source === 'system-prompt' && !record[i].content) return i
  return -1
}

/**
 * The entries a request carries under `policy`, in order (R-WIRE-3): the opening system prompt (if
 * any) first, then the rest, each placed by `placeEntry`. Every format starts from this list (a wire
 * session, entry by entry), so the policy rule lives in `placeEntry` once.
 */
export function sentEntries(record: readonly ConversationEntry[], policy: PromptChangePolicy): ConversationEntry[] {
  const clearedAt = policy === 'append' ? latestClear(record) : -1
  let opening: ConversationEntry | undefined
  const rest: ConversationEntry[] = []
  record.forEach((item, i) => {
    const place = placeEntry(item, policy, { opening: opening !== undefined, rest: rest.length }, i <= clearedAt)
    if (place === 'opening') opening = item
    else if (place === 'clear-opening') opening = undefined
    else if (place === 'rest') rest.push(item)
  })
  return opening ? [opening, ...rest] : rest
}

/**
 * The first line of a user-role message that carries a new system-prompt version, in formats that
 * accept no system message after the conversation has started (Anthropic, Gemini). Fixed, so the model
 * (and a reader of the request) can tell it from user input; the complete new version follows it after
 * one blank line.
 */
export const SYSTEM_PROMPT_UPDATE_MARKER = '[system prompt updated: the instructions below replace all earlier system instructions]'

/** The user-role text that carries a system-prompt version appended mid-conversation. */
export function systemUpdateText(system: string): string {
  return `${SYSTEM_PROMPT_UPDATE_MARKER}\n\n${system}`
}

/** A text that starts with the marker, after any number of backslashes (the texts {@link userText} escapes). */
const POSES_AS_UPDATE = new RegExp(`^\\\\*${SYSTEM_PROMPT_UPDATE_MARKER.replace(/[[\]\\^$.|?*+(){}]/g, '\\$&')}`)

/**
 * The text of user input or a runtime-context snapshot in a user-role message of a format that carries
 * system-prompt versions as user messages (Anthropic, Gemini), so it can never pose as one: a text that
 * starts with `SYSTEM_PROMPT_UPDATE_MARKER`, after any number of backslashes, is sent with one more
 * backslash in front. Only a genuine version starts with the marker itself, and every other text is
 * sent unchanged (the escape is reversible: drop one leading backslash).
 */
export function userText(text: string): string {
  return POSES_AS_UPDATE.test(text) ? `\\${text}` : text
}

/** The last entry from `source`, if any. */
export function lastOf(record: readonly ConversationEntry[], source: EntrySource): ConversationEntry | undefined {
  for (let i = record.length - 1; i >= 0; i--) if (record[i].source === source) return record[i]
}

/** A recorded call's `arguments` as the JSON object formats that send them parsed need. */
export function parseArguments(format: string, callId: string, text: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text)
  } catch (error) {
    throw invalidToolArguments(format, callId, (error as Error).message)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidToolArguments(format, callId, `received ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}`)
  }
  return parsed as Record<string, unknown>
}
