import { expect } from 'chai'
import type { ChatMessage, ChatRequest } from 'dsh-agent'
import { bootApp } from 'dsh-testing'
import { expectPrefix, HEADING, IDENTITY, NONE } from './helpers.js'
import { runSixTurns, type SixTurns } from './scenario.js'

const RULES = 'Keep each change small and say why you made it.'
const READ_GUIDANCE = 'Read a file before you change it, and quote the lines you rely on.'
const GREP_GUIDANCE = 'Search with grep before you read whole files.'
const CAREFUL = 'You are a careful coding agent. Work in /work/shop and ask before deleting files.'

/** The messages of `mirror` (same inputs and changes as `coder`, `promptChange: 'replace'`). */
const m = {
  system1: { role: 'system', content: `${IDENTITY}\n\nYou are a coding agent. Work in /work/shop.\n\n${RULES}\n\n${READ_GUIDANCE}` },
  system3: { role: 'system', content: `${IDENTITY}\n\n${CAREFUL}\n\n${RULES}\n\n${READ_GUIDANCE}` },
  system4: { role: 'system', content: `${IDENTITY}\n\n${CAREFUL}\n\n${RULES}\n\n${READ_GUIDANCE}\n\n${GREP_GUIDANCE}` },
  user1: { role: 'user', content: 'The cart total is wrong when a coupon is applied. Please fix it.' },
  snapshot1: { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts` },
  call1: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"src/cart.ts"}' } }] },
  result1: { role: 'tool', content: 'export const total = (items, coupon) => sum(items) - coupon.off - coupon.off', tool_call_id: 'call_1' },
  snapshot2: { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts, src/coupon.ts` },
  reply2: { role: 'assistant', content: 'The coupon is subtracted twice in src/cart.ts.' },
  user3: { role: 'user', content: 'Go ahead and fix it.' },
  reply3: { role: 'assistant', content: 'Fixed: the coupon is now subtracted once.' },
  user4: { role: 'user', content: 'Please add a test for it too.' },
  snapshot4: { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts, tests/cart.spec.ts` },
  reply4: { role: 'assistant', content: 'Added tests/cart.spec.ts.' },
  user5: { role: 'user', content: 'Thanks, that is all for now.' },
  none5: { role: 'user', content: NONE },
  reply5: { role: 'assistant', content: 'You are welcome.' },
  user6: { role: 'user', content: 'One last question: does the fix cover percentage coupons?' },
} satisfies Record<string, ChatMessage>

describe('dsh-agent: the replace policy in the six-turn conversation', () => {
  let run: SixTurns
  let requests: ChatRequest[]
  before(async () => {
    run = await runSixTurns()
    requests = run.mirror
  })

  it('keeps one system prompt at the head of every request, replaced when it changes (turns 3 and 4)', () => {
    const rest = [m.user1, m.snapshot1, m.call1, m.result1, m.snapshot2, m.reply2, m.user3, m.reply3, m.user4, m.snapshot4,
      m.reply4, m.user5, m.none5, m.reply5, m.user6]
    expect(requests.map((r) => r.messages)).to.deep.equal([
      [m.system1, ...rest.slice(0, 2)],
      [m.system1, ...rest.slice(0, 5)],
      [m.system3, ...rest.slice(0, 7)],
      [m.system4, ...rest.slice(0, 10)],
      [m.system4, ...rest.slice(0, 13)],
      [m.system4, ...rest.slice(0, 15)],
    ])
  })

  it('breaks the shared prefix at the head when the prompt changes; everything after the head still extends', () => {
    expectPrefix(requests[0].messages, requests[1].messages)
    expect(requests[2].messages[0]).to.not.deep.equal(requests[1].messages[0])
    expect(requests[3].messages[0]).to.not.deep.equal(requests[2].messages[0])
    for (let i = 1; i < requests.length; i++) expectPrefix(requests[i - 1].messages.slice(1), requests[i].messages.slice(1))
    expectPrefix(requests[3].messages, requests[4].messages)
    expectPrefix(requests[4].messages, requests[5].messages)
  })

  it('records every version, like the append policy; only the requests differ', () => {
    const mirror = run.app.agents.get('mirror')!
    expect(mirror.conversation.filter((e) => e.source === 'system-prompt').map((e) => e.content))
      .to.deep.equal([m.system1.content, m.system3.content, m.system4.content])
  })
})

describe('dsh-agent: choosing the policy', () => {
  it('the service config promptChange: "replace" applies to agents that do not choose', async () => {
    const { app, host: ctx } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Version one.' }, tools: true, agents: { promptChange: 'replace' } })
    const agent = await ctx.agents.create({ id: 'a', model: 'deepseek-chat' })
    expect(agent.promptChange).to.equal('replace')
    await agent.step('First.')
    agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'Version two.' })
    expect((await agent.step('Second.')).messages).to.deep.equal([
      { role: 'system', content: 'Version two.' },
      { role: 'user', content: 'First.' },
      { role: 'user', content: 'Second.' },
    ])
  })

  it('an agent\'s own promptChange: "append" overrides the service\'s "replace"', async () => {
    const { app, host: ctx } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Version one.' }, tools: true, agents: { promptChange: 'replace' } })
    const agent = await ctx.agents.create({ id: 'a', model: 'deepseek-chat', promptChange: 'append' })
    await agent.step('First.')
    agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'Version two.' })
    expect((await agent.step('Second.')).messages).to.deep.equal([
      { role: 'system', content: 'Version one.' },
      { role: 'user', content: 'First.' },
      { role: 'system', content: 'Version two.' },
      { role: 'user', content: 'Second.' },
    ])
  })

  it('defaults to append', async () => {
    const { app, host: ctx } = await bootApp({ systemPrompt: true, tools: true, agents: true })
    expect(app.agents.config.promptChange).to.equal('append')
    expect((await ctx.agents.create({ id: 'a', model: 'deepseek-chat' })).promptChange).to.equal('append')
  })
})
