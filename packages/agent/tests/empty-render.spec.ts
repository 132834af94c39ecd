import { expect } from 'chai'
import type { Context } from 'cordis'
import { bootApp } from 'dsh-testing'

describe('dsh-agent: an empty render', () => {
  let app: Context
  let harness: Context
  let instruction: string
  beforeEach(async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, agents: true }))
    instruction = 'Answer in English.'
    harness.systemPrompt.section({ name: 'language', order: 10, text: () => instruction })
  })

  it('clears earlier system messages from what is sent; a later non-empty render appends again', async () => {
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat' })
    expect((await agent.step('One.')).messages).to.deep.equal([
      { role: 'system', content: 'Answer in English.' },
      { role: 'user', content: 'One.' },
    ])
    instruction = ''
    expect((await agent.step('Two.')).messages).to.deep.equal([
      { role: 'user', content: 'One.' },
      { role: 'user', content: 'Two.' },
    ])
    expect((await agent.step('Three.')).messages).to.deep.equal([
      { role: 'user', content: 'One.' },
      { role: 'user', content: 'Two.' },
      { role: 'user', content: 'Three.' },
    ])
    instruction = 'Answer in French.'
    expect((await agent.step('Four.')).messages).to.deep.equal([
      { role: 'user', content: 'One.' },
      { role: 'user', content: 'Two.' },
      { role: 'user', content: 'Three.' },
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Four.' },
    ])
  })

  it('records the clearing once, as an empty system-prompt entry that is never sent', async () => {
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat' })
    await agent.step('One.')
    instruction = ''
    await agent.step('Two.')
    await agent.step('Three.')
    expect(agent.conversation.map((e) => [e.source, e.content])).to.deep.equal([
      ['system-prompt', 'Answer in English.'], ['user', 'One.'], ['system-prompt', ''], ['user', 'Two.'], ['user', 'Three.'],
    ])
  })

  it('a render equal to the text before the clearing is appended again (it is no longer in force)', async () => {
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat' })
    await agent.step('One.')
    instruction = ''
    await agent.step('Two.')
    instruction = 'Answer in English.'
    expect((await agent.step('Three.')).messages).to.deep.equal([
      { role: 'user', content: 'One.' },
      { role: 'user', content: 'Two.' },
      { role: 'system', content: 'Answer in English.' },
      { role: 'user', content: 'Three.' },
    ])
  })

  it('an agent whose prompt is empty from the start sends and records no system message', async () => {
    instruction = ''
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat' })
    expect((await agent.step('Hello.')).messages).to.deep.equal([{ role: 'user', content: 'Hello.' }])
    expect(agent.conversation.map((e) => e.source)).to.deep.equal(['user'])
  })

  it('one empty section among others is simply dropped: nothing is cleared', async () => {
    harness.systemPrompt.section({ name: 'rules', order: 20, text: 'Be brief.' })
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat' })
    await agent.step('One.')
    instruction = ''
    expect((await agent.step('Two.')).messages).to.deep.equal([
      { role: 'system', content: 'Answer in English.\n\nBe brief.' },
      { role: 'user', content: 'One.' },
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Two.' },
    ])
  })

  it('under the replace policy the head disappears while the render is empty and returns with the next text', async () => {
    const agent = await harness.agents.create({ id: 'a', model: 'deepseek-chat', promptChange: 'replace' })
    await agent.step('One.')
    instruction = ''
    expect((await agent.step('Two.')).messages).to.deep.equal([
      { role: 'user', content: 'One.' },
      { role: 'user', content: 'Two.' },
    ])
    instruction = 'Answer in French.'
    expect((await agent.step('Three.')).messages).to.deep.equal([
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'One.' },
      { role: 'user', content: 'Two.' },
      { role: 'user', content: 'Three.' },
    ])
  })
})
