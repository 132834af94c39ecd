/**
 * The SGLang family: a self-hosted SGLang server (its OpenAI-compatible Chat Completions endpoint) and
 * its radix cache (RadixAttention), on by default. Rules (SGLang's runtime, read 2026-12-02):
 *   S1. a request reuses the longest common token prefix it shares with the radix tree of earlier
 *       requests, in whole pages of `--page-size` tokens: 1 by default, so any token
 *       (`python/sglang/srt/mem_cache/radix_cache.py`, `match_prefix`; `python/sglang/srt/server_args.py`);
 *   S2. the match stops one token short of the prompt: its last token is always computed
 *       (`python/sglang/srt/managers/schedule_batch.py`, `_compute_max_prefix_len`: "at most 1 less
 *       than the input length");
 *   S3. the cached tokens are in `usage.prompt_tokens_details.cached_tokens` only when the server was
 *       started with `--enable-cache-report` (off by default; `server_args.py`: "Return number of cached
 *       tokens in usage.prompt_tokens_details");
 *   S4. the tree lives in the server's memory and evicts least recently used leaves when it needs room
 *       (`radix_cache.py`, `evict`); nothing routes a request to the server that holds it but the
 *       harness's own setup (or SGLang's router, outside this family).
 * The served model's tokenizer is not in the stack: counts are the o200k estimate, labelled so.
 * `sglangFamily({ pageSize })` makes the family for another page size.
 * @module
 */
import type { ProviderFamily } from '../provider-family.js'
import { heldPrefixTokens, tokenUnit, unitEngineFamily } from './self-hosted.js'

/** The page size of an SGLang server started without `--page-size` (S1). */
export const SGLANG_PAGE = 1

/** The tokens SGLang serves from cache for a prompt of `requestTokens` that shares `reusableTokens` with its tree (S1, S2). */
export function sglangCachedTokens(requestTokens: number, reusableTokens: number, pageSize: number = SGLANG_PAGE): number {
  return heldPrefixTokens(requestTokens, reusableTokens, pageSize)
}

/** Options of {@link sglangFamily}. */
export interface SglangOptions {
  /** The family's name (default `sglang`): one per server setup, when a harness runs several. */
  name?: string
  /** The server's `--page-size` (default 1). */
  pageSize?: number
}

/** The SGLang family for a server started with `options.pageSize` (1 by default). */
export function sglangFamily(options: SglangOptions = {}): ProviderFamily {
  const page = tokenUnit(options.name ?? 'sglang', 'pageSize', options.pageSize, SGLANG_PAGE)
  return unitEngineFamily({
    name: options.name ?? 'sglang',
    formats: ['openai-chat'],
    unit: page,
    limit: page === 1
      ? 'the whole prompt is in the radix cache: the server computes its last token again (S2)'
      : `unit granularity: whole ${page}-token pages, and a prompt held whole computes its last token again (S1, S2)`,
    granularity: `unit granularity: SGLang serves whole ${page}-token pages of the served model's tokens, and the o200k estimate differs from that tokenizer (S1)`,
    miss: 'cache miss: SGLang evicted the prefix from its radix tree (least recently used leaves first, when it needed room), the server restarted, the radix cache is off (--disable-radix-cache), or the request reached another replica (S4)',
    notReported: 'not reported: SGLang reports cached tokens only when started with --enable-cache-report (S3)',
  })
}

/** The built-in `sglang` family: a server with the default page size. */
export const sglang: ProviderFamily = sglangFamily()
