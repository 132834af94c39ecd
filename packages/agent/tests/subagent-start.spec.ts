import { expect } from 'chai'
import type { Context } from 'cordis'
import fc from 'fast-check'
import type { Agent, StepResult, SubagentStart, WireFormat } from 'dsh-agent'
import { exportLedger } from 'dsh-agent'
import { bootApp, pluginContext, rejection, tool } from 'dsh-testing'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(320)
/** Where each format keeps its element list. */
const ELEMENTS: Record<string, string> = { 'openai-chat': 'messages', 'openai-responses': 'input', anthropic: 'messages', gemini: 'contents' }
const FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const
const MODEL: Record<string, string> = { 'openai-chat': 'gpt-5', 'openai-responses': 'gpt-5', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-pro' }

/** `request` with only the first `count` elements of its element list, as JSON. */
function firstElements(format: WireFormat, request: object, count: number): string {
  const list = (request as Record<string, unknown[]>)[ELEMENTS[format]]
  return JSON.stringify({ ...request, [ELEMENTS[format]]: list.slice(0, count) })
}

function elementCount(format: WireFormat, request: object): number {
  return (request as Record<string, unknown[]>)[ELEMENTS[format]].length
}

describe('dsh-agent: sub-agents that start from their parent (issue 21, item 2)', () => {
  let harness: Context
  let made = 0
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, tools: true, agents: true }))
    harness.tools.register(tool('read'))
    harness.systemPrompt.section({ name: 'style', order: 10, text: 'Keep answers short.' })
  })

  /** A parent that sent two requests of `format` (a reply between them). */
  async function parentAfterTwoTurns(format: WireFormat): Promise<{ parent: Agent; last: StepResult<WireFormat> }> {
    const parent = await harness.agents.create({ id: `lead${made++}`, model: MODEL[format] })
    await parent.stepDetailed('Read the file.', { format })
    parent.record({ role: 'assistant', content: 'Done.' })
    const last = await parent.stepDetailed('Now review it.', { format })
    return { parent, last }
  }

  /** A section the child's own scope adds, registered by a plugin of its own. */
  async function withReviewerNotes(child: Agent): Promise<void> {
    const plugin = await pluginContext(child.ctx, 'reviewer-notes', ['systemPrompt'])
    plugin.systemPrompt.section({ name: 'reviewer:notes', order: 20, text: 'Report findings as a list.' })
  }

  for (const format of FORMATS) {
    it(`${format}: a child started from its parent sends the parent's latest request byte for byte, then its scope's new version and its task, and is credited the parent's whole request`, async () => {
      const { parent, last } = await parentAfterTwoTurns(format)
      const child = await harness.agents.create({ id: `child${made++}`, model: MODEL[format], parent, start: 'parent' })
      await withReviewerNotes(child)
      const first = await child.stepDetailed('Review the cart module.', { format })
      const sent = elementCount(format, last.request)
      expect(firstElements(format, first.request, sent)).to.equal(last.body)
      expect(first.added.map((item) => item.source)).to.deep.equal(['system-prompt', 'user'])
      expect(first.added[0].content).to.contain('Report findings as a list.')
      expect(first.report).to.include({ turn: 1, reusableBytes: last.report.requestBytes, reusableTokens: last.report.requestTokens })
      expect(first.report.breaks).to.deep.equal([])
      // The provider's rules decide how much of the shared prefix it serves: the parent's own figure for the same prefix.
      const cached = await parent.fork({ kind: 'aside', instruction: 'Anything else?', format })
      expect(first.report.predictedCachedTokens).to.equal(cached.report.predictedCachedTokens)
      expect(first.report.predictedCachedTokens).to.be.greaterThan(last.report.requestTokens - 128)
      // Later requests are measured against the child's own previous one.
      child.record({ role: 'assistant', content: 'Two findings.' })
      const second = await child.stepDetailed('Fix the first.', { format })
      expect(second.report).to.include({ turn: 2, reusableBytes: first.report.requestBytes })
      // Its first request wrote its own part too (Anthropic: a tail breakpoint after the parent's), so the second reads all of it.
      expect(second.report.predictedCachedTokens).to.be.greaterThan(first.report.requestTokens - 128)
    })

    it(`${format}: a child rendered live with its own scope is credited what it shares with its parent, and its report names the section and plugin where the sharing stops`, async () => {
      const { parent } = await parentAfterTwoTurns(format)
      const child = await harness.agents.create({ id: `child${made++}`, model: MODEL[format], parent })
      await withReviewerNotes(child)
      expect(child.start).to.equal('live')
      const first = await child.stepDetailed('Review the cart module.', { format })
      expect(first.report.breaks[0]).to.deep.include({ kind: 'section', section: 'reviewer:notes', owner: 'reviewer-notes', layer: `agent:${child.id}`, cause: 'section added: "reviewer:notes"' })
      expect(first.report.reusableTokens).to.be.greaterThan(1000)
      expect(first.report.predictedCachedTokens).to.be.at.most(first.report.reusableTokens)
    })

    it(`${format}: a live child made before its parent's first request (an agents: row) is measured at its first step against what the parent has sent by then`, async () => {
      const parent = await harness.agents.create({ id: `lead${made++}`, model: MODEL[format] })
      const child = await harness.agents.create({ id: `child${made++}`, model: MODEL[format], parent })
      const orphan = await harness.agents.create({ id: `child${made++}`, model: MODEL[format], parent: await harness.agents.create({ id: `lead${made++}`, model: MODEL[format] }) })
      await withReviewerNotes(child)
      await parent.stepDetailed('Read the file.', { format })
      parent.record({ role: 'assistant', content: 'Done.' })
      await parent.stepDetailed('Now review it.', { format })
      const first = await child.stepDetailed('Review the cart module.', { format })
      expect(first.report.breaks[0]).to.deep.include({ kind: 'section', section: 'reviewer:notes', owner: 'reviewer-notes', cause: 'section added: "reviewer:notes"' })
      expect(first.report.reusableTokens).to.be.greaterThan(1000)
      // A parent that has still sent nothing gives nothing to measure against.
      expect((await orphan.stepDetailed('Review it.', { format })).report).to.include({ turn: 1, reusableBytes: 0, predictedCachedTokens: 0 })
      // Only the first step inherits: the second is measured against the child's own first.
      await parent.stepDetailed('And the tests.', { format })
      child.record({ role: 'assistant', content: 'Reviewed.' })
      const second = await child.stepDetailed('Thanks.', { format })
      expect(second.report.breaks).to.deep.equal([])
    })

    it(`${format}: a fresh child claims nothing of its parent's cache`, async () => {
      const { parent } = await parentAfterTwoTurns(format)
      const child = await harness.agents.create({ id: `child${made++}`, model: MODEL[format], parent, start: 'fresh' })
      expect(child).to.include({ start: 'fresh', routingKey: `${parent.id}/${child.id}` })
      const first = await child.stepDetailed('Review the cart module.', { format })
      expect(first.report).to.include({ turn: 1, reusableBytes: 0, reusableTokens: 0, predictedCachedTokens: 0 })
      expect(first.report.breaks).to.deep.equal([])
    })
  }

  it('a child started from its parent whose scope adds nothing predicts at least 90% of its first request cached, in every format', async () => {
    for (const format of FORMATS) {
      const { parent } = await parentAfterTwoTurns(format)
      const child = await harness.agents.create({ id: `child${made++}`, model: MODEL[format], parent, start: 'parent' })
      const { report, added } = await child.stepDetailed('Review the cart module.', { format })
      expect(added.map((item) => item.source), format).to.deep.equal(['user'])
      expect(report.predictedCachedTokens / report.requestTokens, format).to.be.at.least(0.9)
    }
  })

  it('a child started from its parent never changes the parent: its next body and report are those of a twin without a child, in every format', async () => {
    for (const format of FORMATS) {
      const { parent } = await parentAfterTwoTurns(format)
      const { parent: twin } = await parentAfterTwoTurns(format)
      const child = await harness.agents.create({ id: `child${made++}`, model: MODEL[format], parent, start: 'parent' })
      await withReviewerNotes(child)
      await child.step('Review the cart module.', { format })
      child.record({ role: 'assistant', content: 'Two findings.' })
      await child.step('Fix the first.', { format })
      const [mine, theirs] = await Promise.all([parent, twin].map(async (agent) => {
        agent.record({ role: 'assistant', content: 'Reviewed.' })
        return agent.stepDetailed('Go on.', { format })
      }))
      expect(mine.body.replaceAll(`"${parent.id}"`, '"?"'), format).to.equal(theirs.body.replaceAll(`"${twin.id}"`, '"?"'))
      expect(mine.report, format).to.deep.equal(theirs.report)
    }
  })

  it('a Gemini call without an id recorded by a child started from its parent is named after every reply in its record, the copied ones included', async () => {
    const call = { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'read', args: {} } }] }, finishReason: 'STOP' }] }
    const parent = await harness.agents.create({ id: 'lead', model: 'gemini-2.5-pro' })
    await parent.step('Read the file.', { format: 'gemini' })
    parent.record(call as never, { format: 'gemini' })
    parent.record({ role: 'tool', tool_call_id: 'gemini-0-0', content: 'x' })
    await parent.step(undefined, { format: 'gemini' })
    const child = await harness.agents.create({ id: 'child', model: 'gemini-2.5-pro', parent, start: 'parent' })
    await child.step('Read it again.', { format: 'gemini' })
    child.record(call as never, { format: 'gemini' })
    const ids = child.conversation.flatMap((item) => (item.role === 'assistant' ? (item.tool_calls ?? []).map((c) => c.id) : []))
    expect(ids).to.deep.equal(['gemini-0-0', 'gemini-1-0'])
  })

  it('a child\'s routing key is its parent\'s (parent, live) or the parent\'s followed by its id (fresh), from the conversationId the parent\'s latest request was sent with', async () => {
    const parent = await harness.agents.create({ id: 'lead', model: 'gpt-5' })
    await parent.step('Hi.', { format: 'openai-responses', conversationId: 'chat-7f3' })
    const keys: Record<string, string | undefined> = {}
    for (const start of ['parent', 'live', 'fresh'] as const) {
      const child = await harness.agents.create({ id: `child-${start}`, model: 'gpt-5', parent, start })
      keys[start] = (await child.step('Task.', { format: 'openai-responses' })).prompt_cache_key
      expect(child.routingKey).to.equal(keys[start])
    }
    expect(keys).to.deep.equal({ parent: 'chat-7f3', live: 'chat-7f3', fresh: 'chat-7f3/child-fresh' })
    const top = await harness.agents.create({ id: 'solo', model: 'gpt-5' })
    expect(top.routingKey).to.equal('solo')
    expect(top.start).to.equal(undefined)
  })

  it('refuses a start it cannot honour with a coded error, and creates nothing', async () => {
    const parent = await harness.agents.create({ id: 'lead', model: 'gpt-5' })
    const refused = async (options: Record<string, unknown>) => {
      const error = await rejection(harness.agents.create({ id: 'child', model: 'gpt-5', ...options } as never))
      expect(harness.agents.get('child')).to.equal(undefined)
      return error
    }
    expect(await refused({ parent, start: 'parent' })).to.deep.include({ code: 'AGENT_START_NO_REQUEST', details: { id: 'child', parent: 'lead' } })
    expect(await refused({ parent, start: 'forked' })).to.deep.include({ code: 'AGENT_INVALID_START', details: { id: 'child', problem: 'expected one of "parent", "live", "fresh", received "forked"' } })
    expect(await refused({ parent, start: 7n })).to.deep.include({ code: 'AGENT_INVALID_START', details: { id: 'child', problem: 'expected one of "parent", "live", "fresh", received a bigint' } })
    expect(await refused({ start: 'live' })).to.deep.include({ code: 'AGENT_INVALID_START', details: { id: 'child', problem: '"live" needs a parent agent (set parent)' } })
    await parent.step('Hi.')
    expect(await refused({ parent, start: 'parent', model: 'gpt-4.1' })).to.deep.include({ code: 'AGENT_INVALID_START' })
    expect(((await refused({ parent, start: 'parent', model: 'gpt-4.1' })) as unknown as { details: { problem: string } }).details.problem).to.match(/^"parent" needs the parent's model \("gpt-5"\)/)
    expect(await refused({ parent, start: 'parent', promptChange: 'replace' })).to.deep.include({
      code: 'AGENT_INVALID_START', details: { id: 'child', problem: '"parent" needs the parent\'s promptChange ("append"), received "replace"' },
    })
  })

  for (const format of FORMATS) {
    it(`${format}: a restored child (its ledger names its parent, start and routing key) sends the next request byte for byte`, async () => {
      const { parent } = await parentAfterTwoTurns(format)
      const id = `child${made++}`
      const child = await harness.agents.create({ id, model: MODEL[format], parent, start: 'parent' })
      await withReviewerNotes(child)
      await child.step('Review the cart module.', { format })
      child.record({ role: 'assistant', content: 'Two findings.' })
      const ledger = exportLedger(child)
      expect(JSON.parse(ledger.split('\n')[0])).to.deep.include({ agent: id, parent: parent.id, start: 'parent', routingKey: parent.id })
      const live = await child.stepDetailed('Fix the first.', { format })
      await child.dispose()
      const restored = await harness.agents.restore(ledger)
      await withReviewerNotes(restored)
      expect(restored).to.include({ start: 'parent', routingKey: parent.id, parent })
      const next = await restored.stepDetailed('Fix the first.', { format })
      expect(next.body).to.equal(live.body)
    })
  }

  // One turn of a random parent conversation: the user's text, then a reply in text or through one tool call.
  const turn = fc.record({ input: fc.string({ minLength: 1, maxLength: 40 }), viaTool: fc.boolean(), reply: fc.string({ minLength: 1, maxLength: 40 }) })
  const sessions = fc.record({
    turns: fc.array(turn, { minLength: 1, maxLength: 5 }), notes: fc.boolean(), task: fc.string({ minLength: 1, maxLength: 40 }),
    promptChange: fc.constantFrom('append' as const, 'replace' as const),
  })

  for (const format of FORMATS) {
    it(`over random parent sessions (${format}): a child started from its parent begins with the parent's latest request, every element of it, and is credited all its bytes`, async () => {
      await fc.assert(fc.asyncProperty(sessions, async ({ turns, notes, task, promptChange }) => {
        const parent = await harness.agents.create({ id: `lead${made++}`, model: MODEL[format], promptChange })
        let last!: StepResult<WireFormat>
        for (const [i, { input, viaTool, reply }] of turns.entries()) {
          if (i) parent.record({ role: 'assistant', content: reply })
          last = await parent.stepDetailed(input, { format })
          if (viaTool) {
            parent.record({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read', arguments: '{}' } }] })
            parent.record({ role: 'tool', tool_call_id: `call_${i}`, content: reply })
            last = await parent.stepDetailed(undefined, { format })
          }
        }
        // What the parent records after its latest request (the reply that asks for the child) is not the child's.
        parent.record({ role: 'assistant', content: 'Delegating.' })
        const child = await harness.agents.create({ id: `child${made++}`, model: MODEL[format], parent, start: 'parent' as SubagentStart })
        if (notes) await withReviewerNotes(child)
        const first = await child.stepDetailed(task, { format })
        const sent = elementCount(format, last.request)
        const list = (request: object) => (request as Record<string, unknown[]>)[ELEMENTS[format]]
        if (!notes || promptChange === 'append') {
          expect(JSON.stringify(list(first.request).slice(0, sent))).to.equal(JSON.stringify(list(last.request)))
          expect(firstElements(format, first.request, sent)).to.equal(last.body)
          expect(first.report.reusableBytes).to.equal(last.report.requestBytes)
        } else {
          // Under replace the child's section changes the opening prompt: reported where it stops sharing.
          expect(first.report.breaks[0]).to.deep.include({ section: 'reviewer:notes', owner: 'reviewer-notes' })
        }
        await child.dispose()
        await parent.dispose()
      }), { numRuns: 10 })
    })
  }
})
