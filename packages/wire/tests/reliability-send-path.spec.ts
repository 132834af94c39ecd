import { expect } from 'chai'
import { buildRequest, toolProblems, WIRE_FORMATS, wireFormat, type AnthropicRequest, type GeminiRequest, type WireTool } from 'dsh-wire'
import { entry } from 'dsh-wire'
import { call, input, READ, reply, result, system, user } from './helpers.js'

// Issue 20, item 8: what a provider refuses is refused before it is sent, named, and listed by
// `toolProblems` for `dsh-prompt check`; empty text is never sent to Anthropic or Gemini.

const tool = (name: string, parameters?: Record<string, unknown>): WireTool => ({ name, description: 'A tool.', ...(parameters ? { parameters } : {}) })
const thrown = (run: () => unknown): Error & { code?: string; details?: Record<string, unknown> } => {
  try {
    run()
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('expected a throw')
}
const LONG = 'a'.repeat(65)
/** A block without its `cache_control` (the planner decides where those go). */
const unmarked = ({ cache_control: _marker, ...block }: { cache_control?: unknown }) => block

describe('dsh-wire: tool names and schemas a provider refuses (issue 20)', () => {
  it('toolProblems names each tool a format refuses, with the rule and its documented source', () => {
    const tools = [tool('read file'), tool(LONG), tool('wörter'), tool('ns.tool'), tool('ok_tool-1')]
    const byFormat = (format: string) => toolProblems('all', tools).filter((p) => p.details.format === format).map((p) => p.details.tool)
    for (const format of ['openai-chat', 'openai-responses', 'anthropic']) expect(byFormat(format), format).to.deep.equal(['read file', LONG, 'wörter', 'ns.tool'])
    // Gemini documents dots and up to 128 characters.
    expect(byFormat('gemini')).to.deep.equal(['read file', 'wörter'])
    const [first] = toolProblems('anthropic', [tool('read file')])
    expect(first.code).to.equal('WIRE_INVALID_TOOL_NAME')
    expect(first.details).to.deep.include({ format: 'anthropic', tool: 'read file', rule: '/^[a-zA-Z0-9_-]{1,64}$/' })
    expect(first.details.source).to.include('platform.claude.com')
    expect(first.message).to.equal('anthropic: tool name "read file" is refused by the provider (a name must match /^[a-zA-Z0-9_-]{1,64}$/)')
  })

  it('each format module carries its rules, and a tool every format accepts has no problem', () => {
    for (const format of WIRE_FORMATS) {
      expect(wireFormat(format).toolRules.name.pattern, format).to.be.instanceOf(RegExp)
      expect(wireFormat(format).toolRules.parameters.source, format).to.be.a('string').and.not.equal('')
    }
    expect(toolProblems('all', [READ, tool('bare')])).to.deep.equal([])
  })

  it('parameters that are not an object schema are a problem in every format, never rewritten to one', () => {
    const problems = toolProblems('all', [tool('lookup', { type: 'string' }), tool('list', [] as unknown as Record<string, unknown>)])
    expect(problems.map((p) => [p.code, p.details.format, p.details.tool])).to.deep.equal(WIRE_FORMATS.flatMap((format) => [
      ['WIRE_INVALID_TOOL_PARAMETERS', format, 'lookup'], ['WIRE_INVALID_TOOL_PARAMETERS', format, 'list'],
    ]))
    expect(problems[0].message).to.equal('openai-chat: tool "lookup" parameters must be a JSON Schema of type "object", received type "string"')
  })

  it('the anthropic body refuses parameters of type "string" naming the tool, instead of sending them as an object', () => {
    const error = thrown(() => buildRequest('anthropic', input([user('Hi.')], { tools: [tool('lookup', { type: 'string' })] })))
    expect(error.code).to.equal('WIRE_INVALID_TOOL_PARAMETERS')
    expect(error.details).to.deep.include({ format: 'anthropic', tool: 'lookup' })
  })

  it('every body builder refuses a tool name its provider refuses, naming the tool; one it accepts is sent', () => {
    for (const format of WIRE_FORMATS) {
      const error = thrown(() => buildRequest(format, input([user('Hi.')], { tools: [tool('read file')] })))
      expect([error.code, error.details?.tool], format).to.deep.equal(['WIRE_INVALID_TOOL_NAME', 'read file'])
    }
    expect(thrown(() => buildRequest('openai-chat', input([user('Hi.')], { tools: [tool('ns.tool')] }))).code).to.equal('WIRE_INVALID_TOOL_NAME')
    const gemini = buildRequest('gemini', input([user('Hi.')], { tools: [tool('ns.tool')] })) as GeminiRequest
    expect(gemini.config?.tools?.[0].functionDeclarations.map((d) => d.name)).to.deep.equal(['ns.tool'])
  })

  it('a schema without a type is still sent to Anthropic as an object schema (filled, not rewritten)', () => {
    const body = buildRequest('anthropic', input([user('Hi.')], { tools: [tool('lookup', { properties: { q: { type: 'string' } } })] })) as AnthropicRequest
    expect(body.tools?.[0].input_schema).to.deep.equal({ properties: { q: { type: 'string' } }, type: 'object' })
  })
})

describe('dsh-wire: empty text is never sent to Anthropic or Gemini (issue 20)', () => {
  const texts = (body: object): unknown[] => {
    const found: unknown[] = []
    JSON.stringify(body, (key, value) => {
      if (key === 'text') found.push(value)
      return value
    })
    return found
  }

  it('user input "" is refused (WIRE_EMPTY_TEXT, naming the role) in anthropic and gemini; the OpenAI formats send it', () => {
    for (const format of ['anthropic', 'gemini'] as const) {
      const error = thrown(() => buildRequest(format, input([system('Be brief.'), user('')])))
      expect([error.code, error.details], format).to.deep.equal(['WIRE_EMPTY_TEXT', { format, role: 'user' }])
    }
    expect(buildRequest('openai-chat', input([user('')])).messages).to.deep.equal([{ role: 'user', content: '' }])
  })

  it('an empty reply with tool calls has no text block, and an empty tool result no content', () => {
    const record = [user('Go.'), entry({ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] }, 'assistant'), result('c1', ''), user('Next.')]
    const anthropic = buildRequest('anthropic', input(record, { breakpoints: {} })) as AnthropicRequest
    expect(anthropic.messages[1].content.map((block) => block.type)).to.deep.equal(['tool_use'])
    expect(anthropic.messages[2].content.map(unmarked)).to.deep.equal([{ type: 'tool_result', tool_use_id: 'c1' }])
    const gemini = buildRequest('gemini', input(record)) as GeminiRequest
    expect(gemini.contents[1].parts.map((part) => Object.keys(part)[0])).to.deep.equal(['functionCall'])
    for (const body of [anthropic, gemini]) expect(texts(body)).to.not.include('')
  })

  it('an empty reply without tool calls is refused in anthropic and gemini (both refuse a turn without content); openai-responses sends it', () => {
    const record = [user('Go.'), reply(''), user('Again.')]
    for (const format of ['anthropic', 'gemini'] as const) {
      expect(thrown(() => buildRequest(format, input(record))).details, format).to.deep.equal({ format, role: 'assistant' })
    }
    expect(buildRequest('openai-responses', input(record)).input[1]).to.deep.equal({ type: 'message', role: 'assistant', content: '' })
  })

  it('no breakpoint lands on an empty text: a conversation with empty parts gets cache_control only on non-empty blocks', () => {
    const parts = [{ type: 'text' as const, text: '' }, { type: 'text' as const, text: 'Look at this.' }]
    const record = [system('Be brief. '.repeat(400)), entry({ role: 'user', content: 'Look at this.', parts }, 'user'), call('c1', 'read', '{}'), result('c1', '')]
    const body = buildRequest('anthropic', input(record, { breakpoints: { minTokens: 1 } })) as AnthropicRequest
    expect(body.messages[0].content.map(unmarked)).to.deep.equal([{ type: 'text', text: 'Look at this.' }])
    const marked: unknown[] = []
    JSON.stringify(body, (_key, value) => {
      if (value && typeof value === 'object' && 'cache_control' in value) marked.push(value)
      return value
    })
    expect(marked.length).to.be.greaterThan(0)
    for (const block of marked) expect((block as { text?: string }).text).to.not.equal('')
  })
})
