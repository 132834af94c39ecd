import { expect } from 'chai'
import { tokenCounter, type CacheEntry, type CachePoint } from 'dsh-wire'
import { anthropicCachedTokens, deepseekCachedTokens, geminiCachedTokens, openaiCachedTokens, TTL_MS } from 'dsh-wire/internal'

// One test per rule of each provider family (src/providers/*.ts: each module comment numbers its rules and cites the provider's guide).

const point = (bytes: number, tokens: number, block: number, ttl: '5m' | '1h' = '5m'): CachePoint => ({ bytes, tokens, block, ttl })
const entry = (p: CachePoint, expires: number): CacheEntry => ({ ...p, expires })
const NOW = 1_000_000

describe('dsh-wire: the caching rules, one test per documented rule', () => {
  it('O1: OpenAI caches nothing for a prompt under 1,024 tokens', () => {
    expect(openaiCachedTokens(1023, 1023)).to.equal(0)
    expect(openaiCachedTokens(5000, 1000)).to.equal(0)
  })

  it('O2: OpenAI serves the first 1,024 tokens, then whole 128-token increments', () => {
    expect(openaiCachedTokens(5000, 1024)).to.equal(1024)
    expect(openaiCachedTokens(5000, 1151)).to.equal(1024)
    expect(openaiCachedTokens(5000, 1152)).to.equal(1152)
    expect(openaiCachedTokens(5000, 4000)).to.equal(3968)
  })

  it('D1: DeepSeek serves whole 64-token units of the shared prefix', () => {
    expect(deepseekCachedTokens(63)).to.equal(0)
    expect(deepseekCachedTokens(64)).to.equal(64)
    expect(deepseekCachedTokens(1000)).to.equal(960)
  })

  it('A1: Anthropic reads only a prefix an earlier request marked', () => {
    const none = anthropicCachedTokens({ entries: [], points: [point(9000, 3000, 10)], reusableBytes: 9000, minimum: 1024, now: NOW })
    expect(none).to.deep.include({ cachedTokens: 0, limit: 'no earlier request wrote a cache entry (A1)' })
    expect(none.entries).to.deep.equal([entry(point(9000, 3000, 10), NOW + TTL_MS['5m'])])
    const hit = anthropicCachedTokens({ entries: none.entries, points: [point(9500, 3100, 12)], reusableBytes: 9000, minimum: 1024, now: NOW + 1000 })
    expect(hit.cachedTokens).to.equal(3000)
  })

  it('A2: a breakpoint finds an entry only within 20 blocks before it', () => {
    const entries = [entry(point(5000, 2000, 3), NOW + 60_000)]
    expect(anthropicCachedTokens({ entries, points: [point(9000, 4000, 23)], reusableBytes: 9000, minimum: 1024, now: NOW }).cachedTokens).to.equal(2000)
    const far = anthropicCachedTokens({ entries, points: [point(9000, 4000, 24)], reusableBytes: 9000, minimum: 1024, now: NOW })
    expect(far).to.deep.include({ cachedTokens: 0, limit: 'no breakpoint of this request is within 20 blocks of a cache entry (A2)' })
  })

  it('A2: an entry in the messages that no later breakpoint can reach is not kept; one in the tools or system is', () => {
    const entries = [entry(point(100, 1500, 1), NOW + 60_000), entry(point(5000, 2000, 10), NOW + 60_000), entry(point(9000, 3000, 40), NOW + 60_000)]
    const after = anthropicCachedTokens({ entries, points: [point(9500, 3100, 45)], reusableBytes: 9000, minimum: 1024, now: NOW, headBlocks: 3 })
    expect(after.entries.map((e) => e.block)).to.deep.equal([1, 40, 45])
  })

  it('A3: nothing below the minimum cacheable length is written or read', () => {
    const small = anthropicCachedTokens({ entries: [], points: [point(2000, 500, 2)], reusableBytes: 0, minimum: 1024, now: NOW })
    expect(small.entries).to.deep.equal([])
    const read = anthropicCachedTokens({ entries: [entry(point(2000, 500, 2), NOW + 60_000)], points: [point(3000, 700, 3)], reusableBytes: 2500, minimum: 1024, now: NOW })
    expect(read).to.deep.include({ cachedTokens: 0, limit: 'the cached prefix is below the minimum cacheable length (A3)' })
  })

  it('A4: an entry lives for its TTL after it was last written or read, and a read refreshes it', () => {
    const entries = [entry(point(5000, 2000, 3), NOW + TTL_MS['5m'])]
    const late = anthropicCachedTokens({ entries, points: [point(9000, 4000, 5)], reusableBytes: 9000, minimum: 1024, now: NOW + TTL_MS['5m'] })
    expect(late).to.deep.include({ cachedTokens: 0, limit: 'every cache entry within the shared prefix has expired (A4)' })
    const read = anthropicCachedTokens({ entries, points: [point(9000, 4000, 5)], reusableBytes: 9000, minimum: 1024, now: NOW + 1000 })
    expect(read.entries.find((e) => e.bytes === 5000)!.expires).to.equal(NOW + 1000 + TTL_MS['5m'])
    const hour = anthropicCachedTokens({ entries: [], points: [point(5000, 2000, 3, '1h')], reusableBytes: 0, minimum: 1024, now: NOW })
    expect(hour.entries[0].expires).to.equal(NOW + TTL_MS['1h'])
  })

  it('A5: an entry past the bytes this request shares no longer matches', () => {
    const entries = [entry(point(5000, 2000, 3), NOW + 60_000)]
    const broke = anthropicCachedTokens({ entries, points: [point(9000, 4000, 5)], reusableBytes: 4999, minimum: 1024, now: NOW })
    expect(broke).to.deep.include({ cachedTokens: 0, limit: 'every cache entry lies past the shared prefix (A5)' })
  })

  it('G1: Gemini caches implicitly from 1,024 tokens (Flash) or 4,096 (Pro)', () => {
    expect(geminiCachedTokens('gemini-2.5-flash', 2000, 1500)).to.equal(1500)
    expect(geminiCachedTokens('gemini-2.5-flash', 1000, 900)).to.equal(0)
    expect(geminiCachedTokens('gemini-2.5-pro', 3000, 3000)).to.equal(0)
  })

  it('counts tokens with each family\'s tokenizer, and labels estimates as such', async () => {
    const openai = await tokenCounter('openai')
    expect(openai.name).to.equal('o200k_base')
    expect(openai.count('hello world')).to.equal(2)
    const deepseek = await tokenCounter('deepseek')
    expect(deepseek.name).to.equal('deepseek-v3')
    expect(deepseek.count('hello world')).to.equal(2)
    expect((await tokenCounter('anthropic')).name).to.match(/^estimate/)
    expect((await tokenCounter('anthropic')).count('12345678')).to.equal(2)
    expect((await tokenCounter('gemini')).name).to.match(/^estimate/)
  })
})
