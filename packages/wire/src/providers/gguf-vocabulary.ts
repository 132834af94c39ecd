/**
 * A GGUF model's tokenizer, read from its vocabulary: byte-level BPE (`tokenizer.ggml.model` "gpt2",
 * the vocabulary of GPT-2, Llama 3, Qwen and most current open models). Text is split on the control
 * and user-defined tokens first (llama.cpp's server tokenizes prompts with special tokens parsed), then
 * pre-tokenized with GPT-2's split, then each piece's bytes, as GPT-2's byte-to-symbol alphabet, merged
 * by the ranks of `tokenizer.ggml.merges`. Exact for the pre-tokenizers llama.cpp splits as GPT-2 does
 * (`tokenizer.ggml.pre` "gpt-2", "phi-2", ...); a model with another pre-tokenizer is counted with
 * GPT-2's split and labelled an estimate.
 * @module
 */
import { unsupportedVocabulary } from '../errors.js'
import type { GgufMetadataValue } from './gguf.js'

/** GPT-2's split of text into pieces that BPE merges within. */
const GPT2_SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu

/** GPT-2's alphabet: each byte as a printable character (printable Latin-1 bytes stand for themselves). */
export const BYTE_SYMBOLS: readonly string[] = (() => {
  const symbols: string[] = []
  let next = 256
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || (byte >= 174 && byte <= 255)
    symbols.push(String.fromCodePoint(printable ? byte : next++))
  }
  return symbols
})()

/** The `tokenizer.ggml.pre` names llama.cpp splits with GPT-2's expression (llama-vocab.cpp, commit de3ff81). */
const GPT2_SPLIT_NAMES = new Set(['gpt-2', 'phi-2', 'jina-es', 'jina-de', 'gigachat', 'jina-v2-es', 'jina-v2-de', 'a.x-4.0', 'mellum', 'modern-bert'])

/** The token types of `tokenizer.ggml.token_type` that the server matches as whole tokens in a prompt. */
const CONTROL = 3
const USER_DEFINED = 4

/** A byte-level BPE tokenizer. */
export interface GgufTokenizer {
  /** `exact`, or why the count is an estimate. */
  readonly exactness: 'exact' | string
  /** The text's tokens as the server makes them; with `bos`, a prompt's: the BOS token first when the model adds one. */
  encode(text: string, options?: { bos?: boolean }): number[]
}

function strings(value: GgufMetadataValue | undefined): string[] {
  return Array.isArray(value) ? value.map(String) : []
}

/** The tokenizer of a model's metadata (`file` names it in errors). Throws `WIRE_UNSUPPORTED_VOCABULARY` unless its vocabulary is byte-level BPE. */
export function ggufTokenizer(metadata: ReadonlyMap<string, GgufMetadataValue>, file: string): GgufTokenizer {
  const model = String(metadata.get('tokenizer.ggml.model') ?? '')
  const tokens = strings(metadata.get('tokenizer.ggml.tokens'))
  if (model !== 'gpt2' || tokens.length === 0) throw unsupportedVocabulary(file, model)
  const ids = new Map<string, number>()
  tokens.forEach((token, id) => { if (!ids.has(token)) ids.set(token, id) })
  const ranks = new Map<string, number>()
  strings(metadata.get('tokenizer.ggml.merges')).forEach((merge, rank) => ranks.set(merge, rank))
  const types = (metadata.get('tokenizer.ggml.token_type') ?? []) as GgufMetadataValue[]
  const specials = tokens.filter((token, id) => (types[id] === CONTROL || types[id] === USER_DEFINED) && token.length > 0).sort((a, b) => b.length - a.length)
  const bos = metadata.get('tokenizer.ggml.bos_token_id')
  const addBos = metadata.get('tokenizer.ggml.add_bos_token') === true && bos !== undefined
  const pre = String(metadata.get('tokenizer.ggml.pre') ?? 'default')
  const pieces = new Map<string, number[]>()

  const piece = (text: string): number[] => {
    const known = pieces.get(text)
    if (known) return known
    let symbols = [...Buffer.from(text, 'utf8')].map((byte) => BYTE_SYMBOLS[byte])
    for (;;) {
      let best = -1
      let bestRank = Infinity
      for (let i = 0; i + 1 < symbols.length; i++) {
        const rank = ranks.get(`${symbols[i]} ${symbols[i + 1]}`)
        if (rank !== undefined && rank < bestRank) { bestRank = rank; best = i }
      }
      if (best < 0) break
      const left = symbols[best]
      const right = symbols[best + 1]
      const merged: string[] = []
      for (let i = 0; i < symbols.length; i++) {
        if (i + 1 < symbols.length && symbols[i] === left && symbols[i + 1] === right) { merged.push(left + right); i++ } else merged.push(symbols[i])
      }
      symbols = merged
    }
    const out: number[] = []
    for (const symbol of symbols) {
      const id = ids.get(symbol)
      // A symbol the vocabulary lacks is spelled in its bytes, as llama.cpp does.
      if (id !== undefined) out.push(id)
      else for (const char of symbol) { const byte = ids.get(char); if (byte !== undefined) out.push(byte) }
    }
    if (pieces.size < 100_000) pieces.set(text, out)
    return out
  }

  const plain = (text: string, out: number[]) => {
    for (const match of text.matchAll(GPT2_SPLIT)) out.push(...piece(match[0]))
  }

  return Object.freeze({
    exactness: GPT2_SPLIT_NAMES.has(pre) ? 'exact' : `estimate (pre-tokenizer ${JSON.stringify(pre)} split as GPT-2's)`,
    encode(text: string, options: { bos?: boolean } = {}): number[] {
      const out: number[] = options.bos && addBos ? [Number(bos)] : []
      let rest = text
      while (rest.length > 0) {
        let at = -1
        let found = ''
        for (const special of specials) {
          const i = rest.indexOf(special)
          if (i >= 0 && (at < 0 || i < at)) { at = i; found = special }
        }
        if (at < 0) { plain(rest, out); break }
        plain(rest.slice(0, at), out)
        out.push(ids.get(found)!)
        rest = rest.slice(at + found.length)
      }
      return out
    },
  })
}
