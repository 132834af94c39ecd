import { expect } from 'chai'
import { isUsage, normalizeUsage, type UsageFormat } from 'dsh-wire'
import { thrown } from 'dsh-testing'

// Each usage object below is shaped like the provider documentation's own example (read 2026-12-01):
// - OpenAI Chat / Responses: developers.openai.com/api/docs/guides/prompt-caching (`cached_tokens`; newer
//   models also report `cache_write_tokens`), usage.prompt_tokens_details / usage.input_tokens_details.
// - Anthropic: platform.claude.com/docs/en/build-with-claude/prompt-caching (`cache_creation_input_tokens`,
//   `cache_read_input_tokens`; `input_tokens` counts only tokens after the last breakpoint).
// - DeepSeek: api-docs.deepseek.com/guides/kv_cache (`prompt_cache_hit_tokens`, `prompt_cache_miss_tokens`).
// - Gemini: usageMetadata of generateContent (`promptTokenCount` includes `cachedContentTokenCount`).
// - OpenRouter: openrouter.ai/docs/use-cases/usage-accounting (`prompt_tokens_details.cached_tokens`,
//   `prompt_tokens_details.cache_write_tokens`).

const figures = (inputTokens: number | null, cachedReadTokens: number | null, cacheWriteTokens: number | null, outputTokens: number | null) =>
  ({ inputTokens, cachedReadTokens, cacheWriteTokens, outputTokens })

describe('dsh-wire: normalizeUsage, one usage record for every provider', () => {
  it('OpenAI Chat: prompt_tokens, prompt_tokens_details.cached_tokens, completion_tokens; no write figure is null', () => {
    const usage = { prompt_tokens: 2006, completion_tokens: 300, total_tokens: 2306, prompt_tokens_details: { cached_tokens: 1920 } }
    expect(normalizeUsage('openai-chat', usage)).to.deep.equal(figures(2006, 1920, null, 300))
  })

  it('OpenAI Chat: a reported cache_write_tokens is read, and a 0 stays 0', () => {
    const usage = { prompt_tokens: 2006, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 1990 } }
    expect(normalizeUsage('openai-chat', usage)).to.deep.equal(figures(2006, 0, 1990, 3))
  })

  it('OpenAI Responses: input_tokens, input_tokens_details.cached_tokens, output_tokens', () => {
    const usage = { input_tokens: 125, output_tokens: 48, total_tokens: 173, input_tokens_details: { cached_tokens: 98 }, output_tokens_details: { reasoning_tokens: 0 } }
    expect(normalizeUsage('openai-responses', usage)).to.deep.equal(figures(125, 98, null, 48))
  })

  it('Anthropic: the input total adds the cache reads and writes that input_tokens leaves out', () => {
    const usage = { input_tokens: 21, cache_creation_input_tokens: 188086, cache_read_input_tokens: 0, output_tokens: 393 }
    expect(normalizeUsage('anthropic', usage)).to.deep.equal(figures(188107, 0, 188086, 393))
    expect(normalizeUsage('anthropic', { input_tokens: 21, output_tokens: 5 })).to.deep.equal(figures(21, null, null, 5))
  })

  it('DeepSeek: prompt_cache_hit_tokens is the cached read; DeepSeek reports no write figure', () => {
    const usage = { prompt_tokens: 1200, completion_tokens: 40, prompt_cache_hit_tokens: 1024, prompt_cache_miss_tokens: 176 }
    expect(normalizeUsage('deepseek', usage)).to.deep.equal(figures(1200, 1024, null, 40))
    expect(normalizeUsage('deepseek', { prompt_cache_hit_tokens: 1024, prompt_cache_miss_tokens: 176 })).to.deep.equal(figures(1200, 1024, null, null))
  })

  it('Gemini: promptTokenCount, cachedContentTokenCount, candidates plus thoughts as output', () => {
    const usage = { promptTokenCount: 18625, cachedContentTokenCount: 18010, candidatesTokenCount: 188, thoughtsTokenCount: 12, totalTokenCount: 18825 }
    expect(normalizeUsage('gemini', usage)).to.deep.equal(figures(18625, 18010, null, 200))
  })

  it('OpenRouter: the OpenAI shape with prompt_tokens_details.cache_write_tokens', () => {
    const usage = { prompt_tokens: 194, completion_tokens: 2, total_tokens: 196, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 100, audio_tokens: 0 }, cost: 0.95 }
    expect(normalizeUsage('openrouter', usage)).to.deep.equal(figures(194, 0, 100, 2))
  })

  it('a figure the provider did not report is null, never 0', () => {
    for (const format of ['openai-chat', 'openai-responses', 'anthropic', 'deepseek', 'gemini', 'openrouter'] as const) {
      expect(normalizeUsage(format, {}), format).to.deep.equal(figures(null, null, null, null))
    }
    expect(normalizeUsage('gemini', { promptTokenCount: 10, candidatesTokenCount: 2 })).to.deep.equal(figures(10, null, null, 2))
  })

  it('refuses a usage that is not an object, and a format it does not read, with WIRE_INVALID_USAGE', () => {
    expect(thrown(() => normalizeUsage('anthropic', 7))).to.include({ code: 'WIRE_INVALID_USAGE', message: 'usage for "anthropic": expected a usage object' })
    expect(thrown(() => normalizeUsage('cohere' as UsageFormat, {}))).to.include({
      code: 'WIRE_INVALID_USAGE',
      message: 'usage for "cohere": unknown usage format; known formats: openai-chat, openai-responses, openrouter, anthropic, deepseek, gemini, moonshot, qwen',
    })
  })

  it('isUsage tells a normalised record from a provider object', () => {
    expect(isUsage(figures(1, null, 0, 2))).to.equal(true)
    expect(isUsage({ prompt_tokens: 1 })).to.equal(false)
    expect(isUsage(figures(-1, null, null, null))).to.equal(false)
  })
})
