import { expect } from 'chai'
import { buildRequest, WireSession, type BreakpointOptions } from 'dsh-wire'
import { thrown } from 'dsh-testing'
import { input, toolConversation } from './helpers.js'

// Issue 20, item 10: breakpoint options that cannot plan anything are refused, not planned as none.

describe('dsh-wire: breakpoint counts that are not counts (issue 20)', () => {
  const refusals: Array<[string, BreakpointOptions, string]> = [
    ['a minTokens that is a text', { minTokens: '1024' as unknown as number }, 'minTokens must be a count of tokens (a finite number, 0 or more), received "1024"'],
    ['a minTokens of NaN', { minTokens: NaN }, 'minTokens must be a count of tokens (a finite number, 0 or more), received NaN'],
    ['a family minimum that is not a count', { minimums: { m: -1 } }, 'the minimum for model "m" in minimums must be a count of tokens (a finite number, 0 or more), received -1'],
    ['a countTokens returning NaN', { countTokens: () => NaN }, 'countTokens must return a count of tokens (a finite number, 0 or more) for every text; the tools counted NaN'],
    ['a countTokens returning -1', { countTokens: () => -1 }, 'countTokens must return a count of tokens (a finite number, 0 or more) for every text; the tools counted -1'],
    ['a countTokens that is not a function', { countTokens: 5 as unknown as () => number }, 'countTokens must be a function from a text to its count of tokens, received 5'],
  ]
  for (const [what, breakpoints, problem] of refusals) {
    it(`${what}: WIRE_INVALID_BREAKPOINTS, in a whole body and in a session`, () => {
      const expected = { code: 'WIRE_INVALID_BREAKPOINTS', details: { problem } }
      expect(thrown(() => buildRequest('anthropic', input(toolConversation(), { breakpoints })))).to.deep.include(expected)
      expect(thrown(() => new WireSession('anthropic').build(input(toolConversation(), { breakpoints })))).to.deep.include(expected)
    })
  }

  it('a count that is a valid number still plans breakpoints', () => {
    const body = buildRequest('anthropic', input(toolConversation(), { breakpoints: { minTokens: 0 } })) as { system?: Array<{ cache_control?: unknown }> }
    expect(body.system?.at(-1)?.cache_control).to.deep.equal({ type: 'ephemeral' })
  })
})
