import { expect } from 'chai'
import fc from 'fast-check'
import {
  buildRequest, cacheStream, planBreakpoints, wireFormat, WIRE_FORMATS, WireSession, type AnthropicRequest, type ConversationEntry, type PromptChangePolicy,
  type RequestBodies, type ToolCall, type WireFormat, type WireInput, type WireTool,
} from 'dsh-wire'
import { previousEnd, sentEntries } from 'dsh-wire/internal'
import { call, input, reply, result, snapshot, system, user } from './helpers.js'

// A session extends its previous build; these properties say it never differs from lowering the whole
// record afresh, whatever a step appends (including a clear of the system prompt, which lowers again).
// The reference is not the session itself: `plainLowering` lowers the whole record at every request,
// entry by entry through the format module, with deep copies and no memo, no kept JSON, no running sums.

/**
 * The request for `input` made the plain way: the entries R-WIRE-3 sends (`sentEntries`), the opening
 * split off, every other entry lowered afresh (deep copies), the body made whole, the cache markers
 * planned over the whole body (`planBreakpoints`, which walks every message) and marked.
 */
function plainLowering<F extends WireFormat>(format: F, input: WireInput): RequestBodies[F] {
  const module = wireFormat(format)
  const sent = sentEntries(input.record, input.promptChange)
  const opening = sent[0]?.source === 'system-prompt' ? sent[0] : undefined
  const rest = opening ? sent.slice(1) : sent
  const calls = new Map<string, ToolCall>()
  for (const item of input.record) if (item.role === 'assistant') for (const made of item.tool_calls ?? []) calls.set(made.id, made)
  const elements = rest.flatMap((item) => structuredClone(module.lower(item, (id) => calls.get(id))) as object[])
  const body = structuredClone(module.body(structuredClone(input), opening, elements))
  if (module.planner && input.breakpoints !== false) {
    module.planner.mark(body, planBreakpoints(body as unknown as AnthropicRequest, previousEnd(input.record, rest), input.breakpoints ?? {}))
  }
  return body
}

const text = fc.constantFrom('Be brief.', 'Be careful.', 'Grüße, 世界 😀', 'x'.repeat(300))
const piece = fc.oneof(
  text.map((t) => [system(t)]),
  fc.constant([system('')]),
  text.map((t) => [user(t)]),
  text.map((t) => [snapshot(t)]),
  text.map((t) => [reply(t)]),
  fc.tuple(fc.integer({ min: 0, max: 999 }), text).map(([n, t]) => [call(`c${n}`, 'read', '{"path":"a"}'), result(`c${n}`, t)]),
)
const conversation = fc.tuple(fc.boolean(), text, fc.array(fc.array(piece, { maxLength: 4 }).map((p) => p.flat()), { minLength: 2, maxLength: 10 }))
  .map(([opening, first, steps]) => steps.reduce<ConversationEntry[][]>(
    (all, step) => [...all, [...all[all.length - 1], ...step]], [opening ? [system(first), user('Start.')] : [user('Start.')]],
  ))
const policy = fc.constantFrom<PromptChangePolicy>('append', 'replace')

// Tools as a harness hands them over from step to step: the very same frozen schemas, equal copies of
// them, a changed description, none, and parameters a harness changes in place between two builds.
const deepFrozen = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) for (const child of Object.values(value)) deepFrozen(child)
  return Object.freeze(value)
}
const FROZEN_READ: WireTool = deepFrozen({ name: 'read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } })
const FROZEN_WRITE: WireTool = deepFrozen({ name: 'write', description: 'Write a file.', parameters: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } } })
const MUTABLE: WireTool = { name: 'grep', description: 'Search.', parameters: { type: 'object', properties: { pattern: { type: 'string', maxLength: 0 } } } }
const toolSets: (() => WireTool[])[] = [
  () => [FROZEN_READ],
  () => [FROZEN_READ, FROZEN_WRITE],
  () => [structuredClone(FROZEN_READ), FROZEN_WRITE],
  () => [{ ...FROZEN_READ, description: 'Read a file (beta).' }],
  () => [],
  () => {
    // Changed in place: the same objects as the previous build of this set, other JSON.
    ((MUTABLE.parameters as { properties: { pattern: { maxLength: number } } }).properties.pattern.maxLength)++
    return [FROZEN_READ, MUTABLE]
  },
]
const toolChoices = fc.array(fc.nat(toolSets.length - 1), { minLength: 10, maxLength: 10 })

/** R-WIRE-3 as written: under append every entry but the system prompts up to the latest clear (and the clears); under replace the latest prompt (if it has text) first, then every other entry. */
function specSent(record: readonly ConversationEntry[], policy: PromptChangePolicy): ConversationEntry[] {
  if (policy === 'replace') {
    const latest = [...record].reverse().find((item) => item.source === 'system-prompt')
    const rest = record.filter((item) => item.source !== 'system-prompt')
    return latest?.content ? [latest, ...rest] : rest
  }
  const clearedAt = record.map((item) => item.source === 'system-prompt' && !item.content).lastIndexOf(true)
  return record.filter((item, i) => item.source !== 'system-prompt' || (i > clearedAt && !!item.content))
}

describe('dsh-wire: a session, step by step, equals lowering the whole record', () => {
  it('sentEntries (placeEntry, the one rule a session also reads) is R-WIRE-3 as written', () => {
    fc.assert(fc.property(conversation, policy, (records, promptChange) => {
      for (const record of records) expect(sentEntries(record, promptChange)).to.deep.equal(specSent(record, promptChange))
    }), { numRuns: 200 })
  })

  it('the same request as a plain whole re-lowering, a body equal to JSON.stringify(request), and the same cache stream, in every format', () => {
    const conversationId = fc.option(fc.constantFrom('conv-1', 'conv-2'), { nil: undefined })
    fc.assert(fc.property(conversation, policy, fc.boolean(), toolChoices, conversationId, (records, promptChange, breakpoints, choices, id) => {
      for (const format of WIRE_FORMATS) {
        const session = new WireSession(format)
        for (const [step, record] of records.entries()) {
          const extra = { promptChange, tools: toolSets[choices[step % choices.length]](), ...(breakpoints ? { breakpoints: { minTokens: 0 } } : {}), ...(id ? { conversationId: id } : {}) }
          const build = session.build(input(record, extra))
          const whole = plainLowering(format, input(record, extra))
          expect(build.request, format).to.deep.equal(whole)
          expect(build.body, format).to.equal(JSON.stringify(whole))
          const stream = cacheStream(format, whole)
          expect([...build.head, ...build.elements.slice(0, build.elementCount)].map((p) => [p.kind, p.index, p.text]), format)
            .to.deep.equal(stream.parts.map((p) => [p.kind, p.index, p.text]))
        }
      }
    }), { numRuns: 300 })
  })

  it('keeps what it built: a later build leaves the earlier elements and body as they were', () => {
    const session = new WireSession('openai-chat')
    const first = [system('Be brief.'), user('one')]
    const a = session.build(input(first))
    const b = session.build(input([...first, reply('ok'), user('two')]))
    expect(b.kept).to.equal(1)
    expect(b.elements).to.equal(a.elements)
    expect(a.body).to.equal(JSON.stringify(a.request))
    expect(b.request.messages.slice(0, 2)).to.deep.equal(a.request.messages)
    expect(b.request.messages[1]).to.equal(a.request.messages[1])
    const other = session.build(input([system('Be brief.'), user('another')]))
    expect(other.kept).to.equal(-1)
  })

  it('a lowering that throws leaves the session as it was', () => {
    const session = new WireSession('gemini')
    const start = [system('S'), user('one')]
    session.build(input(start))
    const orphan = [...start, result('nowhere', 'x')]
    expect(() => session.build(input(orphan))).to.throw(/nowhere/)
    const next = session.build(input([...start, user('two')]))
    expect(next.request).to.deep.equal(buildRequest('gemini', input([...start, user('two')])))
  })
})
