import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { thrown, tinyModel, writeGguf } from 'dsh-testing'
import { DSH_CHAT_TEMPLATE, llamaCppCachedTokens, llamaCppFamily, readGgufMetadata } from 'dsh-wire'
import { BYTE_SYMBOLS, fromAnthropic, fromChat, fromResponses, ggufTokenizer, jinjaJson, renderDshTemplate } from 'dsh-wire/internal'

// The llama.cpp family (src/providers/llama-cpp.ts): its GGUF reading, its tokenizer, its template
// rendering and its rules L1-L2, without a server. The engine tier (scripts/tests/engine.spec.ts)
// checks the same figures against llama.cpp's server.

describe('dsh-wire: the llama.cpp family, without a server', () => {
  let dir: string
  let model: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-llama-'))
    model = join(dir, 'tiny.gguf')
    writeFileSync(model, tinyModel())
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('reads back the generated model\'s header: llama, 257 tokens, one merge, and dsh\'s chat template', () => {
    const metadata = readGgufMetadata(model)
    expect(metadata.get('general.architecture')).to.equal('llama')
    expect(metadata.get('llama.context_length')).to.equal(4096)
    expect((metadata.get('tokenizer.ggml.tokens') as string[]).length).to.equal(257)
    expect(metadata.get('tokenizer.ggml.merges')).to.deep.equal(['ÿ þ'])
    expect(metadata.get('tokenizer.chat_template')).to.equal(DSH_CHAT_TEMPLATE)
  })

  it('with the byte-level vocabulary one UTF-8 byte is one token, accents and emoji included', () => {
    const tokenizer = ggufTokenizer(readGgufMetadata(model), model)
    const text = 'naïve café: ✓ 🎉 <|im_start|>'
    expect(tokenizer.encode(text)).to.deep.equal([...Buffer.from(text, 'utf8')])
    expect(tokenizer.exactness).to.equal('exact')
  })

  it('merges by rank within GPT-2\'s pieces, never across them, and splits out control tokens', () => {
    const tokens = [...BYTE_SYMBOLS, 'ab', 'abc', '<ctl>']
    const metadata = new Map<string, unknown>([
      ['tokenizer.ggml.model', 'gpt2'], ['tokenizer.ggml.pre', 'gpt-2'], ['tokenizer.ggml.tokens', tokens],
      ['tokenizer.ggml.merges', ['a b', 'ab c']], ['tokenizer.ggml.token_type', tokens.map((_, i) => (i === 258 ? 3 : 1))],
    ])
    const tokenizer = ggufTokenizer(metadata as never, 'test.gguf')
    // "abc" is one piece (two merges); " ab" keeps its space as its own byte; "<ctl>" is one control token.
    expect(tokenizer.encode('abc ab<ctl>c')).to.deep.equal([257, 32, 256, 258, 99])
  })

  it('refuses a file that is not GGUF (WIRE_INVALID_GGUF) and a vocabulary that is not byte-level BPE (WIRE_UNSUPPORTED_VOCABULARY), naming the file', () => {
    const text = join(dir, 'not.gguf')
    writeFileSync(text, 'hello, world')
    expect(thrown(() => readGgufMetadata(text))).to.include({ code: 'WIRE_INVALID_GGUF' }).and.have.nested.property('details.file', text)
    const spm = join(dir, 'spm.gguf')
    writeFileSync(spm, writeGguf([['tokenizer.ggml.model', { type: 'string', value: 'llama' }], ['tokenizer.ggml.tokens', { type: 'string[]', value: ['a'] }]], []))
    expect(thrown(() => llamaCppFamily({ model: spm }))).to.include({ code: 'WIRE_UNSUPPORTED_VOCABULARY' }).and.have.nested.property('details.model', 'llama')
  })

  it('renders the template as the server does: tools one JSON object a line with Jinja\'s separators, then each message, then the assistant\'s opening', () => {
    const prompt = renderDshTemplate(
      [{ role: 'system', content: 'Be brief.' }, { role: 'assistant', content: '', tool_calls: [{ name: 'ls', arguments: '{"path":"/"}' }] }, { role: 'tool', content: [{ text: 'a' }, { text: 'b' }] }],
      [{ name: 'ls', description: 'Lists.', parameters: { type: 'object', properties: { path: { type: 'string', minLength: 1 } } } }],
    )
    expect(prompt).to.equal(
      '<|im_start|>tools\n{"type": "function", "function": {"name": "ls", "description": "Lists.", "parameters": {"type": "object", "properties": {"path": {"type": "string", "minLength": 1}}}}}\n<|im_end|>\n' +
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>assistant\n<tool_call>{"name": "ls", "arguments": {"path": "/"}}</tool_call><|im_end|>\n' +
      '<|im_start|>tool\nab<|im_end|>\n<|im_start|>assistant\n',
    )
    expect(jinjaJson({ a: [1, 0.5, 1e-7, 1234567.5, true, null, 'x"\n'] })).to.equal('{"a": [1, 0.5, 1e-07, 1.23457e+06, true, null, "x\\"\\n"]}')
  })

  it('reads the three shapes into the same messages: Responses items merged into one assistant message, Anthropic tool results after their message', () => {
    const chat = fromChat({
      messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'ok', tool_calls: [{ type: 'function', id: 'c1', function: { name: 'ls', arguments: '{"p":1}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'out' }],
      tools: [{ type: 'function', function: { name: 'ls', description: 'L', parameters: { type: 'object' } } }],
    })
    const responses = fromResponses({
      instructions: 'S',
      input: [{ type: 'message', role: 'user', content: 'hi' }, { type: 'message', role: 'assistant', content: 'ok' }, { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{"p":1}' }, { type: 'function_call_output', call_id: 'c1', output: 'out' }],
      tools: [{ type: 'function', name: 'ls', description: 'L', parameters: { type: 'object' } }],
    })
    const anthropic = fromAnthropic({
      system: [{ type: 'text', text: 'S' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, { role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 'c1', name: 'ls', input: { p: 1 } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'out' }] }],
      tools: [{ name: 'ls', description: 'L', input_schema: { type: 'object' } }],
    })
    const text = (input: typeof chat) => renderDshTemplate(input.messages, input.tools)
    expect(text(responses)).to.equal(text(chat))
    expect(text(anthropic)).to.equal(text(chat))
  })

  it('L1, L2: the longest common token prefix with the slot\'s cache, less the last token when the cache holds the whole prompt', () => {
    expect(llamaCppCachedTokens(100, 40)).to.equal(40)
    expect(llamaCppCachedTokens(100, 100)).to.equal(99)
    expect(llamaCppCachedTokens(0, 0)).to.equal(0)
    const family = llamaCppFamily({ model })
    expect(family.predict({ model: 'm', requestTokens: 10, reusableTokens: 10, reusableBytes: 10, entries: [], points: [], headBlocks: 0, now: 0 }).cachedTokens).to.equal(9)
    const body = { messages: [{ role: 'user', content: 'héllo' }] }
    expect(family.promptTokens!('openai-chat', body)).to.deep.equal([...Buffer.from('<|im_start|>user\nhéllo<|im_end|>\n<|im_start|>assistant\n', 'utf8')])
    expect(family.promptTokens!('gemini', body)).to.equal(undefined)
  })

  it('a model with another chat template is counted from the cache stream with its vocabulary, labelled an estimate', async () => {
    const other = join(dir, 'other.gguf')
    const metadata = readGgufMetadata(model)
    writeFileSync(other, writeGguf([
      ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }], ['tokenizer.ggml.pre', { type: 'string', value: 'gpt-2' }],
      ['tokenizer.ggml.tokens', { type: 'string[]', value: metadata.get('tokenizer.ggml.tokens') as string[] }],
      ['tokenizer.chat_template', { type: 'string', value: '{{ messages }}' }],
    ], []))
    const family = llamaCppFamily({ model: other, name: 'other' })
    expect(family.promptTokens!('openai-chat', { messages: [] })).to.equal(undefined)
    expect((await family.tokenizer()).name).to.match(/^other\.gguf vocabulary, estimate \(chat template/)
  })
})
