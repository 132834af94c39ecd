import { expect } from 'chai'
import {
  cacheProviderFor, normalizeUsage, providerFamily, registerProvider, sglangCachedTokens, sglangFamily, SGLANG_PAGE, tokenCounter, vllmCachedTokens, vllmFamily, VLLM_BLOCK,
} from 'dsh-wire'
import { mismatchReason } from 'dsh-wire/internal'
import { thrown } from 'dsh-testing'

// One test per rule of the vLLM and SGLang families (src/providers/vllm.ts, sglang.ts), each title naming
// the rule and the source file it comes from: vLLM's V1 engine (vllm/v1/core/kv_cache_manager.py, the
// prefix-caching design page, the OpenAI server's --enable-prompt-tokens-details) and SGLang's runtime
// (mem_cache/radix_cache.py, managers/schedule_batch.py, server_args.py's --page-size and
// --enable-cache-report), read 2026-12-02.

const question = { model: 'm', requestTokens: 1000, reusableBytes: 4000, entries: [], points: [], headBlocks: 0, now: 0 }

describe('dsh-wire: the vLLM and SGLang provider families, one test per rule', () => {
  it('V1 (kv_cache_manager.py, get_computed_blocks; design/prefix_caching): vLLM serves whole 16-token blocks of the shared prefix', () => {
    expect(VLLM_BLOCK).to.equal(16)
    expect(vllmCachedTokens(1000, 15)).to.equal(0)
    expect(vllmCachedTokens(1000, 16)).to.equal(16)
    expect(vllmCachedTokens(1000, 500)).to.equal(496)
    expect(providerFamily('vllm').predict({ ...question, reusableTokens: 500 })).to.deep.equal({
      cachedTokens: 496, limit: 'unit granularity: whole 16-token blocks, and a prompt held whole computes its last token again (V1, V2)',
    })
  })

  it('V2 (kv_cache_manager.py: "we must recompute the last token"): a prompt held whole is served up to its last token, block-aligned', () => {
    // 32 tokens, all shared: at most 31, so one whole block; 33 tokens, all shared: 32, two blocks.
    expect(vllmCachedTokens(32, 32)).to.equal(16)
    expect(vllmCachedTokens(33, 33)).to.equal(32)
    expect(vllmCachedTokens(1, 1)).to.equal(0)
  })

  it('V3 (the OpenAI server\'s --enable-prompt-tokens-details, off by default): a usage without cached tokens says which flag reports them', () => {
    expect(normalizeUsage('openai-chat', { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920 })).to.include({ cachedReadTokens: null })
    expect(mismatchReason('vllm', null, { requestTokens: 900, predictedCachedTokens: 880, sincePrevious: 1000 }))
      .to.equal('not reported: vLLM reports cached tokens only when started with --enable-prompt-tokens-details (V3)')
    expect(normalizeUsage('openai-chat', { prompt_tokens: 900, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 880 } })).to.include({ cachedReadTokens: 880 })
    // A family without words of its own keeps the general ones.
    expect(mismatchReason('openai', null, { requestTokens: 900, predictedCachedTokens: 880, sincePrevious: 1000 })).to.equal('not reported: the usage carries no cached-token figure')
  })

  it('V4 (design/prefix_caching: least recently used free blocks are evicted): a miss is an eviction, a restart, caching off or another replica; no routing key', () => {
    expect(providerFamily('vllm').routing).to.deep.equal({})
    expect(mismatchReason('vllm', 0, { requestTokens: 1000, predictedCachedTokens: 976, sincePrevious: 1000 })).to.equal(
      'cache miss: vLLM evicted the blocks (least recently used first, when it needed room), the server restarted, prefix caching is off (--no-enable-prefix-caching), or the request reached another replica (V4)',
    )
    expect(mismatchReason('vllm', 976 - 8, { requestTokens: 1000, predictedCachedTokens: 976, sincePrevious: 1000 })).to.match(/^unit granularity: vLLM serves whole 16-token blocks/)
  })

  it('vLLM speaks Chat Completions and Responses: an agent whose provider is vllm is measured by its rules there', () => {
    expect(cacheProviderFor('openai-chat', undefined, 'vllm')).to.equal('vllm')
    expect(cacheProviderFor('openai-responses', undefined, 'vLLM')).to.equal('vllm')
    expect(cacheProviderFor('anthropic', undefined, 'vllm')).to.equal('anthropic')
  })

  it('vllmFamily({ blockSize }) models a server started with another --block-size, registered under its own name', () => {
    const dispose = registerProvider(vllmFamily({ name: 'vllm-528', blockSize: 528 }))
    try {
      expect(providerFamily('vllm-528' as 'vllm').predict({ ...question, requestTokens: 1200, reusableTokens: 1100 }).cachedTokens).to.equal(1056)
      expect(providerFamily('vllm-528' as 'vllm').predict({ ...question, requestTokens: 1200, reusableTokens: 500 }).cachedTokens).to.equal(0)
    } finally {
      dispose()
    }
    const error = thrown(() => vllmFamily({ blockSize: 0 })) as Error & { code?: string; details?: object }
    expect([error.code, error.details, error.message]).to.deep.equal([
      'WIRE_INVALID_PROVIDER_OPTION', { provider: 'vllm', option: 'blockSize', value: 0 }, 'provider family "vllm": blockSize must be a positive whole number of tokens, received 0',
    ])
  })

  it('S1 (radix_cache.py, match_prefix; server_args.py --page-size, 1 by default): SGLang serves the longest shared token prefix, any length', () => {
    expect(SGLANG_PAGE).to.equal(1)
    expect(sglangCachedTokens(1000, 1)).to.equal(1)
    expect(sglangCachedTokens(1000, 777)).to.equal(777)
    expect(providerFamily('sglang').predict({ ...question, reusableTokens: 777 }).cachedTokens).to.equal(777)
    // With --page-size 64, whole pages.
    expect(sglangCachedTokens(1000, 777, 64)).to.equal(768)
    expect(sglangFamily({ pageSize: 64 }).predict({ ...question, reusableTokens: 777 })).to.deep.equal({
      cachedTokens: 768, limit: 'unit granularity: whole 64-token pages, and a prompt held whole computes its last token again (S1, S2)',
    })
  })

  it('S2 (schedule_batch.py, _compute_max_prefix_len: "at most 1 less than the input length"): a prompt held whole reuses all but its last token', () => {
    expect(sglangCachedTokens(900, 900)).to.equal(899)
    expect(providerFamily('sglang').predict({ ...question, requestTokens: 900, reusableTokens: 900 })).to.deep.equal({
      cachedTokens: 899, limit: 'the whole prompt is in the radix cache: the server computes its last token again (S2)',
    })
  })

  it('S3 (server_args.py --enable-cache-report, off by default): a usage without cached tokens says which flag reports them', () => {
    expect(mismatchReason('sglang', null, { requestTokens: 900, predictedCachedTokens: 899, sincePrevious: 1000 }))
      .to.equal('not reported: SGLang reports cached tokens only when started with --enable-cache-report (S3)')
  })

  it('S4 (radix_cache.py, evict: least recently used leaves): a miss is an eviction, a restart, the cache off or another replica; no routing key', () => {
    expect(providerFamily('sglang').routing).to.deep.equal({})
    expect(cacheProviderFor('openai-chat', undefined, 'sglang')).to.equal('sglang')
    expect(mismatchReason('sglang', 10, { requestTokens: 900, predictedCachedTokens: 899, sincePrevious: 1000 })).to.equal(
      'cache miss: SGLang evicted the prefix from its radix tree (least recently used leaves first, when it needed room), the server restarted, the radix cache is off (--disable-radix-cache), or the request reached another replica (S4)',
    )
    expect(mismatchReason('sglang', 950, { requestTokens: 1000, predictedCachedTokens: 899, sincePrevious: 1000 })).to.match(/^more than predicted/)
    const error = thrown(() => sglangFamily({ name: 'sglang-pages', pageSize: 2.5 })) as Error & { code?: string; details?: object }
    expect([error.code, error.details]).to.deep.equal(['WIRE_INVALID_PROVIDER_OPTION', { provider: 'sglang-pages', option: 'pageSize', value: 2.5 }])
  })

  it('both count with the o200k encoding, labelled as an estimate (the served model\'s tokenizer is not in the stack)', async () => {
    for (const name of ['vllm', 'sglang'] as const) {
      const counter = await tokenCounter(name)
      expect(counter.name, name).to.equal('estimate (o200k_base; the served model\'s tokenizer is not installed)')
      expect(counter.count('hello world')).to.equal(2)
    }
  })
})
