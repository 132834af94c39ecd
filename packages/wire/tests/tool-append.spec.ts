import { expect } from 'chai'
import { buildRequest, entry, requestHeaders, toolAppendChoice, wireFormat, WIRE_FORMATS, type ConversationEntry, type WireInput } from 'dsh-wire'

/** An input whose record holds a tool-change note that adds `grep` through the append path (R-TOOL-13). */
function noteInput(model: string): WireInput {
  const record: ConversationEntry[] = [
    entry({ role: 'system', content: 'Be brief.' }, 'system-prompt'),
    entry({ role: 'user', content: 'Hi.' }, 'user'),
    entry({ role: 'assistant', content: 'Hello.' }, 'assistant'),
    entry({ role: 'user', content: '[tools changed] "grep" is available.', toolAdditions: [{ name: 'grep', description: 'Searches files.', parameters: { type: 'object', properties: {} } }] }, 'user'),
  ]
  return { model, record, tools: [{ name: 'read', parameters: { type: 'object', properties: {} } }], promptChange: 'append', breakpoints: false }
}

describe('dsh-wire: the append path for an added tool (tool-append.ts, R-TOOL-13)', () => {
  const open = { enabled: true, declaredTools: 1 }

  it('each built-in format says whether it has an append path, in its own words', () => {
    const words = Object.fromEntries(WIRE_FORMATS.map((format) => [format, toolAppendChoice(wireFormat(format), { model: 'claude-opus-5', ...open })]))
    expect(words).to.deep.equal({
      'openai-chat': { fallback: 'openai-chat has no append path for an added tool (chat completions take tools only in the request\'s tools list)' },
      'openai-responses': { fallback: 'openai-responses has no append path for an added tool (tool search loads only tools declared with defer_loading from the start, when the model searches)' },
      anthropic: {
        via: 'a system message of tool_addition blocks (platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages#define-tools-in-a-message-beta)',
        header: { name: 'anthropic-beta', value: 'inline-tools-2026-09-15' },
      },
      gemini: { fallback: 'gemini has no append path for an added tool (generateContent takes function declarations only in the request\'s tools)' },
    })
  })

  it('Anthropic\'s path is closed when the deployment has not turned it on, for a model without mid-conversation system messages unless overridden, and with no declared tool', () => {
    const anthropic = wireFormat('anthropic')
    expect(toolAppendChoice(anthropic, { model: 'claude-opus-5', enabled: false, declaredTools: 1 })).to.have.key('fallback')
    expect(toolAppendChoice(anthropic, { model: 'claude-sonnet-5', ...open })).to.deep.equal({ fallback: 'claude-sonnet-5 takes no mid-conversation system message, which anthropic\'s append path needs' })
    expect(toolAppendChoice(anthropic, { model: 'claude-sonnet-5', ...open, promptUpdates: { 'claude-sonnet-5': 'system-message' } })).to.have.all.keys('via', 'header')
    expect(toolAppendChoice(anthropic, { model: 'claude-opus-5', ...open, promptUpdates: { 'claude-opus-5': 'marker' } })).to.have.key('fallback')
    expect((toolAppendChoice(anthropic, { model: 'claude-opus-5', enabled: true, declaredTools: 0 }) as { fallback: string }).fallback).to.match(/needs at least one declared tool/)
    expect(toolAppendChoice({ name: 'my-format' }, { model: 'm', ...open })).to.deep.equal({ fallback: 'my-format has no documented append path for an added tool' })
  })

  it('anthropic: a note with toolAdditions is followed by a system message of tool_addition blocks, and the body names the beta header; the tools list is untouched', () => {
    const body = buildRequest('anthropic', noteInput('claude-opus-5'))
    expect(body.tools!.map((item) => item.name)).to.deep.equal(['read'])
    expect(body.messages.at(-1)).to.deep.equal({
      role: 'system',
      content: [{ type: 'tool_addition', tool: { type: 'tool_definition', definition: { name: 'grep', input_schema: { type: 'object', properties: {} }, description: 'Searches files.' } } }],
    })
    expect(body.messages.at(-2)).to.deep.equal({ role: 'user', content: [{ type: 'text', text: '[tools changed] "grep" is available.' }] })
    expect(requestHeaders('anthropic', body)).to.deep.equal({ 'anthropic-beta': 'inline-tools-2026-09-15' })
  })

  it('a body with a tool addition and the diagnostics field names both betas in one anthropic-beta header, comma-separated', () => {
    const body = buildRequest('anthropic', { ...noteInput('claude-opus-5'), fields: { diagnostics: { previous_message_id: 'msg_1' } } })
    expect(requestHeaders('anthropic', body)).to.deep.equal({ 'anthropic-beta': 'inline-tools-2026-09-15,cache-diagnosis-2026-04-07' })
    const plain = buildRequest('anthropic', { ...noteInput('claude-opus-4'), fields: { diagnostics: { previous_message_id: null } } })
    expect(requestHeaders('anthropic', plain)).to.deep.equal({ 'anthropic-beta': 'cache-diagnosis-2026-04-07' })
  })

  it('a model without mid-conversation system messages, and every other format, sends the note alone and no header', () => {
    const anthropic = buildRequest('anthropic', noteInput('claude-sonnet-4-5'))
    expect(JSON.stringify(anthropic)).to.not.include('tool_addition')
    expect(requestHeaders('anthropic', anthropic)).to.deep.equal({})
    for (const format of ['openai-chat', 'openai-responses', 'gemini'] as const) {
      const body = buildRequest(format, noteInput('m'))
      expect(JSON.stringify(body), format).to.include('\\"grep\\" is available')
      expect(JSON.stringify(body), format).to.not.match(/toolAdditions|tool_addition/)
      expect(requestHeaders(format, body), format).to.deep.equal({})
    }
  })

  it('a tool added by value is checked against the provider\'s tool rules (WIRE_INVALID_TOOL_NAME)', () => {
    const input = noteInput('claude-opus-5')
    const record = [...input.record.slice(0, -1), entry({ role: 'user', content: 'note', toolAdditions: [{ name: 'bad name!' }] }, 'user')]
    expect(() => buildRequest('anthropic', { ...input, record })).to.throw().with.property('code', 'WIRE_INVALID_TOOL_NAME')
  })
})
