import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { exportLedger, type Agent, type ProviderReply, type RecordedMessage } from 'dsh-agent'
import { replyAccumulator, REPLY_FORMATS, type ReplyFormat } from 'dsh-wire'
import { rejection, thrown } from 'dsh-testing'
import { harness } from './ledger-scenario.js'
import {
  ANTHROPIC_REPLY, ANTHROPIC_STREAM, CHAT_REPLY, CHAT_STREAM, GEMINI_REPLY, GEMINI_STREAM, PNG, RESPONSES_REPLY, RESPONSES_STREAM,
} from '../../wire/tests/reply-fixtures.js'

const REPLIES: Record<ReplyFormat, { reply: unknown; stream: readonly unknown[]; state: string }> = {
  'openai-chat': { reply: CHAT_REPLY, stream: CHAT_STREAM, state: 'call_b' },
  'openai-responses': { reply: RESPONSES_REPLY, stream: RESPONSES_STREAM, state: 'gAAAAABpENCRYPTED==' },
  anthropic: { reply: ANTHROPIC_REPLY, stream: ANTHROPIC_STREAM, state: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
  gemini: { reply: GEMINI_REPLY, stream: GEMINI_STREAM, state: 'CiQBjz1rX2Signature==' },
}

/** A tool result with a screenshot, where the format carries one (chat completions' tool messages are text only). */
function toolResult(format: ReplyFormat, id: string): RecordedMessage {
  if (format === 'openai-chat') return { role: 'tool', tool_call_id: id, content: 'hello' }
  return { role: 'tool', tool_call_id: id, content: 'a screenshot', parts: [{ type: 'text', text: 'a screenshot' }, { type: 'image', mediaType: 'image/png', data: PNG }] }
}

/** A tool loop in `format`: the reply recorded as the provider sent it (or its stream, accumulated), a tool result, and the next step. */
async function loop(agent: Agent, format: ReplyFormat, streamed: boolean): Promise<void> {
  await agent.step('Read a.txt.', { format })
  let reply = REPLIES[format].reply
  if (streamed) {
    const accumulator = replyAccumulator(format)
    for (const event of REPLIES[format].stream) accumulator.push(event)
    reply = accumulator.result()
  }
  agent.record(reply as ProviderReply, { format })
  const last = agent.conversation.at(-1)!
  for (const call of last.role === 'assistant' ? last.tool_calls ?? [] : []) agent.record(toolResult(format, call.id))
  await agent.step(undefined, { format })
}

describe('dsh-agent: replies recorded in every format survive record, ledger, restore and the next request (issue 19)', () => {
  for (const format of REPLY_FORMATS) {
    it(`${format}: record(reply, { format }) keeps its reasoning state and images; a restored agent's next request is byte-identical`, async () => {
      const before = await harness('append')
      const original = await before.host.agents.create({ id: 'a', model: 'm' })
      await loop(original, format, false)
      const ledger = exportLedger(original)
      const expected = await original.stepDetailed('One more.', { format })
      expect(expected.body).to.include(REPLIES[format].state)
      if (format !== 'openai-chat') expect(expected.body).to.include(PNG)

      const after = await harness('append')
      const restored = await after.host.agents.restore(ledger)
      expect(exportLedger(restored)).to.equal(ledger)
      expect((await restored.stepDetailed('One more.', { format })).body).to.equal(expected.body)
    })

    it(`${format}: the same reply streamed records byte for byte as unstreamed (the same ledger)`, async () => {
      const booted = await harness('append')
      const plain = await booted.host.agents.create({ id: 'plain', model: 'm' })
      const streamed = await booted.host.agents.create({ id: 'streamed', model: 'm' })
      await loop(plain, format, false)
      await loop(streamed, format, true)
      const lines = (agent: Agent) => exportLedger(agent).split('\n').slice(1).map((line) => line.replace(/,"hash":"[0-9a-f]+"\}$/, '}'))
      expect(lines(streamed)).to.deep.equal(lines(plain))
    })
  }

  for (const format of ['openai-chat', 'anthropic'] as const) {
    it(`${format}: user input with an image (step(parts)) survives record, ledger, restore and the next request byte for byte`, async () => {
      const before = await harness('append')
      const original = await before.host.agents.create({ id: 'a', model: 'm' })
      await original.step([{ type: 'text', text: 'What is this?' }, { type: 'image', mediaType: 'image/png', data: PNG }], { format })
      expect(original.conversation.find((item) => item.source === 'user')).to.deep.include({ content: 'What is this?' })
      original.record({ role: 'assistant', content: 'A pixel.' })
      const ledger = exportLedger(original)
      const expected = await original.stepDetailed('And now?', { format })
      expect(expected.body).to.include(PNG)
      const after = await harness('append')
      const restored = await after.host.agents.restore(ledger)
      expect(exportLedger(restored)).to.equal(ledger)
      expect((await restored.stepDetailed('And now?', { format })).body).to.equal(expected.body)
    })
  }

  it('input parts that do not pass their checks are refused with AGENT_INVALID_INPUT naming the problem, and nothing is recorded', async () => {
    const booted = await harness('append')
    const agent = await booted.host.agents.create({ id: 'i', model: 'm' })
    const error = await rejection(agent.step([{ type: 'image', mediaType: 'image/png' }] as never))
    expect(error).to.deep.include({ code: 'AGENT_INVALID_INPUT', details: { id: 'i', problem: 'parts: parts[0].data must be string' } })
    expect(error.message).to.equal('agent "i" step(input): input parts: parts: parts[0].data must be string')
    expect(agent.conversation).to.have.length(0)
  })

  it('a ledger whose user-input parts were changed into a wrong shape (chain rebuilt) is refused with AGENT_LEDGER_INVALID_ENTRY naming its line', async () => {
    const booted = await harness('append')
    const agent = await booted.host.agents.create({ id: 'f', model: 'm' })
    await agent.step([{ type: 'text', text: 'Look.' }, { type: 'image', mediaType: 'image/png', data: PNG }])
    let previous = ''
    const forged = exportLedger(agent).trimEnd().split('\n').map((line) => {
      const { hash: _, ...fields } = JSON.parse(line) as Record<string, unknown>
      if (Array.isArray(fields.parts)) fields.parts = [{ type: 'text', text: 'Look.' }, { type: 'image', mediaType: 'image/png', data: 7 }]
      previous = createHash('sha256').update(previous + JSON.stringify(fields)).digest('hex')
      return JSON.stringify({ ...fields, hash: previous }) + '\n'
    }).join('')
    const line = forged.split('\n').findIndex((text) => text.includes('"parts"')) + 1
    const after = await harness('append')
    expect(await rejection(after.host.agents.restore(forged))).to.deep.include({ code: 'AGENT_LEDGER_INVALID_ENTRY' }).and.to.have.nested.property('details.line', line)
  })

  it('a Gemini call without an id is named by the replies recorded before it, and keeps that name through a ledger', async () => {
    const booted = await harness('append')
    const agent = await booted.host.agents.create({ id: 'g', model: 'm' })
    await loop(agent, 'gemini', false)
    await loop(agent, 'gemini', false)
    const ids = agent.conversation.flatMap((item) => (item.role === 'assistant' ? (item.tool_calls ?? []).map((call) => call.id) : []))
    expect(ids).to.deep.equal(['gemini-0-0', 'gemini-1-0'])
    const after = await harness('append')
    const restored = await after.host.agents.restore(exportLedger(agent))
    restored.record(GEMINI_REPLY as ProviderReply, { format: 'gemini' })
    agent.record(GEMINI_REPLY as ProviderReply, { format: 'gemini' })
    expect(exportLedger(restored)).to.equal(exportLedger(agent))
  })

  it('parts that disagree with content or name other calls are refused with AGENT_INVALID_RECORD, and nothing is recorded', async () => {
    const booted = await harness('append')
    const agent = await booted.host.agents.create({ id: 'p', model: 'm' })
    await agent.step('Hi.')
    const length = agent.conversation.length
    expect(thrown(() => agent.record({ role: 'assistant', content: 'Hi', parts: [{ type: 'text', text: 'Hello' }] }))).to.deep.include({
      code: 'AGENT_INVALID_RECORD', details: { id: 'p', problem: 'parts cannot be recorded: parts: content must be the text parts joined ("Hello"), found "Hi"' },
    })
    expect(thrown(() => agent.record({ role: 'assistant', content: null, parts: [{ type: 'reasoning', format: 'anthropic', item: { type: 'thinking', thinking: 'x' } }] as never }))).to.deep.include({
      code: 'AGENT_INVALID_RECORD', details: { id: 'p', problem: 'parts cannot be recorded: parts: parts[0].item.signature must be string' },
    })
    expect(agent.conversation).to.have.length(length)
  })

  it('a message given with a format is recorded as it is, its usage read in that format (as before)', async () => {
    const booted = await harness('append')
    const agent = await booted.host.agents.create({ id: 'u', model: 'm' })
    await agent.step('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' }, { usage: ANTHROPIC_REPLY.usage, format: 'anthropic' })
    expect(agent.conversation.at(-1)).to.deep.include({ role: 'assistant', content: 'Hello.', usage: { inputTokens: 1850, cachedReadTokens: 1800, cacheWriteTokens: 0, outputTokens: 140 } })
  })
})
