/**
 * Replies in, in every format: `readReply(format, reply)` reads a provider reply into what the record
 * keeps, and `replyAccumulator(format)` turns the provider's stream events into the reply the same
 * call returns unstreamed (so a streamed reply records byte for byte as the unstreamed one). One reader
 * and one accumulator per format, each in its own file with a plain signature.
 * Pure and Cordis-free.
 * @module
 */
import { unknownFormat } from '../errors.js'
import type { UsageFormat } from '../usage.js'
import { anthropicReplyAccumulator, readAnthropicReply, type AnthropicReply } from './anthropic-reply.js'
import { geminiReplyAccumulator, readGeminiReply, type GeminiReply } from './gemini-reply.js'
import { chatReplyAccumulator, readChatReply, type ChatReply } from './openai-chat-reply.js'
import { readResponsesReply, responsesReplyAccumulator, type ResponsesReply } from './openai-responses-reply.js'
import type { ReadReply, ReadReplyOptions, ReplyAccumulator } from './reply.js'

/** Each format's reply, as its reader reads it and its accumulator makes it. */
export interface Replies {
  'openai-chat': ChatReply
  'openai-responses': ResponsesReply
  anthropic: AnthropicReply
  gemini: GeminiReply
}

/** A format whose replies dsh reads. */
export type ReplyFormat = keyof Replies

const READERS: { readonly [F in ReplyFormat]: { read(reply: unknown, options?: ReadReplyOptions): ReadReply; accumulator(): ReplyAccumulator<Replies[F]>; is(value: Record<string, unknown>): boolean } } = {
  'openai-chat': { read: readChatReply, accumulator: chatReplyAccumulator, is: (value) => Array.isArray(value.choices) },
  'openai-responses': { read: readResponsesReply, accumulator: responsesReplyAccumulator, is: (value) => Array.isArray(value.output) },
  anthropic: { read: readAnthropicReply, accumulator: anthropicReplyAccumulator, is: (value) => value.type === 'message' || Array.isArray(value.content) },
  gemini: { read: readGeminiReply, accumulator: geminiReplyAccumulator, is: (value) => Array.isArray(value.candidates) },
}

/** Every format whose replies dsh reads. */
export const REPLY_FORMATS = Object.freeze(Object.keys(READERS)) as readonly ReplyFormat[]

function readerOf(format: ReplyFormat) {
  if (!Object.hasOwn(READERS, format)) throw unknownFormat(format, REPLY_FORMATS)
  return READERS[format]
}

/**
 * The record's reply for a provider reply of `format` (a chat completion, a Response, a Message, a
 * GenerateContentResponse). Throws `WIRE_INVALID_REPLY` for a reply not of the format's shape and
 * `WIRE_UNSUPPORTED_REPLY_ITEM` for an item the record cannot keep, naming its path.
 */
export function readReply(format: ReplyFormat, reply: unknown, options: ReadReplyOptions = {}): ReadReply {
  return readerOf(format).read(reply, options)
}

/** A fresh accumulator of `format`'s stream events; `result()` is the reply `readReply` reads. */
export function replyAccumulator<F extends ReplyFormat>(format: F): ReplyAccumulator<Replies[F]> {
  return readerOf(format).accumulator() as ReplyAccumulator<Replies[F]>
}

/** The usage shapes that come in a chat completion from another provider, read by the `openai-chat` reader. */
const CHAT_USAGE: readonly UsageFormat[] = ['deepseek', 'openrouter']

/**
 * The reply format whose reader reads `value` given as a reply of `format` (a usage format names the
 * chat reader for `deepseek` and `openrouter`), or `undefined` when `value` is not a whole provider reply
 * of it (such as a chat message, which the record takes as it is).
 */
export function replyFormatOf(format: UsageFormat, value: unknown): ReplyFormat | undefined {
  const reply: ReplyFormat | undefined = CHAT_USAGE.includes(format) ? 'openai-chat' : Object.hasOwn(READERS, format) ? format as ReplyFormat : undefined
  if (reply === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return READERS[reply].is(value as Record<string, unknown>) ? reply : undefined
}
