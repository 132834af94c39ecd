import { expect } from 'chai'
import { anthropicMiss, joinMiss, readReply, responsesMiss, type CacheBreak } from 'dsh-wire'

// The providers' cache diagnoses (issue 23, item 2), read from reply shapes as documented, and joined with
// dsh's break: one test per class.

const brk = (kind: CacheBreak['kind'], message: number | null): CacheBreak => ({ message, section: 'x', kind, owner: null, layer: null, cause: 'tool added: "x"' })
const report = (breaks: CacheBreak[], limit?: string) => ({ breaks, predictedCachedTokens: 0, ...(limit ? { limit } : {}) })

describe('dsh-wire: the providers\' cache diagnoses', () => {
  it('reads each Anthropic cache_miss_reason type into its class, with the missed tokens', () => {
    const cases = [['model_changed', 'model'], ['system_changed', 'system'], ['tools_changed', 'tools'], ['messages_changed', 'messages'], ['previous_message_not_found', 'unknown'], ['unavailable', 'unknown']] as const
    for (const [type, kind] of cases) {
      const missed = type.endsWith('changed') ? { cache_missed_input_tokens: 512 } : {}
      expect(anthropicMiss({ cache_miss_reason: { type, ...missed } }), type).to.deep.equal({ reason: type, class: kind, ...(type.endsWith('changed') ? { missedTokens: 512 } : {}) })
    }
    expect(anthropicMiss({ cache_miss_reason: null })).to.deep.equal({ reason: 'pending', class: 'pending' })
    expect(anthropicMiss(null)).to.equal(undefined)
    expect(anthropicMiss(null, true)).to.deep.equal({ reason: 'no divergence', class: 'hit' })
  })

  it('reads a Response\'s prompt_cache_diagnostics: cache_hit, cache_miss by the words of its reason, not found, unavailable', () => {
    expect(responsesMiss({ type: 'cache_hit' })).to.deep.equal({ reason: 'cache_hit', class: 'hit' })
    expect(responsesMiss({ type: 'cache_miss', reason: 'tools_changed', cache_missed_tokens: 900, comparison_reusable_tokens: 2048 })).to.deep.equal({ reason: 'tools_changed', class: 'tools', missedTokens: 900 })
    expect(responsesMiss({ type: 'cache_miss', reason: 'model_changed', cache_missed_tokens: 1 })).to.include({ class: 'model' })
    expect(responsesMiss({ type: 'cache_miss', reason: 'instructions_changed', cache_missed_tokens: 1 })).to.include({ class: 'system' })
    expect(responsesMiss({ type: 'comparison_response_not_found' })).to.deep.equal({ reason: 'comparison_response_not_found', class: 'unknown' })
    expect(responsesMiss({ type: 'unavailable' })).to.deep.equal({ reason: 'unavailable', class: 'unknown' })
  })

  it('the reply readers carry the reply\'s id and diagnosis', () => {
    const reply = { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }], diagnostics: { cache_miss_reason: { type: 'tools_changed', cache_missed_input_tokens: 3 } } }
    expect(readReply('anthropic', reply)).to.deep.include({ id: 'msg_1', miss: { reason: 'tools_changed', class: 'tools', missedTokens: 3 } })
  })

  it('joins: the same part agrees, another part disagrees', () => {
    expect(joinMiss({ reason: 'tools_changed', class: 'tools' }, report([brk('tool', null)]))).to.include({ verdict: 'agrees', dsh: 'tools' })
    expect(joinMiss({ reason: 'model_changed', class: 'model' }, report([brk('model', null)]))).to.include({ verdict: 'agrees', dsh: 'model' })
    expect(joinMiss({ reason: 'messages_changed', class: 'messages' }, report([brk('message', 3)]))).to.include({ verdict: 'agrees', dsh: 'messages' })
    expect(joinMiss({ reason: 'system_changed', class: 'system' }, report([brk('message', 3)]))).to.include({ verdict: 'disagrees', dsh: 'messages' })
    expect(joinMiss({ reason: 'cache_hit', class: 'hit' }, report([brk('tool', null)]))).to.include({ verdict: 'disagrees' })
  })

  it('a provider miss on an unbroken prefix: expiry past the lifetime, below-minimum on the report\'s limit, else unexplained', () => {
    const miss = { reason: 'messages_changed', class: 'messages' } as const
    expect(joinMiss(miss, report([]), { sincePrevious: 301_000, lifetime: 300_000 })).to.include({ verdict: 'expiry', dsh: null })
    expect(joinMiss(miss, report([], 'below the minimum: OpenAI caches a prompt from 1024 tokens (O1)'), { sincePrevious: 1000, lifetime: 300_000 })).to.include({ verdict: 'below-minimum' })
    expect(joinMiss(miss, report([]), { sincePrevious: 1000, lifetime: 300_000 })).to.include({ verdict: 'unexplained' })
  })
})
