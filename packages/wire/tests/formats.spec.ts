import { expect } from 'chai'
import { buildMessages, buildRequest, SYSTEM_PROMPT_UPDATE_MARKER, WIRE_FORMATS, type WireFormat } from 'dsh-wire'
import { thrown } from 'dsh-testing'
import { call, customCall, input, READ, reply, result, snapshot, system, toolConversation, user } from './helpers.js'

const UPDATE = `${SYSTEM_PROMPT_UPDATE_MARKER}\n\nBe careful.`

describe('dsh-wire: each format lowers one conversation record', () => {
  it('names the four formats, and buildRequest refuses another with WIRE_UNKNOWN_FORMAT', () => {
    expect(WIRE_FORMATS).to.deep.equal(['openai-chat', 'openai-responses', 'anthropic', 'gemini'])
    const error = thrown(() => buildRequest('cohere' as WireFormat, input([])))
    expect(error).to.include({ code: 'WIRE_UNKNOWN_FORMAT', message: 'unknown wire format "cohere"; known formats: openai-chat, openai-responses, anthropic, gemini' })
  })

  it('openai-chat: the messages buildMessages makes, and function tools', () => {
    const record = toolConversation()
    expect(buildRequest('openai-chat', input(record))).to.deep.equal({
      model: 'm', messages: buildMessages(record, 'append'),
      tools: [{ type: 'function', function: { name: 'read', description: READ.description, parameters: READ.parameters } }],
    })
    expect(buildMessages(record, 'append')[6]).to.deep.equal({ role: 'system', content: 'Be careful.' })
  })

  it('openai-responses: instructions, message and call items, a later version as a system message, prompt_cache_key', () => {
    expect(buildRequest('openai-responses', input(toolConversation(), { conversationId: 'coder' }))).to.deep.equal({
      model: 'm',
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'user', content: 'Fix the cart.' },
        { type: 'message', role: 'user', content: 'Open files: cart.ts' },
        { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"cart.ts"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'export const total = 1' },
        { type: 'message', role: 'assistant', content: 'Fixed.' },
        { type: 'message', role: 'system', content: 'Be careful.' },
        { type: 'message', role: 'user', content: 'Thanks.' },
      ],
      tools: [{ type: 'function', name: 'read', description: 'Read a file.', parameters: READ.parameters, strict: false }],
      prompt_cache_key: 'coder',
    })
  })

  it('openai-responses: a custom tool call and its result keep their custom item types', () => {
    const body = buildRequest('openai-responses', input([user('Go.'), customCall('c1', 'patch', '*** Begin'), result('c1', 'ok')], { tools: [] }))
    expect(body).to.deep.equal({ model: 'm', input: [
      { type: 'message', role: 'user', content: 'Go.' },
      { type: 'custom_tool_call', call_id: 'c1', name: 'patch', input: '*** Begin' },
      { type: 'custom_tool_call_output', call_id: 'c1', output: 'ok' },
    ] })
  })

  it('anthropic: a top-level system block, tool_use and tool_result blocks, a later version as a marked user message', () => {
    expect(buildRequest('anthropic', input(toolConversation()))).to.deep.equal({
      model: 'm', max_tokens: 4096,
      tools: [{ name: 'read', description: 'Read a file.', input_schema: READ.parameters }],
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Fix the cart.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Open files: cart.ts' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'cart.ts' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'export const total = 1' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }] },
        { role: 'user', content: [{ type: 'text', text: UPDATE }] },
        { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
      ],
    })
  })

  it('gemini: systemInstruction, functionDeclarations, functionCall and functionResponse parts, a later version as a marked user content', () => {
    expect(buildRequest('gemini', input(toolConversation()))).to.deep.equal({
      model: 'm',
      contents: [
        { role: 'user', parts: [{ text: 'Fix the cart.' }] },
        { role: 'user', parts: [{ text: 'Open files: cart.ts' }] },
        { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'read', args: { path: 'cart.ts' } } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'read', response: { output: 'export const total = 1' } } }] },
        { role: 'model', parts: [{ text: 'Fixed.' }] },
        { role: 'user', parts: [{ text: UPDATE }] },
        { role: 'user', parts: [{ text: 'Thanks.' }] },
      ],
      config: {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        tools: [{ functionDeclarations: [{ name: 'read', description: 'Read a file.', parametersJsonSchema: READ.parameters }] }],
      },
    })
  })

  for (const format of WIRE_FORMATS) {
    it(`${format}: under append, a prompt change appends items and leaves every earlier byte as it was`, () => {
      const before = [system('Be brief.'), user('Fix the cart.'), reply('Fixed.')]
      const first = split(buildRequest(format, input(before)))
      const second = split(buildRequest(format, input([...before, system('Be careful.'), user('Thanks.')])))
      expect(second.rest).to.equal(first.rest)
      expect(second.items.slice(0, first.items.length)).to.deep.equal(first.items)
      expect(second.items).to.have.length(first.items.length + 2)
    })
  }

  it('under replace, the latest version is the one set of instructions at the head, in every format', () => {
    const record = toolConversation()
    const replace = <F extends WireFormat>(format: F) => buildRequest(format, input(record, { promptChange: 'replace', tools: [] }))
    expect(replace('openai-chat').messages[0]).to.deep.equal({ role: 'system', content: 'Be careful.' })
    expect(replace('openai-chat').messages.filter((m) => m.role === 'system')).to.have.length(1)
    expect(replace('openai-responses').instructions).to.equal('Be careful.')
    expect(replace('anthropic').system).to.deep.equal([{ type: 'text', text: 'Be careful.' }])
    expect(replace('gemini').config).to.deep.equal({ systemInstruction: { parts: [{ text: 'Be careful.' }] } })
    for (const format of ['openai-responses', 'anthropic', 'gemini'] as const) expect(JSON.stringify(replace(format))).not.to.include(SYSTEM_PROMPT_UPDATE_MARKER)
  })

  it('an empty render sends no instructions field at all, and no tools field without tools', () => {
    const record = [system('Be brief.'), user('Hi.'), reply('Hello.'), system(''), user('Again.')]
    const bare = <F extends WireFormat>(format: F) => buildRequest(format, input(record, { tools: [] }))
    expect(bare('openai-chat')).to.deep.equal({ model: 'm', messages: [{ role: 'user', content: 'Hi.' }, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'Again.' }] })
    expect(bare('openai-responses')).to.have.all.keys('model', 'input')
    expect(bare('anthropic')).to.have.all.keys('model', 'max_tokens', 'messages')
    expect(bare('gemini')).to.have.all.keys('model', 'contents')
  })

  it('anthropic and gemini refuse arguments that are not a JSON object, and custom tool calls, naming the call', () => {
    for (const format of ['anthropic', 'gemini'] as const) {
      const bad = thrown(() => buildRequest(format, input([user('Go.'), call('c9', 'read', '[1]')])))
      expect(bad).to.include({ code: 'WIRE_INVALID_TOOL_ARGUMENTS', message: `${format}: tool call "c9" arguments must be a JSON object (received an array)` })
      expect((bad as Error & { details?: unknown }).details).to.deep.equal({ format, callId: 'c9', problem: 'received an array' })
      const custom = thrown(() => buildRequest(format, input([user('Go.'), customCall('c2', 'patch', 'x')])))
      expect(custom).to.include({ code: 'WIRE_UNSUPPORTED_TOOL_CALL', message: `${format}: tool call "c2" is a custom tool call, which this format cannot carry` })
    }
  })

  it('gemini names each function result from its call, and refuses a result that answers no call', () => {
    const error = thrown(() => buildRequest('gemini', input([user('Go.'), result('nope', 'ok')])))
    expect(error).to.include({ code: 'WIRE_UNMATCHED_TOOL_RESULT', message: 'gemini: tool result "nope" answers no recorded tool call' })
  })

  it('anthropic takes max_tokens from the input, and an empty argument string as {}', () => {
    const body = buildRequest('anthropic', input([user('Go.'), call('c1', 'read', '')], { maxTokens: 512, tools: [] }))
    expect(body.max_tokens).to.equal(512)
    expect(body.messages[1].content).to.deep.equal([{ type: 'tool_use', id: 'c1', name: 'read', input: {} }])
  })

  it('a snapshot and the runtime-context entries map to plain user text in every format', () => {
    const record = [user('Go.'), snapshot('Open files: a.ts')]
    expect(buildRequest('anthropic', input(record)).messages[1]).to.deep.equal({ role: 'user', content: [{ type: 'text', text: 'Open files: a.ts' }] })
    expect(buildRequest('gemini', input(record)).contents[1]).to.deep.equal({ role: 'user', parts: [{ text: 'Open files: a.ts' }] })
  })
})

/** A body as its list of conversation items (JSON text each) and everything else (JSON text). */
function split(body: object): { items: string[]; rest: string } {
  const key = ['messages', 'input', 'contents'].find((name) => name in body)!
  const { [key]: list, ...rest } = body as Record<string, unknown[]>
  return { items: list.map((item) => JSON.stringify(item)), rest: JSON.stringify(rest) }
}
