import { expect } from 'chai'
import type { ChatMessage, ChatRequest } from 'dsh-agent'
import { expectPrefix, HEADING, IDENTITY, NONE } from './helpers.js'
import { GREP_GUIDANCE, READ_GUIDANCE, RULES, runSixTurns, SIX_TURN_MESSAGES, type SixTurns } from './scenario.js'


const m = SIX_TURN_MESSAGES

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
