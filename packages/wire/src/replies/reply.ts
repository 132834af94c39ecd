/**
 * What a reply reader makes of a provider reply: the assistant message the record keeps (text, tool
 * calls and, when the reply holds more, its parts in order) and the reply's normalised usage. Every
 * format's reader builds the message with `replyMessage`, so the rule for when `parts` are kept is one
 * rule. Pure and Cordis-free.
 * @module
 */
import { invalidReply } from '../errors.js'
import type { ImagePart, ReasoningPart, ReplyPart } from '../parts.js'
import type { AssistantMessage, ToolCall } from '../record.js'
import type { ProviderMiss } from '../provider-miss.js'
import type { Usage, UsageFormat } from '../usage.js'

/** A reply as the record keeps it. */
export interface ReadReply {
  /** The assistant message `agent.record()` takes (`parts` only when the reply holds more than text then calls). */
  message: AssistantMessage
  /** The reply's usage, normalised; absent when the reply reports none. */
  usage?: Usage
  /** The provider's id of the reply (`msg_...`, `resp_...`): what the next request's diagnostics field names. */
  id?: string
  /** The provider's diagnosis of the request's cache use, when it gave one (`provider-miss.ts`). */
  miss?: ProviderMiss
}

/** Options of a reply reader. */
export interface ReadReplyOptions {
  /**
   * Gemini: the number of replies recorded before this one. A function call without an `id` gets
   * `gemini-<turn>-<n>` (its position among the reply's calls), unique within a record and the same
   * whenever the reply is read again.
   */
  turn?: number
  /** The shape of the reply's usage, when another provider reports it in this format (`deepseek`, `openrouter` for `openai-chat`). */
  usage?: UsageFormat
  /**
   * The request asked the provider to compare it with an earlier one (the diagnostics bridge): an
   * Anthropic reply without `diagnostics` then says nothing diverged (`class: 'hit'`).
   */
  diagnosed?: boolean
}

/** Turns a provider's stream events, pushed in order, into the reply the same call would have returned unstreamed. */
export interface ReplyAccumulator<R = unknown> {
  /** Takes the next stream event (a parsed SSE `data` object, or an SDK stream's item). */
  push(event: unknown): void
  /** The reply as the provider returns it unstreamed, from the events pushed so far. */
  result(): R
}

/** A piece of a reply in order: its text, a tool call, reasoning state or an image. */
export type ReplyPiece = { type: 'text'; text: string; thoughtSignature?: string } | { type: 'tool_call'; call: ToolCall; thoughtSignature?: string } | ImagePart | ReasoningPart

/**
 * The assistant message of a reply's pieces: `content` the text joined (`null` when the reply has tool
 * calls and no text, `''` when it has nothing), `tool_calls` the calls, and `parts` every piece in order
 * unless the reply is one text followed by tool calls, with no signature (a record that needs no parts
 * keeps none, so it reads and exports as it always did).
 */
export function replyMessage(pieces: readonly ReplyPiece[]): AssistantMessage {
  const texts = pieces.filter((piece) => piece.type === 'text')
  const calls = pieces.flatMap((piece) => (piece.type === 'tool_call' ? [piece.call] : []))
  const content = texts.length ? texts.map((piece) => piece.text).join('') : calls.length || pieces.length ? null : ''
  const message: AssistantMessage = { role: 'assistant', content }
  if (calls.length) message.tool_calls = calls
  const plain = pieces.every((piece, i) => (piece.type === 'text' ? i === 0 : piece.type === 'tool_call') && !('thoughtSignature' in piece && piece.thoughtSignature !== undefined))
  if (!plain) {
    message.parts = pieces.map((piece): ReplyPart => {
      if (piece.type !== 'tool_call') return piece
      return piece.thoughtSignature === undefined ? { type: 'tool_call', id: piece.call.id } : { type: 'tool_call', id: piece.call.id, thoughtSignature: piece.thoughtSignature }
    })
  }
  return message
}

/** Reads `value` as an object, or throws `WIRE_INVALID_REPLY` naming `path`. */
export function objectAt(format: string, value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidReply(format, path, 'must be an object')
  return value as Record<string, unknown>
}

/** Reads `value` as an array, or throws `WIRE_INVALID_REPLY` naming `path`. */
export function arrayAt(format: string, value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw invalidReply(format, path, 'must be an array')
  return value
}

/** Reads `value` as a string, or throws `WIRE_INVALID_REPLY` naming `path`. */
export function stringAt(format: string, value: unknown, path: string): string {
  if (typeof value !== 'string') throw invalidReply(format, path, 'must be a string')
  return value
}
