import { expect } from 'chai'
import type { ChatMessage, ChatRequest } from 'dsh-agent'
import { expectPrefix, HEADING, IDENTITY, NONE } from './helpers.js'
import { runSixTurns, type SixTurns } from './scenario.js'

const RULES = 'Keep each change small and say why you made it.'
const READ_GUIDANCE = 'Read a file before you change it, and quote the lines you rely on.'
const GREP_GUIDANCE = 'Search with grep before you read whole files.'

/** The messages of `coder`, named by the turn that adds them. */
const m = {
  system1: { role: 'system', content: `${IDENTITY}\n\nYou are a coding agent. Work in /work/shop.\n\n${RULES}\n\n${READ_GUIDANCE}` },
  system3: { role: 'system', content: `${IDENTITY}\n\nYou are a careful coding agent. Work in /work/shop and ask before deleting files.\n\n${RULES}\n\n${READ_GUIDANCE}` },
  system4: { role: 'system', content: `${IDENTITY}\n\nYou are a careful coding agent. Work in /work/shop and ask before deleting files.\n\n${RULES}\n\n${READ_GUIDANCE}\n\n${GREP_GUIDANCE}` },
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

const READ_TOOL = { type: 'function', function: { name: 'read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }
const GREP_TOOL = { type: 'function', function: { name: 'grep', description: 'Search files.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }

describe('dsh-agent: a six-turn conversation (append policy)', () => {
  let run: SixTurns
  let requests: ChatRequest[]
  before(async () => {
    run = await runSixTurns()
    requests = run.coder
  })

  it('turn 1: the system prompt is the opening message, then the input, then the runtime-context snapshot', () => {
    expect(requests[0]).to.deep.equal({ model: 'deepseek-chat', messages: [m.system1, m.user1, m.snapshot1], tools: [READ_TOOL] })
  })

  it('turn 2: the recorded tool call and result, then only the changed snapshot (the prompt rendered the same)', () => {
    expect(requests[1].messages).to.deep.equal([m.system1, m.user1, m.snapshot1, m.call1, m.result1, m.snapshot2])
  })

  it('turn 3: the changed persona appends the new complete system prompt later; the unchanged snapshot adds nothing', () => {
    expect(requests[2].messages).to.deep.equal([
      m.system1, m.user1, m.snapshot1, m.call1, m.result1, m.snapshot2, m.reply2, m.system3, m.user3,
    ])
  })

  it('turn 4: the new tool appends a system prompt carrying its guidance, and the changed snapshot follows the input', () => {
    expect(requests[3].messages).to.deep.equal([
      m.system1, m.user1, m.snapshot1, m.call1, m.result1, m.snapshot2, m.reply2, m.system3, m.user3,
      m.reply3, m.system4, m.user4, m.snapshot4,
    ])
  })

  it('turn 5: the removed context gives the "none" message once', () => {
    expect(requests[4].messages).to.deep.equal([
      m.system1, m.user1, m.snapshot1, m.call1, m.result1, m.snapshot2, m.reply2, m.system3, m.user3,
      m.reply3, m.system4, m.user4, m.snapshot4, m.reply4, m.user5, m.none5,
    ])
  })

  it('turn 6: nothing changed, so only the reply and the input are added', () => {
    expect(requests[5].messages).to.deep.equal([
      m.system1, m.user1, m.snapshot1, m.call1, m.result1, m.snapshot2, m.reply2, m.system3, m.user3,
      m.reply3, m.system4, m.user4, m.snapshot4, m.reply4, m.user5, m.none5, m.reply5, m.user6,
    ])
  })

  it('every request starts with the previous request\'s messages, byte for byte', () => {
    for (let i = 1; i < requests.length; i++) expectPrefix(requests[i - 1].messages, requests[i].messages)
  })

  it('offers the tools registered at each turn: read until turn 3, grep and read from turn 4', () => {
    expect(requests.map((r) => r.tools)).to.deep.equal([
      [READ_TOOL], [READ_TOOL], [READ_TOOL], [GREP_TOOL, READ_TOOL], [GREP_TOOL, READ_TOOL], [GREP_TOOL, READ_TOOL],
    ])
  })

  it('every request names the agent\'s model', () => {
    expect(requests.map((r) => r.model)).to.deep.equal(Array(6).fill('deepseek-chat'))
  })

  it('the record keeps where each entry came from', () => {
    const coder = run.app.agents.get('coder')!
    expect(coder.conversation.map((e) => e.source)).to.deep.equal([
      'system-prompt', 'user', 'runtime-context', 'assistant', 'tool', 'runtime-context', 'assistant', 'system-prompt', 'user',
      'assistant', 'system-prompt', 'user', 'runtime-context', 'assistant', 'user', 'runtime-context', 'assistant', 'user',
    ])
    expect(Object.isFrozen(coder.conversation[0])).to.equal(true)
  })

  it('the record is append-only: the messages a later step sends are the very objects an earlier step sent', () => {
    expect(requests[5].messages[0]).to.equal(requests[0].messages[0])
    expect(Object.isFrozen(requests[0].messages[0])).to.equal(true)
  })
})
