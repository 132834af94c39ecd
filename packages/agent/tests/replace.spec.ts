import { expect } from 'chai'
import type { ChatMessage, ChatRequest } from 'dsh-agent'
import { bootApp } from 'dsh-testing'
import { expectPrefix, HEADING, IDENTITY, NONE } from './helpers.js'
import { CAREFUL, GREP_GUIDANCE, READ_GUIDANCE, RULES, runSixTurns, SIX_TURN_MESSAGES, type SixTurns } from './scenario.js'


/** The messages of `mirror` (same inputs and changes as `coder`, `promptChange: 'replace'`). */
const m = SIX_TURN_MESSAGES

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
