import { expect } from 'chai'
import fc from 'fast-check'
import { WIRE_FORMATS, WireSession, type ConversationEntry, type WireFormat, type WireTool } from 'dsh-wire'
import { reply, system, user } from './helpers.js'

// A request's extra body fields (issue 23, item 3): the provider's own fields merged after dsh's, the
// body still `JSON.stringify(request)` and still extended step by step.

const TOOLS: WireTool[] = [{ name: 'read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }]

/** Extra fields each format allows (its SDK type's names), with JSON values of any shape. */
const ALLOWED: Record<string, readonly string[]> = {
  'openai-chat': ['stream', 'stream_options', 'store', 'prompt_cache_key', 'prompt_cache_retention', 'temperature', 'metadata', 'max_tokens'],
  'openai-responses': ['stream', 'store', 'include', 'prompt_cache_key', 'prompt_cache_retention', 'max_output_tokens', 'prompt_cache_options'],
  anthropic: ['stream', 'max_tokens', 'temperature', 'metadata', 'diagnostics', 'thinking'],
  gemini: ['config', 'generationConfig'],
}
const value = fc.jsonValue({ maxDepth: 2 }).filter((v) => v !== undefined)
const fieldsOf = (format: WireFormat) => fc.dictionary(fc.constantFrom(...ALLOWED[format]), value, { maxKeys: 4 })
  .map((fields) => (format === 'gemini' && fields.config !== undefined && (typeof fields.config !== 'object' || fields.config === null || Array.isArray(fields.config)) ? { ...fields, config: { temperature: 0.5 } } : fields))

describe('dsh-wire: extra body fields (step({ fields }))', () => {
  it('any allowed extra fields keep body === JSON.stringify(request) across incremental steps, in every format', () => {
    for (const format of WIRE_FORMATS) {
      fc.assert(fc.property(fc.array(fc.tuple(fieldsOf(format), fc.string({ maxLength: 20 })), { minLength: 1, maxLength: 6 }), (steps) => {
        const session = new WireSession(format)
        const record: ConversationEntry[] = [system('Be brief.')]
        let previous = -1
        for (const [fields, text] of steps) {
          record.push(user(text || 'go'))
          const build = session.build({ record, tools: TOOLS, model: 'm', promptChange: 'append', fields })
          expect(build.body).to.equal(JSON.stringify(build.request))
          for (const [name, given] of Object.entries(fields)) {
            if (name !== 'config') expect((build.request as unknown as Record<string, unknown>)[name], name).to.deep.equal(given)
          }
          // Still incremental: the elements of the previous build are kept in place.
          if (previous >= 0) expect(build.kept).to.equal(previous)
          previous = build.elementCount
          record.push(reply('ok'))
        }
      }), { numRuns: 40 })
    }
  })

  it('places extra fields after dsh\'s own, and merges gemini\'s config into dsh\'s', () => {
    const record = [system('Be brief.'), user('Hi')]
    const chat = new WireSession('openai-chat').build({ record, tools: TOOLS, model: 'm', promptChange: 'append', fields: { stream: true, stream_options: { include_usage: true } } })
    expect(Object.keys(chat.request)).to.deep.equal(['model', 'messages', 'tools', 'stream', 'stream_options'])
    const gemini = new WireSession('gemini').build({ record, tools: TOOLS, model: 'm', promptChange: 'append', fields: { config: { temperature: 0.2 } } })
    expect(Object.keys(gemini.request.config!)).to.deep.equal(['systemInstruction', 'tools', 'temperature'])
    expect(gemini.body).to.equal(JSON.stringify(gemini.request))
  })

  it('the Responses body takes store, and a field given overrides one dsh sets but does not own (prompt_cache_key)', () => {
    const build = new WireSession('openai-responses').build({ record: [user('Hi')], tools: [], model: 'm', promptChange: 'append', conversationId: 'c1', fields: { store: false, prompt_cache_key: 'tenant-7' } })
    expect(build.request).to.include({ store: false, prompt_cache_key: 'tenant-7' })
    expect(build.body).to.equal(JSON.stringify(build.request))
  })

  it('refuses a field dsh sets itself with WIRE_OWNED_FIELD, naming the format and the field', () => {
    const cases: [WireFormat, Record<string, unknown>, string][] = [
      ['openai-chat', { messages: [] }, 'messages'],
      ['openai-responses', { instructions: 'x' }, 'instructions'],
      ['anthropic', { system: 'x' }, 'system'],
      ['gemini', { config: { systemInstruction: 'x' } }, 'config.systemInstruction'],
      ['gemini', { model: 'other' }, 'model'],
    ]
    for (const [format, fields, field] of cases) {
      let error: { code?: string; details?: unknown } | undefined
      try {
        void new WireSession(format).build({ record: [user('Hi')], tools: [], model: 'm', promptChange: 'append', fields }).request
      } catch (caught) {
        error = caught as typeof error
      }
      expect(error, field).to.include({ code: 'WIRE_OWNED_FIELD' })
      expect(error!.details).to.deep.equal({ format, field })
    }
  })
})
