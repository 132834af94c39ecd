/**
 * The vLLM family: a self-hosted vLLM server (its OpenAI-compatible Chat Completions and Responses
 * endpoints) with automatic prefix caching, on by default. Rules (vLLM's V1 engine, read 2026-12-02):
 *   V1. a hit is made of whole KV-cache blocks: a block is cached, and found again, only when it is
 *       full; a block is `--block-size` tokens, 16 by default for attention models (some hybrid models
 *       get larger ones). `vllm/v1/core/kv_cache_manager.py` (`get_computed_blocks`: the computed
 *       blocks must be full) and docs.vllm.ai, design/prefix_caching (a block hashed by its tokens and
 *       the prefix before it);
 *   V2. a prompt the cache holds whole still computes its last token, and a hit stays block-aligned:
 *       at most the whole blocks of the prompt less its last token (same file: "When all tokens hit the
 *       cache, we must recompute the last token", `max_cache_hit_length = num_tokens - 1`);
 *   V3. the cached tokens are in `usage.prompt_tokens_details.cached_tokens` only when the server was
 *       started with `--enable-prompt-tokens-details` (off by default; `vllm/entrypoints/openai/cli_args.py`);
 *   V4. the cache is the server's memory: free blocks are evicted least recently used first (the design
 *       page), and nothing routes a request to the server that holds them but the harness's own setup.
 * The served model's tokenizer is not in the stack: counts are the o200k estimate, labelled so. Usage is
 * the OpenAI shape of the endpoint. `vllmFamily({ blockSize })` makes the family for another block size.
 * @module
 */
import type { ProviderFamily } from '../provider-family.js'
import { heldPrefixTokens, tokenUnit, unitEngineFamily } from './self-hosted.js'

/** The block size of a vLLM server started without `--block-size`, for attention models (V1). */
export const VLLM_BLOCK = 16

/** The tokens vLLM serves from cache for a prompt of `requestTokens` that shares `reusableTokens` with its cache (V1, V2). */
export function vllmCachedTokens(requestTokens: number, reusableTokens: number, blockSize: number = VLLM_BLOCK): number {
  return heldPrefixTokens(requestTokens, reusableTokens, blockSize)
}

/** Options of {@link vllmFamily}. */
export interface VllmOptions {
  /** The family's name (default `vllm`): one per server setup, when a harness runs several. */
  name?: string
  /** The server's `--block-size` (default 16). */
  blockSize?: number
}

/** The vLLM family for a server started with `options.blockSize` (16 by default). */
export function vllmFamily(options: VllmOptions = {}): ProviderFamily {
  const block = tokenUnit(options.name ?? 'vllm', 'blockSize', options.blockSize, VLLM_BLOCK)
  return unitEngineFamily({
    name: options.name ?? 'vllm',
    formats: ['openai-chat', 'openai-responses'],
    unit: block,
    limit: `unit granularity: whole ${block}-token blocks, and a prompt held whole computes its last token again (V1, V2)`,
    granularity: `unit granularity: vLLM serves whole ${block}-token blocks of the served model's tokens, and the o200k estimate differs from that tokenizer (V1)`,
    miss: 'cache miss: vLLM evicted the blocks (least recently used first, when it needed room), the server restarted, prefix caching is off (--no-enable-prefix-caching), or the request reached another replica (V4)',
    notReported: 'not reported: vLLM reports cached tokens only when started with --enable-prompt-tokens-details (V3)',
  })
}

/** The built-in `vllm` family: a server with the default block size. */
export const vllm: ProviderFamily = vllmFamily()
