/**
 * A request's extra body fields: what the provider's own API takes besides what dsh lowers (streaming,
 * storage, retention, routing keys, sampling settings, ...). Each format names the fields dsh owns
 * (`WireFormatModule.ownedFields`: the model, the element list, the system prompt, the tools); every
 * other field the caller gives is merged into the body after them, in the order given, so the body
 * stays `JSON.stringify(request)` and is still extended step by step (the session serialises each
 * top-level field once and keeps it while it serialises the same). A field nested in an owned-by-part
 * object (`gemini`'s `config`) is merged into that object. Pure and Cordis-free.
 *
 * The types below are written here, not imported from the provider SDKs (dsh-wire depends on none of
 * them): each names the fields its format documents by name and lets any other field through, and
 * `tests/sdk-types.test-d.ts` checks them against the official SDK types (openai 6, @anthropic-ai/sdk 1,
 * @google/genai 2).
 * @module
 */
import { ownedField } from './errors.js'
import type { WireFormatModule } from './format-module.js'

/** Fields dsh sets itself in every format: never given as an extra field. */
interface Owned { model?: never }

/** Extra fields of an `openai-chat` body (chat completions). */
export interface ChatFields extends Owned {
  messages?: never
  tools?: never
  stream?: boolean | null
  stream_options?: { include_usage?: boolean; include_obfuscation?: boolean } | null
  store?: boolean | null
  /** Routes requests that share a prefix to the same cache (dsh sends none by default in this format). */
  prompt_cache_key?: string | null
  prompt_cache_retention?: 'in_memory' | '24h' | null
  max_completion_tokens?: number | null
  temperature?: number | null
  [field: string]: unknown
}

/** Extra fields of an `openai-responses` body. */
export interface ResponsesFields extends Owned {
  input?: never
  instructions?: never
  tools?: never
  stream?: boolean | null
  /** Whether OpenAI keeps the response (its default: kept); dsh sends the whole input either way. */
  store?: boolean | null
  include?: string[] | null
  /** Overrides the conversation id dsh sends as `prompt_cache_key`. */
  prompt_cache_key?: string | null
  prompt_cache_retention?: 'in_memory' | '24h' | null
  max_output_tokens?: number | null
  /** Prompt cache diagnostics (the diagnostics bridge sets it from the previous reply's id). */
  prompt_cache_options?: object | null
  [field: string]: unknown
}

/** Extra fields of an `anthropic` body (the Messages API). */
export interface AnthropicFields extends Owned {
  messages?: never
  system?: never
  tools?: never
  stream?: boolean
  /** Overrides `maxTokens`. */
  max_tokens?: number
  /** Cache diagnostics (the diagnostics bridge sets it from the previous reply's id). */
  diagnostics?: { previous_message_id?: string | null } | null
  temperature?: number
  [field: string]: unknown
}

/** Extra fields of a `gemini` request (`config` is merged into dsh's own `config`, whose `systemInstruction` and `tools` dsh sets). */
export interface GeminiFields extends Owned {
  contents?: never
  config?: { systemInstruction?: never; tools?: never; [field: string]: unknown }
  [field: string]: unknown
}

/**
 * Each format's extra fields, by format name. A module that registers another format adds its own
 * (`declare module 'dsh-wire' { interface RequestFieldsOf { 'my-format': MyFields } }`); a format
 * without an entry takes any field but the ones it owns.
 */
export interface RequestFieldsOf {
  'openai-chat': ChatFields
  'openai-responses': ResponsesFields
  anthropic: AnthropicFields
  gemini: GeminiFields
}

/** The extra fields of format `F`. */
export type RequestFields<F extends string> = F extends keyof RequestFieldsOf ? RequestFieldsOf[F] : Readonly<Record<string, unknown>>

/**
 * `body` with `fields` merged in (the same object, changed): each field after dsh's own, in the order
 * given; `undefined` values are skipped (as `JSON.stringify` skips them). A field the format owns is
 * refused with `WIRE_OWNED_FIELD`, naming it, so an extra field can never change what dsh lowered.
 */
export function withFields<B extends object>(module: Pick<WireFormatModule, 'name' | 'ownedFields' | 'elementsKey'>, body: B, fields: Readonly<Record<string, unknown>> | undefined): B {
  if (fields === undefined) return body
  const target = body as Record<string, unknown>
  const owned = module.ownedFields ?? ['model', module.elementsKey]
  for (const name of Object.keys(fields)) {
    const value = fields[name]
    if (value === undefined) continue
    if (owned.includes(name)) throw ownedField(module.name, name)
    const nested = owned.filter((path) => path.startsWith(`${name}.`)).map((path) => path.slice(name.length + 1))
    if (nested.length && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const inner of Object.keys(value)) if (nested.includes(inner) && (value as Record<string, unknown>)[inner] !== undefined) throw ownedField(module.name, `${name}.${inner}`)
      const mine = target[name]
      target[name] = typeof mine === 'object' && mine !== null ? { ...mine, ...value } : value
    } else {
      target[name] = value
    }
  }
  return body
}
