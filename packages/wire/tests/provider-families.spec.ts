import { expect } from 'chai'
import { cacheProviderFor, normalizeUsage, providerFamily, tokenCounter, type CacheEntry, type CachePoint } from 'dsh-wire'
import {
  MOONSHOT_CHUNK, moonshotCachedTokens, mismatchReason, QWEN_LOOKBACK, QWEN_MAX_MARKERS, qwenExplicitCachedTokens, qwenImplicitCachedTokens, XAI_BLOCK, xaiCachedTokens,
} from 'dsh-wire/internal'

// One test per rule of the xAI, Moonshot and Qwen families (src/providers/xai.ts, moonshot.ts, qwen.ts),
// each title naming the rule and where it comes from. Documented: docs.x.ai/developers/advanced-api-usage/
// prompt-caching (routing, usage, eviction); alibabacloud.com/help/en/model-studio/context-cache (Qwen).
// Measured: xAI's 128-token blocks (APIYI, grok-4.6, 2026-08-19); Moonshot's 256-token chunks and its
// ignoring of routing keys (as issue 19 reports them; no Moonshot document found).

const point = (bytes: number, tokens: number, block: number): CachePoint => ({ bytes, tokens, block, ttl: '5m' })
const entry = (p: CachePoint, expires: number): CacheEntry => ({ ...p, expires })
const NOW = 1_000_000
const question = { model: 'm', requestTokens: 5000, reusableBytes: 20_000, entries: [], points: [], headBlocks: 0, now: NOW }

describe('dsh-wire: the xAI, Moonshot and Qwen provider families, one test per rule', () => {
  it('X1 (measured by APIYI on grok-4.6): xAI serves whole 128-token blocks of the shared prefix', () => {
    expect(XAI_BLOCK).to.equal(128)
    expect(xaiCachedTokens(127)).to.equal(0)
    expect(xaiCachedTokens(128)).to.equal(128)
    expect(xaiCachedTokens(1000)).to.equal(896)
    expect(providerFamily('xai').predict({ ...question, reusableTokens: 1000 })).to.deep.equal({ cachedTokens: 896, limit: 'unit granularity: whole 128-token blocks (X1, measured)' })
  })

  it('X2 (docs.x.ai, maximizing cache hits): xAI routes by the x-grok-conv-id header or prompt_cache_key, on Chat Completions and Responses', () => {
    expect(providerFamily('xai').routing).to.deep.equal({ header: 'x-grok-conv-id', field: 'prompt_cache_key' })
    expect(cacheProviderFor('openai-chat', undefined, 'xai')).to.equal('xai')
    expect(cacheProviderFor('openai-responses', undefined, 'xAI')).to.equal('xai')
    expect(cacheProviderFor('anthropic', undefined, 'xai')).to.equal('anthropic')
  })

  it('X3 (docs.x.ai, best practices): a miss is an eviction or another server, and the words say which key keeps the server', () => {
    const reason = mismatchReason('xai', 0, { requestTokens: 5000, predictedCachedTokens: 3968, sincePrevious: 1000 })
    expect(reason).to.equal('cache miss: the entry was evicted or the request reached another server (X2, X3): send a stable x-grok-conv-id header (Chat Completions) or prompt_cache_key (Responses)')
    expect(mismatchReason('xai', 3968 + 100, { requestTokens: 5000, predictedCachedTokens: 3968, sincePrevious: 1000 })).to.match(/^unit granularity: Grok serves whole 128-token blocks/)
  })

  it('xAI usage (docs.x.ai, usage and pricing) is the OpenAI shape, read as openai-chat and openai-responses', () => {
    const chat = { prompt_tokens: 125, completion_tokens: 48, total_tokens: 173, prompt_tokens_details: { text_tokens: 125, audio_tokens: 0, image_tokens: 0, cached_tokens: 98 } }
    expect(normalizeUsage('openai-chat', chat)).to.deep.equal({ inputTokens: 125, cachedReadTokens: 98, cacheWriteTokens: null, outputTokens: 48 })
    const responses = { input_tokens: 125, output_tokens: 48, total_tokens: 173, input_tokens_details: { cached_tokens: 98 } }
    expect(normalizeUsage('openai-responses', responses)).to.deep.equal({ inputTokens: 125, cachedReadTokens: 98, cacheWriteTokens: null, outputTokens: 48 })
  })

  it('K1 (measured, as issue 19 reports it): Moonshot serves whole 256-token chunks of the shared prefix', () => {
    expect(MOONSHOT_CHUNK).to.equal(256)
    expect(moonshotCachedTokens(255)).to.equal(0)
    expect(moonshotCachedTokens(1000)).to.equal(768)
    expect(providerFamily('moonshot').predict({ ...question, reusableTokens: 1000 })).to.deep.equal({ cachedTokens: 768, limit: 'unit granularity: whole 256-token chunks (K1, measured)' })
  })

  it('K2 (measured, as issue 19 reports it): Moonshot ignores routing keys, so a miss is an eviction no key can prevent', () => {
    expect(providerFamily('moonshot').routing).to.deep.equal({ ignored: true })
    const reason = mismatchReason('moonshot', 0, { requestTokens: 5000, predictedCachedTokens: 3840, sincePrevious: 1000 })
    expect(reason).to.equal('cache miss: the entry was evicted; Kimi ignores routing keys, so no prompt_cache_key or conversation id can keep it (K2)')
    expect(reason).to.not.include('keep a stable')
  })

  it('Moonshot usage: cached_tokens (Kimi\'s field) or prompt_tokens_details.cached_tokens, whichever is reported', () => {
    expect(normalizeUsage('moonshot', { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920, cached_tokens: 768 })).to.deep.equal({ inputTokens: 900, cachedReadTokens: 768, cacheWriteTokens: null, outputTokens: 20 })
    expect(normalizeUsage('moonshot', { prompt_tokens: 900, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 512 } })).to.include({ cachedReadTokens: 512 })
    expect(normalizeUsage('moonshot', { prompt_tokens: 900, completion_tokens: 20 })).to.include({ cachedReadTokens: null })
  })

  it('Q1 (Model Studio context cache): the implicit cache serves the shared prefix from 256 tokens, a request without markers', () => {
    expect(qwenImplicitCachedTokens(255)).to.equal(0)
    expect(qwenImplicitCachedTokens(256)).to.equal(256)
    expect(qwenImplicitCachedTokens(1000)).to.equal(1000)
    expect(providerFamily('qwen').predict({ ...question, reusableTokens: 200 })).to.deep.equal({ cachedTokens: 0, limit: 'below the minimum: the implicit cache holds prefixes from 256 tokens (Q1)' })
  })

  it('Q2 (Model Studio context cache): the explicit cache reads only entries an earlier request marked, at most four markers per request', () => {
    expect(QWEN_MAX_MARKERS).to.equal(4)
    const none = qwenExplicitCachedTokens({ entries: [], points: [point(9000, 3000, 10)], reusableBytes: 9000, now: NOW })
    expect(none).to.deep.include({ cachedTokens: 0, limit: 'no earlier request wrote a cache entry (Q2)' })
    // A fifth marker is not modelled: it neither reads nor writes.
    const five = [point(1000, 1100, 1), point(2000, 1200, 2), point(3000, 1300, 3), point(4000, 1400, 4), point(5000, 1500, 5)]
    expect(qwenExplicitCachedTokens({ entries: [], points: five, reusableBytes: 9000, now: NOW }).entries.map((e) => e.block)).to.deep.equal([1, 2, 3, 4])
  })

  it('Q3 (Model Studio context cache): each marker looks back at most 20 content blocks, and the longest match is read', () => {
    expect(QWEN_LOOKBACK).to.equal(20)
    const entries = [entry(point(3000, 1100, 5), NOW + 60_000), entry(point(4000, 1500, 8), NOW + 60_000)]
    expect(qwenExplicitCachedTokens({ entries, points: [point(9000, 4000, 25)], reusableBytes: 9000, now: NOW }).cachedTokens).to.equal(1500)
    const far = qwenExplicitCachedTokens({ entries, points: [point(9000, 4000, 29)], reusableBytes: 9000, now: NOW })
    expect(far).to.deep.include({ cachedTokens: 0, limit: 'no breakpoint of this request is within 20 blocks of a cache entry (Q3)' })
  })

  it('Q4 (Model Studio context cache): an explicit entry holds at least 1,024 tokens', () => {
    const small = qwenExplicitCachedTokens({ entries: [], points: [point(3000, 1023, 3)], reusableBytes: 9000, now: NOW })
    expect(small.entries).to.deep.equal([])
    const entries = [entry(point(3000, 1000, 3), NOW + 60_000)]
    expect(qwenExplicitCachedTokens({ entries, points: [point(9000, 4000, 10)], reusableBytes: 9000, now: NOW }))
      .to.deep.include({ cachedTokens: 0, limit: 'the cached prefix is below the minimum cacheable length (Q4)' })
  })

  it('Q5 (Model Studio context cache): an explicit entry is valid 5 minutes, reset by each hit', () => {
    const entries = [entry(point(3000, 2000, 3), NOW + 1000)]
    const hit = qwenExplicitCachedTokens({ entries, points: [point(9000, 4000, 10)], reusableBytes: 9000, now: NOW })
    expect(hit.cachedTokens).to.equal(2000)
    expect(hit.entries.find((e) => e.bytes === 3000)!.expires).to.equal(NOW + 5 * 60_000)
    const late = qwenExplicitCachedTokens({ entries, points: [point(9000, 4000, 10)], reusableBytes: 9000, now: NOW + 1000 })
    expect(late).to.deep.include({ cachedTokens: 0, limit: 'every cache entry within the shared prefix has expired (Q5)' })
  })

  it('Q6 (Model Studio context cache): a request with markers uses the explicit cache alone, not the implicit one', () => {
    const family = providerFamily('qwen')
    const marked = family.predict({ ...question, reusableTokens: 3000, points: [point(9000, 3000, 10)] })
    expect(marked).to.deep.include({ cachedTokens: 0, limit: 'no earlier request wrote a cache entry (Q2)' })
    expect(family.predict({ ...question, reusableTokens: 3000 }).cachedTokens).to.equal(3000)
    expect(cacheProviderFor('anthropic', undefined, 'qwen')).to.equal('qwen')
    expect(cacheProviderFor('openai-chat', undefined, 'qwen')).to.equal('qwen')
  })

  it('Qwen usage (Model Studio context cache): prompt_tokens_details.cached_tokens, and the explicit writes as cache_creation_input_tokens', () => {
    const usage = { prompt_tokens: 3019, completion_tokens: 104, total_tokens: 3123, prompt_tokens_details: { cached_tokens: 2048, cache_creation_input_tokens: 960, cache_type: 'ephemeral' } }
    expect(normalizeUsage('qwen', usage)).to.deep.equal({ inputTokens: 3019, cachedReadTokens: 2048, cacheWriteTokens: 960, outputTokens: 104 })
  })

  it('the three families count with the o200k encoding, labelled as an estimate', async () => {
    for (const name of ['xai', 'moonshot', 'qwen'] as const) {
      const counter = await tokenCounter(name)
      expect(counter.name, name).to.match(/^estimate \(o200k_base/)
      expect(counter.count('hello world')).to.equal(2)
    }
  })
})
