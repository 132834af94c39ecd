import { expect } from 'chai'
import fc from 'fast-check'
import { anthropicRequest, buildRequest, WIRE_FORMATS, type ConversationEntry } from 'dsh-wire'
import { call, input, reply, result, snapshot, system, user } from './helpers.js'

// Properties over random conversations: what one step of an agent loop can append (a new prompt version,
// input, a snapshot, a reply, a tool call with its result), never an empty render (which clears).

const text = fc.constantFrom('Be brief.', 'Be careful.', 'Answer in French.', 'x'.repeat(300))
const piece = fc.oneof(
  text.map((t) => [system(t)]),
  text.map((t) => [user(t)]),
  text.map((t) => [snapshot(t)]),
  text.map((t) => [reply(t)]),
  fc.tuple(fc.integer({ min: 0, max: 999 }), text).map(([n, t]) => [call(`c${n}`, 'read', '{"path":"a"}'), result(`c${n}`, t)]),
)
const conversation = fc.tuple(text, fc.array(fc.array(piece, { maxLength: 4 }).map((p) => p.flat()), { minLength: 2, maxLength: 8 }))
  .map(([first, steps]) => steps.reduce<ConversationEntry[][]>((all, step) => [...all, [...all[all.length - 1], ...step]], [[system(first), user('Start.')]]))

function split(body: object): { items: string[]; rest: string } {
  const key = ['messages', 'input', 'contents'].find((name) => name in body)!
  const { [key]: list, ...rest } = body as Record<string, unknown[]>
  return { items: list.map((item) => JSON.stringify(item)), rest: JSON.stringify(rest) }
}

describe('dsh-wire: properties over random conversations', () => {
  it('under append, every format\'s request keeps the previous request\'s fields and items byte for byte', () => {
    fc.assert(fc.property(conversation, (records) => {
      for (const format of WIRE_FORMATS) {
        for (let i = 1; i < records.length; i++) {
          const before = split(buildRequest(format, input(records[i - 1])))
          const after = split(buildRequest(format, input(records[i])))
          expect(after.rest).to.equal(before.rest)
          expect(after.items.slice(0, before.items.length)).to.deep.equal(before.items)
        }
      }
    }), { numRuns: 100 })
  })

  it('planned breakpoints: never more than four, the tail always marked, a 1h never after a 5m', () => {
    const ttl = fc.constantFrom<'5m' | '1h'>('5m', '1h')
    fc.assert(fc.property(conversation, fc.tuple(ttl, ttl, ttl, ttl), fc.integer({ min: 1, max: 4 }), (records, [a, b, c, d], max) => {
      const sorted = [a, b, c, d].sort((x, y) => (x === '1h' ? 0 : 1) - (y === '1h' ? 0 : 1))
      const options = { minTokens: 0, max, ttl: { tools: sorted[0], system: sorted[1], stable: sorted[2], tail: sorted[3] } }
      const body = anthropicRequest(input(records[records.length - 1], { breakpoints: options }))
      const marks = [
        ...(body.tools ?? []).map((tool) => tool.cache_control),
        ...(body.system ?? []).map((block) => block.cache_control),
        ...body.messages.flatMap((message) => message.content.map((block) => block.cache_control)),
      ].filter((control) => control !== undefined)
      expect(marks.length).to.be.at.most(Math.min(4, max))
      expect(body.messages.at(-1)!.content.at(-1)!.cache_control).not.to.equal(undefined)
      const ttls = marks.map((control) => control.ttl ?? '5m')
      expect(ttls.indexOf('1h') === -1 || ttls.lastIndexOf('1h') < (ttls.indexOf('5m') === -1 ? Infinity : ttls.indexOf('5m'))).to.equal(true)
    }), { numRuns: 200 })
  })
})
