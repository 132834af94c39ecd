import { expect } from 'chai'
import type { Context } from 'cordis'
import fc from 'fast-check'
import type { Agent, PromptChangePolicy, StepResult, WireFormat } from 'dsh-agent'
import { bootApp, rejection, thrown, tool } from 'dsh-testing'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(160)
/** Where each format keeps its element list. */
const ELEMENTS: Record<string, string> = { 'openai-chat': 'messages', 'openai-responses': 'input', anthropic: 'messages', gemini: 'contents' }
const FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const

/** `request` without its last element, as JSON: a fork's body with its trailing message taken out. */
function withoutTrailing(format: WireFormat, request: object): string {
  const list = (request as Record<string, unknown[]>)[ELEMENTS[format]]
  return JSON.stringify({ ...request, [ELEMENTS[format]]: list.slice(0, -1) })
}

describe('dsh-agent: forks, side requests that repeat the latest request (issue 21)', () => {
  let harness: Context
  let mood = 'calm'
  let made = 0
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, tools: true, agents: true }))
    harness.tools.register(tool('read'))
    harness.systemPrompt.variable('mood', () => mood)
    harness.systemPrompt.section({ name: 'style', order: 10, text: 'Mood: {{mood}}.' })
    mood = 'calm'
  })

  const agentFor = (model: string, promptChange: PromptChangePolicy = 'append') => harness.agents.create({ id: `a${made++}`, model, promptChange })

  it('Anthropic: the fork is the latest request byte for byte plus the instruction, its breakpoints at the same places, and predicts the whole prefix cached', async () => {
    const agent = await agentFor('claude-sonnet-4-5')
    await agent.stepDetailed('Read the file.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Done.' })
    const last = await agent.stepDetailed('Now summarise it.', { format: 'anthropic' })
    const fork = await agent.fork({ kind: 'title', instruction: 'Give this conversation a title of five words.', format: 'anthropic' })
    expect(withoutTrailing('anthropic', fork.request)).to.equal(last.body)
    expect(fork.request.messages.at(-1)).to.deep.equal({ role: 'user', content: [{ type: 'text', text: 'Give this conversation a title of five words.' }] })
    expect(fork.parity()).to.equal(null)
    expect(fork.report).to.include({ turn: last.report.turn, reusableTokens: last.report.requestTokens, reusableBytes: last.report.requestBytes, predictedCachedTokens: last.report.requestTokens })
    expect(fork.report.side).to.deep.equal({ kind: 'title' })
    expect(fork.report.breaks).to.deep.equal([])
  })

  it('never changes the agent: its record, its next request and that request\'s report are as if there had been no fork', async () => {
    const forked = await agentFor('gpt-5')
    const plain = await agentFor('gpt-5')
    const seen: StepResult<WireFormat>[] = []
    harness.on('agent/step', (agent, result) => { if (agent === forked) seen.push(result) })
    for (const agent of [forked, plain]) await agent.step('Hi.')
    const before = forked.conversation.length
    const fork = await forked.fork({ kind: 'compact', instruction: 'Summarise the conversation.' })
    expect(forked.conversation.length).to.equal(before)
    expect(seen.map((result) => result.side)).to.deep.equal([undefined, { kind: 'compact' }])
    expect(seen[1].added.at(-1)).to.equal(fork.conversation.at(-1))
    fork.record({ role: 'assistant', content: 'A greeting.' }, { usage: { inputTokens: 10, cachedReadTokens: 1024, cacheWriteTokens: null, outputTokens: 2 } })
    expect(fork.report.reportedCachedTokens).to.equal(1024)
    expect(forked.conversation.length).to.equal(before)
    const next = await Promise.all([forked, plain].map((agent) => agent.stepDetailed('More.')))
    expect(next[0].body.replace('"a0"', '')).to.equal(next[1].body.replace('"a1"', ''))
    const { side, ...report } = next[0].report
    expect(side).to.equal(undefined)
    expect(report).to.deep.equal(next[1].report)
    expect(next[0].budget).to.deep.equal(next[1].budget)
  })

  it('refuses a reply that calls a tool with AGENT_FORK_TOOL_REFUSED, naming the call, and records it nowhere', async () => {
    const agent = await agentFor('gpt-5')
    await agent.step('Hi.')
    const fork = await agent.fork({ kind: 'aside', instruction: 'What is in the file?' })
    const error = thrown(() => fork.record({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{}' } }] }))
    expect(error).to.deep.include({ code: 'AGENT_FORK_TOOL_REFUSED', details: { id: agent.id, kind: 'aside', calls: [{ id: 'call_1', name: 'read' }] } })
    expect(fork.conversation.map((item) => item.source)).to.deep.equal(['user'])
    expect(agent.conversation.some((item) => item.source === 'assistant')).to.equal(false)
  })

  it('needs a request of its format to repeat (AGENT_FORK_NO_REQUEST) and a kind and an instruction (AGENT_INVALID_FORK)', async () => {
    const agent = await agentFor('gpt-5')
    expect(await rejection(agent.fork({ kind: 'title', instruction: 'Title?' }))).to.deep.include({ code: 'AGENT_FORK_NO_REQUEST', details: { id: agent.id, kind: 'title', format: 'openai-chat' } })
    await agent.step('Hi.')
    expect(await rejection(agent.fork({ kind: 'title', instruction: 'Title?', format: 'gemini' }))).to.deep.include({ code: 'AGENT_FORK_NO_REQUEST' })
    expect(await rejection(agent.fork({ kind: '', instruction: 'Title?' }))).to.deep.include({ code: 'AGENT_INVALID_FORK' })
    expect(await rejection(agent.fork({ kind: 'title', instruction: '' }))).to.deep.include({ code: 'AGENT_INVALID_FORK' })
    expect(await rejection(agent.fork({ kind: 'title', instruction: 7 as unknown as string }))).to.deep.include({
      code: 'AGENT_INVALID_FORK', details: { id: agent.id, problem: 'instruction must be a text or content parts' },
    })
  })

  // One turn of a random conversation: the user's text, then a reply in text or through one tool call.
  const turn = fc.record({ input: fc.string({ minLength: 1, maxLength: 40 }), viaTool: fc.boolean(), reply: fc.string({ minLength: 1, maxLength: 40 }) })
  const sessions = fc.record({ turns: fc.array(turn, { minLength: 1, maxLength: 5 }), change: fc.boolean(), instruction: fc.string({ minLength: 1, maxLength: 40 }) })

  for (const format of FORMATS) {
    for (const promptChange of ['append', 'replace'] as const) {
      it(`parity over random sessions (${format}, ${promptChange}): the fork is the latest body plus its message; a changed section is reported with its owner`, async () => {
        await fc.assert(fc.asyncProperty(sessions, async ({ turns, change, instruction }) => {
          mood = 'calm'
          const agent = await agentFor(format === 'anthropic' ? 'claude-sonnet-4-5' : format === 'gemini' ? 'gemini-2.5-pro' : 'gpt-5', promptChange)
          let last!: StepResult<WireFormat>
          for (const [i, { input, viaTool, reply }] of turns.entries()) {
            if (i) agent.record({ role: 'assistant', content: reply })
            last = await agent.stepDetailed(input, { format })
            if (viaTool) {
              agent.record({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read', arguments: '{}' } }] })
              agent.record({ role: 'tool', tool_call_id: `call_${i}`, content: reply })
              last = await agent.stepDetailed(undefined, { format })
            }
          }
          if (change) mood = 'stern'
          const fork = await agent.fork({ kind: 'compact', instruction })
          if (change) {
            expect(fork.parity()).to.deep.include({ section: 'style', kind: 'section', owner: 'host' })
          } else {
            expect(withoutTrailing(format, fork.request)).to.equal(last.body)
            expect(fork.parity()).to.equal(null)
            expect(fork.report.reusableBytes).to.equal(last.report.requestBytes)
            // The agent's next request extends its own latest one, as if there had been no fork.
            const next = await agent.stepDetailed('After the fork.', { format })
            expect(next.report).to.include({ turn: last.report.turn + 1, reusableBytes: last.report.requestBytes })
            expect(next.report.breaks).to.deep.equal([])
          }
          await agent.dispose()
        }), { numRuns: 12 })
      })
    }
  }
})
