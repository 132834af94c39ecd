/**
 * The content parts of the record (issue 19): what an entry holds besides plain text and tool calls,
 * in the order the provider gave it. An assistant entry's `parts` keep a reply's order of text, tool
 * calls, reasoning state and images; user input's and a tool result's `parts` keep text, images and
 * documents. `content` stays the entry's text (its text parts joined) and `tool_calls` its calls, so
 * every reader of the record that wants text still finds it there.
 *
 * Reasoning state belongs to the format that made it: an Anthropic thinking block is verified by
 * Anthropic alone, a Responses reasoning item by OpenAI alone, a Gemini thought signature by Gemini
 * alone. Each format sends back its own reasoning parts, unchanged and in place, and leaves out another
 * format's (no other provider can read them). Images and documents are sent by every format that can
 * carry them where they are, and refused (`WIRE_UNSUPPORTED_PART`) where it cannot.
 * Pure and Cordis-free.
 * @module
 */
import { unsupportedPart } from './errors.js'

/** Text, in order with the other parts. `thoughtSignature`: Gemini's signature of this part, sent back by `gemini` only. */
export interface TextPart { type: 'text'; text: string; thoughtSignature?: string }

/** Where a tool call of `tool_calls` (by `id`) sits among the parts. `thoughtSignature`: as on a text part. */
export interface ToolCallPart { type: 'tool_call'; id: string; thoughtSignature?: string }

/** An image, base64-encoded (`mediaType` such as `image/png`). */
export interface ImagePart { type: 'image'; mediaType: string; data: string }

/** A document (a PDF, `application/pdf`), base64-encoded, with an optional file name. */
export interface DocumentPart { type: 'document'; mediaType: string; data: string; name?: string }

/** An Anthropic `thinking` block, its `signature` as the API returned it. */
export interface AnthropicThinkingBlock { type: 'thinking'; thinking: string; signature: string }
/** An Anthropic `redacted_thinking` block (encrypted thinking). */
export interface AnthropicRedactedThinkingBlock { type: 'redacted_thinking'; data: string }
/** A Responses API `reasoning` item: `id`, the summary, and `encrypted_content` when the request asked for it (`store: false`). */
export interface ResponsesReasoningItem {
  type: 'reasoning'
  id: string
  summary: { type: 'summary_text'; text: string }[]
  content?: { type: 'reasoning_text'; text: string }[]
  encrypted_content?: string | null
}
/** A Gemini thought part (`thought: true`: a thought summary), with its `thoughtSignature` when it has one. */
export interface GeminiThoughtPart { text: string; thought: true; thoughtSignature?: string }

/** Reasoning state of one format, kept as that format's own item. */
export type ReasoningPart =
  | { type: 'reasoning'; format: 'anthropic'; item: AnthropicThinkingBlock | AnthropicRedactedThinkingBlock }
  | { type: 'reasoning'; format: 'openai-responses'; item: ResponsesReasoningItem }
  | { type: 'reasoning'; format: 'gemini'; item: GeminiThoughtPart }

/** The formats that have reasoning state of their own. */
export const REASONING_FORMATS = ['anthropic', 'openai-responses', 'gemini'] as const

/** A part of user input or a tool result. */
export type ContentPart = TextPart | ImagePart | DocumentPart

/** A part of a model reply. */
export type ReplyPart = TextPart | ToolCallPart | ImagePart | ReasoningPart

/** An image or document as a `data:` URL (what the OpenAI formats take). */
export function dataUrl(part: ImagePart | DocumentPart): string {
  return `data:${part.mediaType};base64,${part.data}`
}

/**
 * The parts of a reply that `format` sends back, in order: its own reasoning, every text and tool call,
 * images where `images` says the format carries them in a reply (else `WIRE_UNSUPPORTED_PART`).
 */
export function sentReplyParts(format: string, parts: readonly ReplyPart[], images: boolean): ReplyPart[] {
  const sent: ReplyPart[] = []
  for (const part of parts) {
    if (part.type === 'reasoning' && part.format !== format) continue
    if (part.type === 'image' && !images) throw unsupportedPart(format, 'assistant', part.type)
    sent.push(part)
  }
  return sent
}

/** Refuses the media parts of a tool result that `format` cannot carry there (`WIRE_UNSUPPORTED_PART`). */
export function checkMedia(format: string, role: 'tool', parts: readonly ContentPart[], carries: readonly ('image' | 'document')[]): void {
  for (const part of parts) if (part.type !== 'text' && !carries.includes(part.type)) throw unsupportedPart(format, role, part.type)
}
