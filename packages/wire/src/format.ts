/**
 * The wire formats by name, and `buildRequest(format, input)` which picks one.
 * @module
 */
import { anthropicRequest, type AnthropicRequest } from './anthropic.js'
import { unknownFormat } from './errors.js'
import { geminiRequest, type GeminiRequest } from './gemini.js'
import type { WireInput } from './input.js'
import { openaiChatRequest, type ChatRequest } from './openai-chat.js'
import { openaiResponsesRequest, type ResponsesRequest } from './openai-responses.js'

/** Each format's request body type, by format name. */
export interface RequestBodies {
  'openai-chat': ChatRequest
  'openai-responses': ResponsesRequest
  anthropic: AnthropicRequest
  gemini: GeminiRequest
}

/** A wire format's name. */
export type WireFormat = keyof RequestBodies

/** The request body of format `F`. */
export type RequestBody<F extends WireFormat = WireFormat> = RequestBodies[F]

const builders: { [F in WireFormat]: (input: WireInput) => RequestBodies[F] } = {
  'openai-chat': openaiChatRequest,
  'openai-responses': openaiResponsesRequest,
  anthropic: anthropicRequest,
  gemini: geminiRequest,
}

/** Every wire format's name. */
export const WIRE_FORMATS = Object.freeze(Object.keys(builders)) as readonly WireFormat[]

/** The request body of `format` for `input`. Throws `WIRE_UNKNOWN_FORMAT` for another name. */
export function buildRequest<F extends WireFormat>(format: F, input: WireInput): RequestBodies[F] {
  if (!Object.hasOwn(builders, format)) throw unknownFormat(format, WIRE_FORMATS)
  return builders[format](input)
}
