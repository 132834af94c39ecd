/**
 * The by-name entry points: a request body built whole (`buildRequest`, one builder per built-in
 * format) and the cache stream of a body. Each is a fresh `WireSession`'s first build, or the format
 * module's stream parts, so there is one lowering, whether a request is built once or step by step.
 * @module
 */
import type { AnthropicRequest } from './anthropic.js'
import type { CacheStream, StreamPart } from './cache-stream.js'
import { headOf, streamOf } from './format-stream.js'
import { wireFormat, type RequestBodies, type WireFormat } from './format.js'
import type { GeminiRequest } from './gemini.js'
import type { WireInput } from './input.js'
import type { ChatRequest } from './openai-chat.js'
import type { ResponsesRequest } from './openai-responses.js'
import { WireSession } from './session.js'

/** The request body of `format` for `input`. Throws `WIRE_UNKNOWN_FORMAT` for a name not registered. */
export function buildRequest<F extends WireFormat>(format: F, input: WireInput): RequestBodies[F] {
  return new WireSession(format).build(input).request
}

/** The `openai-chat` body for `input`. */
export function openaiChatRequest(input: WireInput): ChatRequest {
  return buildRequest('openai-chat', input)
}

/** The `openai-responses` body for `input`. */
export function openaiResponsesRequest(input: WireInput): ResponsesRequest {
  return buildRequest('openai-responses', input)
}

/** The `anthropic` body for `input`, with its breakpoints planned (unless `breakpoints: false`). */
export function anthropicRequest(input: WireInput): AnthropicRequest {
  return buildRequest('anthropic', input)
}

/** The `gemini` body for `input`. */
export function geminiRequest(input: WireInput): GeminiRequest {
  return buildRequest('gemini', input)
}

/** The cache stream of `body`, a request of `format`. */
export function cacheStream<F extends WireFormat>(format: F, body: RequestBodies[F]): CacheStream {
  return streamOf(wireFormat(format), body)
}

/** The parts of `body` before its element list: the model, then the system prompt and the tools in hashing order. */
export function streamHead<F extends WireFormat>(format: F, body: RequestBodies[F]): StreamPart[] {
  return headOf(wireFormat(format), body)
}

/** The HTTP headers `body`, a request of `format`, needs beside the body (a beta header an append path calls for, R-TOOL-13); `{}` for none. */
export function requestHeaders<F extends WireFormat>(format: F, body: RequestBodies[F]): Readonly<Record<string, string>> {
  return wireFormat(format).headers?.(body) ?? NO_HEADERS
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({})
