/**
 * The wire formats, in one table: each is a module (`WireFormatModule`), registered by name. The four
 * built-in ones are registered here; a harness or a test adds its own with `registerWireFormat`, which
 * returns the disposer that takes it out again. The table is module-wide, like the formats' names it
 * holds: one name is one format in the whole process (a second registration of a name is refused), and
 * a registration lasts until its disposer runs.
 * @module
 */
import { anthropicFormat, type AnthropicRequest } from './anthropic.js'
import { duplicateFormat, unknownFormat } from './errors.js'
import type { WireFormatModule } from './format-module.js'
import { geminiFormat, type GeminiRequest } from './gemini.js'
import { openaiChatFormat, type ChatRequest } from './openai-chat.js'
import { openaiResponsesFormat, type ResponsesRequest } from './openai-responses.js'

/**
 * Each format's request body type, by format name. A module that registers another format adds its
 * body here (`declare module 'dsh-wire' { interface RequestBodies { 'my-format': MyBody } }`).
 */
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

const table = new Map<string, WireFormatModule<never>>()

/** Adds `module` to the table; returns the disposer that removes it. Throws `WIRE_DUPLICATE_FORMAT` for a name already there. */
export function registerWireFormat<F extends WireFormat>(module: WireFormatModule<RequestBodies[F]> & { readonly name: F }): () => void {
  if (table.has(module.name)) throw duplicateFormat(module.name)
  const held = module as unknown as WireFormatModule<never>
  table.set(module.name, held)
  return () => {
    if (table.get(module.name) === held) table.delete(module.name)
  }
}

for (const module of [openaiChatFormat, openaiResponsesFormat, anthropicFormat, geminiFormat]) table.set(module.name, module as unknown as WireFormatModule<never>)

/** The built-in wire formats' names. */
export const WIRE_FORMATS = Object.freeze([...table.keys()]) as readonly WireFormat[]

/** Every registered format's name, built-in ones first. */
export function wireFormatNames(): WireFormat[] {
  return [...table.keys()] as WireFormat[]
}

/** The module of `format`. Throws `WIRE_UNKNOWN_FORMAT` for a name not registered. */
export function wireFormat<F extends WireFormat>(format: F): WireFormatModule<RequestBodies[F]> {
  const module = typeof format === 'string' ? table.get(format) : undefined
  if (module === undefined) throw unknownFormat(format, wireFormatNames())
  return module as unknown as WireFormatModule<RequestBodies[F]>
}
