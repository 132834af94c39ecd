/**
 * The llama.cpp family: a self-hosted `llama-server` (llama.cpp's HTTP server) and the model it serves.
 * Unlike a hosted provider's, its tokenizer and chat template are in the deployment's hands: both are
 * read from the model's GGUF file, so a family is made for one model (`llamaCppFamily({ model })`) and
 * registered (`registerProvider`) under its name, `llama.cpp` unless told otherwise.
 * Rules (llama.cpp's server, as shipped in node-llama-cpp 3.22.1, llama.cpp commit de3ff81; its README
 * documents `cache_prompt` and `n_cache_reuse`, tools/server/README.md; measured in the engine tier):
 *   L1. a request reuses the longest common token prefix of its prompt (the chat template rendered and
 *       tokenized) with the slot's cache, which holds the slot's previous prompt; no minimum, no unit;
 *   L2. at least one prompt token is evaluated: a prompt that the cache holds whole reuses all but its
 *       last token;
 *   L3. `"cache_prompt": false` reuses nothing;
 *   L4. with one slot (`-np 1`) and the host-memory prompt cache off (`--cache-ram 0`) the slot's cache is
 *       the previous request's prompt; with more slots the server picks the slot most similar to the
 *       prompt, and another client's request can take it.
 * Usage comes in the shape of the endpoint: `usage.prompt_tokens_details.cached_tokens` (Chat
 * Completions), `usage.input_tokens_details.cached_tokens` (Responses), `usage.cache_read_input_tokens`
 * (Messages), read by the openai and anthropic families' readers.
 * Counts are exact for byte-level BPE vocabularies with GPT-2's pre-tokenizer (the tier's generated
 * model); the prompt is rendered exactly for the template dsh ships (`DSH_CHAT_TEMPLATE`). For another
 * template the family counts the request's cache stream with the model's tokenizer, labelled an estimate.
 * @module
 */
import { basename } from 'node:path'
import type { ProviderFamily } from '../provider-family.js'
import type { TokenCounter } from '../tokenizers.js'
import { readGgufMetadata } from './gguf.js'
import { ggufTokenizer } from './gguf-vocabulary.js'
import { fromAnthropic, fromChat, fromResponses, type TemplateInput } from './llama-cpp-messages.js'
import { DSH_CHAT_TEMPLATE, renderDshTemplate } from './llama-cpp-template.js'
import { heldPrefixTokens } from './self-hosted.js'

/** The formats llama.cpp's server accepts, and how each body becomes the template's input. */
const SHAPES: Readonly<Record<string, (body: Record<string, unknown>) => TemplateInput>> = Object.freeze({
  'openai-chat': fromChat,
  'openai-responses': fromResponses,
  anthropic: fromAnthropic,
})

/** Options of {@link llamaCppFamily}. */
export interface LlamaCppOptions {
  /** The GGUF model file the server loads (`llama-server -m <model>`). */
  model: string
  /** The family's name (default `llama.cpp`): one per model, when a harness serves several. */
  name?: string
}

/** The tokens the engine reuses from a slot whose cache shares `reusableTokens` with a prompt of `requestTokens` (L1, L2). */
export function llamaCppCachedTokens(requestTokens: number, reusableTokens: number): number {
  return heldPrefixTokens(requestTokens, reusableTokens)
}

/**
 * The family of the model at `options.model`: its tokenizer and chat template read from the file now
 * (the header only). Throws `WIRE_INVALID_GGUF` for a file that is not a GGUF model and
 * `WIRE_UNSUPPORTED_VOCABULARY` for a vocabulary that is not byte-level BPE.
 */
export function llamaCppFamily(options: LlamaCppOptions): ProviderFamily {
  const metadata = readGgufMetadata(options.model)
  const tokenizer = ggufTokenizer(metadata, options.model)
  const rendered = metadata.get('tokenizer.chat_template') === DSH_CHAT_TEMPLATE
  const exact = tokenizer.exactness === 'exact' && rendered
  const label = `${basename(options.model)} vocabulary` + (exact ? '' : `, estimate (${rendered ? tokenizer.exactness : 'chat template not the one dsh ships: the cache stream counted'})`)
  const counter: TokenCounter = Object.freeze({ name: label, count: (text: string) => tokenizer.encode(text).length })
  return Object.freeze<ProviderFamily>({
    name: options.name ?? 'llama.cpp',
    formats: Object.freeze(Object.keys(SHAPES)),
    tokenizer: () => Promise.resolve(counter),
    usage: Object.freeze({}),
    predict: ({ requestTokens, reusableTokens }) => ({
      cachedTokens: llamaCppCachedTokens(requestTokens, reusableTokens),
      limit: 'the whole prompt is in the slot\'s cache: the engine evaluates its last token again (L2)',
    }),
    mismatch: ({ predictedCachedTokens, reported }) => reported < predictedCachedTokens
      ? 'cache miss: the slot no longer held the previous request (another client or slot took it, the server restarted, or the request set "cache_prompt": false) (L3, L4)'
      : 'more than predicted: the slot held a longer match than the previous request (another request of the same prefix was served in between) (L4)',
    routing: Object.freeze({}),
    promptTokens: (format, request) => {
      const shape = SHAPES[format]
      if (!rendered || shape === undefined || typeof request !== 'object' || request === null) return undefined
      const input = shape(request as Record<string, unknown>)
      return tokenizer.encode(renderDshTemplate(input.messages, input.tools), { bos: true })
    },
  })
}
