/**
 * A tiny llama model for llama.cpp's server, generated here: 2 layers, width 64, 4 heads, f32 weights
 * drawn from a seeded generator, a byte-level "gpt2" vocabulary of the 256 byte symbols plus one token
 * made by one merge (bytes FF FE, which no UTF-8 text contains, so every byte of a prompt is one token;
 * llama.cpp requires a merges list), and dsh's chat template (`DSH_CHAT_TEMPLATE`). It loads in
 * milliseconds. Its output is meaningless, but the engine's prefix cache is real. The merged token is the
 * end-of-generation token and every token embedding carries a large constant in its first dimension that
 * only that token's output row reads, so the model ends every reply at once: the slot's cache holds
 * the prompts only, and a reply never adds tokens a later prompt could share by chance.
 * @module
 */
import { writeFile } from 'node:fs/promises'
import { DSH_CHAT_TEMPLATE } from 'dsh-wire'
import { BYTE_SYMBOLS } from 'dsh-wire/internal'
import { random } from '../random.js'
import { writeGguf, type GgufTensor, type GgufValue } from './gguf-writer.js'

/** Options of {@link tinyModel}. */
export interface TinyModelOptions {
  /** The training context the file states (default 4096); the server's `-c` may be larger. */
  contextLength?: number
  /** The weights' seed (default 25). */
  seed?: number
}

const LAYERS = 2
const WIDTH = 64
const HEADS = 4
const FEED_FORWARD = 128
/** The merged token: the end-of-generation token. */
export const TINY_END_TOKEN = 256
const VOCAB = 257

/** The GGUF file of the tiny model. */
export function tinyModel(options: TinyModelOptions = {}): Buffer {
  const next = random(options.seed ?? 25)
  const normal = (std: number) => std * Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())
  const matrix = (name: string, columns: number, rows: number, std = 0.02): GgufTensor => {
    const data = new Float32Array(columns * rows)
    for (let i = 0; i < data.length; i++) data[i] = normal(std)
    return { name, shape: [columns, rows], data }
  }
  const ones = (name: string): GgufTensor => ({ name, shape: [WIDTH], data: new Float32Array(WIDTH).fill(1) })

  const embedding = matrix('token_embd.weight', WIDTH, VOCAB)
  for (let token = 0; token < VOCAB; token++) embedding.data[token * WIDTH] = 4
  const output = matrix('output.weight', WIDTH, VOCAB)
  for (let token = 0; token < VOCAB; token++) output.data[token * WIDTH] = token === TINY_END_TOKEN ? 4 : 0
  const tensors: GgufTensor[] = [embedding, ones('output_norm.weight'), output]
  for (let layer = 0; layer < LAYERS; layer++) {
    const blk = `blk.${layer}`
    tensors.push(
      ones(`${blk}.attn_norm.weight`),
      matrix(`${blk}.attn_q.weight`, WIDTH, WIDTH), matrix(`${blk}.attn_k.weight`, WIDTH, WIDTH),
      matrix(`${blk}.attn_v.weight`, WIDTH, WIDTH), matrix(`${blk}.attn_output.weight`, WIDTH, WIDTH),
      ones(`${blk}.ffn_norm.weight`),
      matrix(`${blk}.ffn_gate.weight`, WIDTH, FEED_FORWARD), matrix(`${blk}.ffn_up.weight`, WIDTH, FEED_FORWARD),
      matrix(`${blk}.ffn_down.weight`, FEED_FORWARD, WIDTH),
    )
  }
  const u32 = (value: number): GgufValue => ({ type: 'uint32', value })
  const merged = BYTE_SYMBOLS[0xff] + BYTE_SYMBOLS[0xfe]
  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'dsh tiny byte-level llama' }],
    ['llama.context_length', u32(options.contextLength ?? 4096)],
    ['llama.embedding_length', u32(WIDTH)],
    ['llama.block_count', u32(LAYERS)],
    ['llama.feed_forward_length', u32(FEED_FORWARD)],
    ['llama.attention.head_count', u32(HEADS)],
    ['llama.attention.head_count_kv', u32(HEADS)],
    ['llama.rope.dimension_count', u32(WIDTH / HEADS)],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'float32', value: 1e-5 }],
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: 'gpt-2' }],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: [...BYTE_SYMBOLS, merged] }],
    ['tokenizer.ggml.token_type', { type: 'int32[]', value: new Array<number>(VOCAB).fill(1) }],
    ['tokenizer.ggml.merges', { type: 'string[]', value: [`${BYTE_SYMBOLS[0xff]} ${BYTE_SYMBOLS[0xfe]}`] }],
    ['tokenizer.ggml.bos_token_id', u32(TINY_END_TOKEN)],
    ['tokenizer.ggml.eos_token_id', u32(TINY_END_TOKEN)],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
    ['tokenizer.ggml.add_eos_token', { type: 'bool', value: false }],
    ['tokenizer.chat_template', { type: 'string', value: DSH_CHAT_TEMPLATE }],
  ]
  return writeGguf(metadata, tensors)
}

/** Writes the tiny model to `path`; resolves to `path`. */
export async function writeTinyModel(path: string, options: TinyModelOptions = {}): Promise<string> {
  await writeFile(path, tinyModel(options))
  return path
}
