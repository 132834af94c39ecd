import { expect } from 'chai'
import { bootApp } from 'dsh-testing'
import { wireFormat } from 'dsh-wire'

// Issue 20, item 8: what the wire refuses (dsh-wire's reliability-send-path.spec.ts) fails the step
// before anything is recorded.

describe('dsh-agent: a step the wire refuses records nothing (issue 20)', () => {
  it('step("") in anthropic and gemini rejects with WIRE_EMPTY_TEXT and leaves the conversation as it was; a tool no provider takes rejects the step the same way', async () => {
    const { host } = await bootApp({ systemPrompt: { persona: 'Be brief.' }, tools: true, agents: true })
    const agent = await host.agents.create({ id: 'a', model: 'claude-sonnet-4-5' })
    for (const format of ['anthropic', 'gemini'] as const) {
      const error = await agent.stepDetailed('', { format }).then(() => undefined, (e: unknown) => e as { code?: string })
      expect(error?.code, format).to.equal('WIRE_EMPTY_TEXT')
      expect(agent.conversation, format).to.deep.equal([])
    }
    host.systemPrompt.tools(() => ({ schemas: [{ name: 'read file', description: 'Reads.', parameters: { type: 'object' } }] }))
    const error = await agent.stepDetailed('Hi.', { format: 'anthropic' }).then(() => undefined, (e: unknown) => e as { code?: string; details?: object })
    expect([error?.code, error?.details]).to.deep.equal(['WIRE_INVALID_TOOL_NAME', { format: 'anthropic', tool: 'read file', rule: '/^[a-zA-Z0-9_-]{1,64}$/', source: wireFormat('anthropic').toolRules.name.source }])
    expect(agent.conversation).to.deep.equal([])
  })
})
