import { expect } from 'chai'
import { previousEnd, sentEntries } from 'dsh-wire/internal'
import { anthropicRequest, minimumTokens, planBreakpoints, type AnthropicRequest, type BreakpointOptions, type ConversationEntry } from 'dsh-wire'
import { thrown } from 'dsh-testing'
import { call, input, reply, result, snapshot, system, user } from './helpers.js'

// Rules from Anthropic's prompt-caching guide (platform.claude.com/docs/en/build-with-claude/prompt-caching):
// at most 4 breakpoints; the prefix is hashed tools, system, messages; a prefix below the model's minimum
// is not cached; the API looks back about 20 blocks from a breakpoint for an earlier cache entry; a 1h
// entry must come before any 5m one. The minimums table is in src/cache-minimums.ts with its sources.

const ALL: BreakpointOptions = { minTokens: 0 }

function body(record: readonly ConversationEntry[], options: BreakpointOptions = ALL, model = 'claude-sonnet-4-5'): AnthropicRequest {
  return anthropicRequest(input(record, { model, breakpoints: options }))
}

/** Where each `cache_control` went, in hashing order, with its ttl when not the default. */
function marks(request: AnthropicRequest): string[] {
  const found: string[] = []
  const note = (where: string, control?: { ttl?: string }) => { if (control) found.push(control.ttl ? `${where} ${control.ttl}` : where) }
  request.tools?.forEach((tool, i) => note(`tools[${i}]`, tool.cache_control))
  request.system?.forEach((block, i) => note(`system[${i}]`, block.cache_control))
  request.messages.forEach((message, i) => message.content.forEach((block, j) => note(`messages[${i}][${j}]`, block.cache_control)))
  return found
}

const FIRST = [system('Be brief.'), user('Fix the cart.'), snapshot('Open files: cart.ts')]
const SECOND = [...FIRST, call('call_1', 'read', '{"path":"cart.ts"}'), result('call_1', 'export const total = 1'), snapshot('Open files: cart.ts, coupon.ts')]

/** A record whose latest step follows `calls` tool calls and results recorded since the previous request. */
function longToolRun(calls: number): ConversationEntry[] {
  const run = Array.from({ length: calls }, (_, i) => [call(`c${i}`, 'read', '{}'), result(`c${i}`, 'x')]).flat()
  return [...FIRST, ...run, user('Go on.')]
}

describe('dsh-wire: Anthropic cache breakpoints, planned', () => {
  it('the first request marks the end of tools, the end of system and the tail', () => {
    expect(marks(body(FIRST))).to.deep.equal(['tools[0]', 'system[0]', 'messages[1][0]'])
  })

  it('a later request also marks the stable point: the block that ended the previous request, so it is read exactly', () => {
    const first = body(FIRST)
    const second = body(SECOND)
    expect(marks(second)).to.deep.equal(['tools[0]', 'system[0]', 'messages[1][0]', 'messages[4][0]'])
    expect(JSON.stringify(second.messages[1])).to.equal(JSON.stringify(first.messages[1]))
    expect(previousEnd(SECOND, sentEntries(SECOND, 'append').slice(1))).to.equal(1)
  })

  it('the stable point is found past the step\'s own additions and the replies recorded since, and is -1 on a first request', () => {
    expect(previousEnd(FIRST, sentEntries(FIRST, 'append').slice(1))).to.equal(-1)
    const record = [...SECOND, reply('Done.'), system('Be careful.'), user('Thanks.')]
    expect(previousEnd(record, sentEntries(record, 'append').slice(1))).to.equal(4)
  })

  it('never more than four, over a long conversation', () => {
    let record: ConversationEntry[] = [...FIRST]
    for (let turn = 0; turn < 30; turn++) {
      record = [...record, call(`c${turn}`, 'read', '{}'), result(`c${turn}`, 'x'), reply('ok'), user(`turn ${turn}`)]
      expect(marks(body(record)).length).to.be.at.most(4)
    }
    expect(marks(body(record))).to.have.length(4)
  })

  it('over a smaller budget, a stable point within the 20-block lookback goes first, then tools; the tail stays', () => {
    expect(marks(body(SECOND, { ...ALL, max: 2 }))).to.deep.equal(['system[0]', 'messages[4][0]'])
    expect(marks(body(SECOND, { ...ALL, max: 1 }))).to.deep.equal(['messages[4][0]'])
  })

  it('a stable point 20 or more blocks before the tail is kept over tools and system, since the lookback cannot reach it', () => {
    const record = longToolRun(10)
    expect(planBreakpoints(body(record, { ...ALL, max: 2 }), 1, { ...ALL, max: 2 }).map((p) => p.kind)).to.deep.equal(['stable', 'tail'])
    expect(marks(body(record, { ...ALL, max: 3 }))).to.deep.equal(['system[0]', 'messages[1][0]', 'messages[22][0]'])
    expect(marks(body(longToolRun(9), { ...ALL, max: 2 }))).to.deep.equal(['system[0]', 'messages[20][0]'])
  })

  it('refuses a budget outside 1 to 4 with WIRE_INVALID_BREAKPOINTS', () => {
    for (const max of [0, 5, 2.5]) {
      const error = thrown(() => body(FIRST, { max }))
      expect(error).to.include({ code: 'WIRE_INVALID_BREAKPOINTS', message: `anthropic cache breakpoints: max must be an integer from 1 to 4, received ${max}` })
    }
  })

  it('places none whose prefix is below the model family\'s minimum cacheable length', () => {
    const long = [system('x'.repeat(4100)), user('Go.')]
    expect(marks(body(long, {}, 'claude-sonnet-4-5'))).to.deep.equal(['system[0]', 'messages[0][0]'])
    expect(marks(body(long, {}, 'claude-haiku-4-5'))).to.deep.equal([])
    expect(marks(body(FIRST, {}, 'claude-sonnet-4-5'))).to.deep.equal([])
  })

  it('the minimums table goes by model family (longest prefix wins) and is overridable', () => {
    expect(minimumTokens('claude-haiku-4-5-20251001')).to.equal(4096)
    expect(minimumTokens('claude-3-5-haiku-20241022')).to.equal(2048)
    expect(minimumTokens('claude-opus-4-1-20250805')).to.equal(1024)
    expect(minimumTokens('claude-opus-4-5-20251101')).to.equal(4096)
    expect(minimumTokens('claude-sonnet-4-20250514')).to.equal(1024)
    expect(minimumTokens('someone-elses-model')).to.equal(1024)
    expect(minimumTokens('claude-sonnet-4-5', { 'claude-sonnet-4-5': 2048 })).to.equal(2048)
    const long = [system('x'.repeat(4100)), user('Go.')]
    expect(marks(body(long, { minimums: { 'claude-sonnet-4': 8192 } }))).to.deep.equal([])
    expect(marks(body(long, { minTokens: 0 }, 'claude-haiku-4-5'))).to.have.length(3)
  })

  it('counts tokens with the caller\'s counter when given one', () => {
    const counted: string[] = []
    const countTokens = (text: string) => { counted.push(text); return 5000 }
    expect(marks(body(FIRST, { countTokens }))).to.deep.equal(['tools[0]', 'system[0]', 'messages[1][0]'])
    expect(counted).to.include('Be brief.')
  })

  it('sets a TTL per kind: 1h where asked, the 5m default as a bare ephemeral marker', () => {
    const request = body(SECOND, { ...ALL, ttl: { tools: '1h', system: '1h' } })
    expect(marks(request)).to.deep.equal(['tools[0] 1h', 'system[0] 1h', 'messages[1][0]', 'messages[4][0]'])
    expect(request.system![0].cache_control).to.deep.equal({ type: 'ephemeral', ttl: '1h' })
    expect(request.messages[4].content[0].cache_control).to.deep.equal({ type: 'ephemeral' })
  })

  it('refuses a 1h breakpoint after a 5m one, and a TTL that is neither', () => {
    const after = thrown(() => body(FIRST, { ttl: { system: '1h' } }))
    expect(after).to.include({
      code: 'WIRE_INVALID_BREAKPOINTS',
      message: 'anthropic cache breakpoints: ttl.system is "1h" after ttl.tools "5m": a 1h breakpoint may not follow a 5m one (set the earlier kinds to "1h" too)',
    })
    const odd = thrown(() => body(FIRST, { ttl: { tail: '10m' as '5m' } }))
    expect(odd).to.include({ message: 'anthropic cache breakpoints: ttl.tail must be "5m" or "1h", received "10m"' })
  })

  it('breakpoints: false sends no cache_control at all', () => {
    expect(JSON.stringify(anthropicRequest(input(SECOND, { breakpoints: false })))).not.to.include('cache_control')
    expect(marks(anthropicRequest(input(SECOND, { breakpoints: undefined, model: 'claude-opus-5' })))).to.deep.equal([])
  })
})
