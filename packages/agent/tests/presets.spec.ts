import { expect } from 'chai'
import type { Context } from 'cordis'
import type { ChatMessage, ChatRequest } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'
import { expectPrefix, HEADING, IDENTITY, NONE } from './helpers.js'
import { runSixTurns } from './scenario.js'

const RULES = 'Keep each change small and say why you made it.'
const READ_GUIDANCE = 'Read a file before you change it, and quote the lines you rely on.'
const GREP_GUIDANCE = 'Search with grep before you read whole files.'
const PERSONA = 'You review changes in /work/shop. You never edit files yourself.'

/** The messages of `reviewer`, named by the turn that adds them. */
const m = {
  system1: { role: 'system', content: `${IDENTITY}\n\n${PERSONA}\n\n${RULES}\n\n${READ_GUIDANCE}` },
  system4: { role: 'system', content: `${IDENTITY}\n\n${PERSONA}\n\n${RULES}\n\n${READ_GUIDANCE}\n\n${GREP_GUIDANCE}` },
  user1: { role: 'user', content: 'Review the coupon fix when it is ready.' },
  snapshot1: { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts` },
  reply1: { role: 'assistant', content: 'I will review it once it is ready.' },
  user2: { role: 'user', content: 'Any progress?' },
  snapshot2: { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts, src/coupon.ts` },
  reply2: { role: 'assistant', content: 'Not yet.' },
  user3: { role: 'user', content: 'Is it fixed?' },
  reply3: { role: 'assistant', content: 'The fix looks right.' },
  user4: { role: 'user', content: 'Check the new test as well.' },
  snapshot4: { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts, tests/cart.spec.ts` },
  reply4: { role: 'assistant', content: 'The test covers it.' },
  user5: { role: 'user', content: 'Thanks.' },
  none5: { role: 'user', content: NONE },
  reply5: { role: 'assistant', content: 'Done.' },
  user6: { role: 'user', content: 'Anything else?' },
} satisfies Record<string, ChatMessage>

describe('dsh-agent: a preset\'s agent in the six-turn conversation', () => {
  let requests: ChatRequest[]
  before(async () => { requests = (await runSixTurns()).reviewer })

  it('sends the preset\'s persona from turn 1, and another agent\'s persona change at turn 3 adds nothing', () => {
    expect(requests.map((r) => r.messages)).to.deep.equal([
      [m.system1, m.user1, m.snapshot1],
      [m.system1, m.user1, m.snapshot1, m.reply1, m.user2, m.snapshot2],
      [m.system1, m.user1, m.snapshot1, m.reply1, m.user2, m.snapshot2, m.reply2, m.user3],
      [m.system1, m.user1, m.snapshot1, m.reply1, m.user2, m.snapshot2, m.reply2, m.user3, m.reply3, m.system4, m.user4, m.snapshot4],
      [m.system1, m.user1, m.snapshot1, m.reply1, m.user2, m.snapshot2, m.reply2, m.user3, m.reply3, m.system4, m.user4, m.snapshot4,
        m.reply4, m.user5, m.none5],
      [m.system1, m.user1, m.snapshot1, m.reply1, m.user2, m.snapshot2, m.reply2, m.user3, m.reply3, m.system4, m.user4, m.snapshot4,
        m.reply4, m.user5, m.none5, m.reply5, m.user6],
    ])
  })

  it('every request starts with the previous request\'s messages, byte for byte', () => {
    for (let i = 1; i < requests.length; i++) expectPrefix(requests[i - 1].messages, requests[i].messages)
  })
})

describe('dsh-agent: presets', () => {
  let app: Context
  let harness: Context
  beforeEach(async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { persona: 'You are the shop\'s coding agent.' }, tools: true, agents: true, host: { name: 'harness' } }))
    harness.systemPrompt.section({ name: 'house:rules', order: 100, text: 'Keep each change small.' })
    harness.systemPrompt.context({ name: 'editor:open-files', order: 200, text: 'Open files: src/cart.ts' })
    harness.tools.register(tool('bash', { guidance: 'Run one command at a time.' }))
    harness.tools.register(tool('read', { guidance: 'Read before you edit.' }))
  })

  it('a complete persona registered through a preset is the whole system prompt of its agents', async () => {
    const preset = harness.agents.definePreset('auditor')
    preset.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, complete: true, text: 'You audit {{cwd}} and report findings only.' })
    const auditor = await harness.agents.create({ id: 'auditor', model: 'deepseek-chat', cwd: '/srv', preset: 'auditor' })
    const other = await harness.agents.create({ id: 'other', model: 'deepseek-chat' })
    const request = await auditor.step('Audit the repository.')
    expect(request.messages).to.deep.equal([
      { role: 'system', content: 'You audit /srv and report findings only.' },
      { role: 'user', content: 'Audit the repository.' },
      { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts` },
    ])
    expect((await other.step()).messages[0]).to.deep.equal({
      role: 'system',
      content: `${IDENTITY}\n\nYou are the shop's coding agent.\n\nKeep each change small.\n\nRun one command at a time.\n\nRead before you edit.`,
    })
  })

  it('a preset that suppresses the runtime context sends no snapshot, while other agents keep theirs', async () => {
    const preset = harness.agents.definePreset('quiet')
    preset.ctx.systemPrompt.suppressRuntimeContext()
    const quiet = await harness.agents.create({ id: 'quiet', model: 'deepseek-chat', preset: 'quiet' })
    const loud = await harness.agents.create({ id: 'loud', model: 'deepseek-chat' })
    expect((await quiet.step('Hello.')).messages.map((message) => message.content)).to.deep.equal([
      `${IDENTITY}\n\nYou are the shop's coding agent.\n\nKeep each change small.\n\nRun one command at a time.\n\nRead before you edit.`,
      'Hello.',
    ])
    expect((await loud.step('Hello.')).messages.map((message) => message.content).slice(1)).to.deep.equal([
      'Hello.', `${HEADING}\n\nOpen files: src/cart.ts`,
    ])
    expect(quiet.conversation.some((e) => e.source === 'runtime-context')).to.equal(false)
  })

  it('a preset\'s tool restriction hides the tool and its guidance from its agents, not their own tools', async () => {
    const preset = harness.agents.definePreset('reader')
    preset.ctx.tools.restrict({ deny: ['bash'] })
    const reader = await harness.agents.create({ id: 'reader', model: 'deepseek-chat', preset: 'reader' })
    reader.ctx.tools.register(tool('notes'))
    const request = await reader.step()
    expect(request.messages[0].content).to.equal(`${IDENTITY}\n\nYou are the shop's coding agent.\n\nKeep each change small.\n\nRead before you edit.`)
    expect(request.tools!.map((t) => t.function.name)).to.deep.equal(['notes', 'read'])
  })

  it('agents of one preset share its registrations; each agent\'s own registrations stay its own', async () => {
    const preset = harness.agents.definePreset('pair')
    preset.ctx.systemPrompt.section({ name: 'pair:rule', order: 150, text: 'Pair with the other agent.' })
    const left = await harness.agents.create({ id: 'left', model: 'deepseek-chat', preset: 'pair' })
    const right = await harness.agents.create({ id: 'right', model: 'deepseek-chat', preset: 'pair' })
    left.ctx.systemPrompt.section({ name: 'left:role', order: 160, text: 'You write the code.' })
    const base = `${IDENTITY}\n\nYou are the shop's coding agent.\n\nKeep each change small.\n\nPair with the other agent.`
    const tools = 'Run one command at a time.\n\nRead before you edit.'
    expect((await left.step()).messages[0].content).to.equal(`${base}\n\nYou write the code.\n\n${tools}`)
    expect((await right.step()).messages[0].content).to.equal(`${base}\n\n${tools}`)
  })
})
