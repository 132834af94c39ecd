import { expect } from 'chai'
import { canonicalJson } from 'dsh-wire/internal'
import { buildRequest, cacheStream, wireFormat, commonPrefix, WIRE_FORMATS } from 'dsh-wire'
import { input, system, toolConversation, user } from './helpers.js'

describe('dsh-wire: the cache stream of a request (R-CACHE-1)', () => {
  it('anthropic hashes tools, then system, then messages; the others put the system prompt first', () => {
    expect(wireFormat('anthropic').order).to.deep.equal(['tools', 'system', 'messages'])
    for (const format of ['openai-chat', 'openai-responses', 'gemini'] as const) expect(wireFormat(format).order).to.deep.equal(['system', 'tools', 'messages'])
    const kinds = (format: (typeof WIRE_FORMATS)[number]) => cacheStream(format, buildRequest(format, input(toolConversation()))).parts.slice(0, 3).map((p) => p.kind)
    expect(kinds('anthropic')).to.deep.equal(['model', 'tool', 'system'])
    for (const format of ['openai-chat', 'openai-responses', 'gemini'] as const) expect(kinds(format), format).to.deep.equal(['model', 'system', 'tool'])
  })

  it('counts every part in UTF-8 bytes and names tools', () => {
    const stream = cacheStream('openai-chat', buildRequest('openai-chat', input([system('Grüße'), user('hi')])))
    expect(stream.parts.map((p) => p.kind)).to.deep.equal(['model', 'system', 'tool', 'message'])
    expect(stream.parts[2].name).to.equal('read')
    expect(stream.parts[1].text).to.equal('{"content":"Grüße","role":"system"}')
    expect(stream.parts[1].bytes).to.equal(Buffer.byteLength(stream.parts[1].text))
    expect(stream.bytes).to.equal(stream.parts.reduce((sum, p) => sum + p.bytes, 0))
  })

  it('leaves cache_control out, so moving a breakpoint changes nothing the provider hashes', () => {
    const record = [system('S'.repeat(8000)), user('U'.repeat(8000))]
    const marked = buildRequest('anthropic', input(record, { breakpoints: {} }))
    const plain = buildRequest('anthropic', input(record))
    expect(JSON.stringify(marked)).to.include('cache_control')
    expect(cacheStream('anthropic', marked).parts.map((p) => p.text)).to.deep.equal(cacheStream('anthropic', plain).parts.map((p) => p.text))
  })

  it('canonical JSON sorts keys and drops undefined members, like JSON.stringify would', () => {
    expect(canonicalJson({ b: 1, a: [1, undefined, { d: undefined, c: 'x' }], cache_control: { type: 'ephemeral' } })).to.equal('{"a":[1,null,{"c":"x"}],"b":1}')
    expect(canonicalJson('é')).to.equal('"é"')
  })

  it('the common prefix: whole equal parts, then the shared start of the first differing one, never half a character', () => {
    const a = cacheStream('openai-chat', buildRequest('openai-chat', input([system('Be brief.'), user('one')])))
    const b = cacheStream('openai-chat', buildRequest('openai-chat', input([system('Be brief.'), user('one'), user('two')])))
    expect(commonPrefix(a.parts, b.parts)).to.deep.equal({ bytes: a.bytes, part: -1, chars: 0 })
    expect(commonPrefix(b.parts, a.parts).part).to.equal(a.parts.length)
    const c = cacheStream('openai-chat', buildRequest('openai-chat', input([system('Be bold.'), user('one')])))
    const shared = commonPrefix(a.parts, c.parts)
    expect(shared.part).to.equal(1)
    expect(shared.bytes).to.equal(a.parts[0].bytes + '{"content":"Be b'.length)
    const emoji = commonPrefix([{ ...a.parts[0], text: '"\u{1F600}"' }], [{ ...a.parts[0], text: '"\u{1F601}"' }])
    expect(emoji.bytes).to.equal(1)
  })
})
