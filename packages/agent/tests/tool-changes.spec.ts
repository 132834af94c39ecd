import { expect } from 'chai'
import type { Context } from 'cordis'
import type { Agent, ToolChangeOption, WireFormat } from 'dsh-agent'
import { TOOL_CHANGE_NOTE_MARKER } from 'dsh-agent'
import { bootApp, loadPlugin, rejection, tool, type LoadedPlugin } from 'dsh-testing'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(160)
const FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const
const MODEL: Record<(typeof FORMATS)[number], string> = { 'openai-chat': 'gpt-5', 'openai-responses': 'gpt-5', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-pro' }
/** Why each format declares an added tool at once under the default policy (R-TOOL-13): its own words. */
const FALLBACK: Record<(typeof FORMATS)[number], string> = {
  'openai-chat': 'openai-chat has no append path for an added tool (chat completions take tools only in the request\'s tools list)',
  'openai-responses': 'openai-responses has no append path for an added tool (tool search loads only tools declared with defer_loading from the start, when the model searches)',
  anthropic: 'anthropic\'s append path (a system message of tool_addition blocks) is off for this agent (wire.toolAdditions)',
  gemini: 'gemini has no append path for an added tool (generateContent takes function declarations only in the request\'s tools)',
}

/** The declared tool names of a request of `format`. */
function declared(format: WireFormat, request: object): string[] {
  const body = request as { tools?: object[]; config?: { tools?: object[] } }
  const tools = (body.tools ?? body.config?.tools ?? []) as Record<string, unknown>[]
  if (format === 'gemini') return tools.flatMap((group) => ((group.functionDeclarations ?? []) as { name: string }[]).map((fn) => fn.name))
  if (format === 'openai-chat') return tools.map((entry) => (entry.function as { name: string }).name)
  return tools.map((entry) => entry.name as string)
}

/** The tools field of a request (Gemini keeps it in `config`). */
function toolsOf(request: object): unknown {
  const body = request as { tools?: unknown; config?: { tools?: unknown } }
  return body.tools ?? body.config?.tools
}

/** The text of every element of a request (messages, input items, contents), joined. */
function elementsText(request: object): string {
  const body = request as Record<string, unknown>
  return JSON.stringify(body.messages ?? body.input ?? body.contents)
}

describe('dsh-agent: tool changes without a cache bust (issue 21, item 4)', () => {
  let harness: Context
  let lender: LoadedPlugin
  let made = 0
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, tools: true, agents: true }))
    harness.tools.register(tool('read'))
    lender = await loadPlugin(harness, 'lender', ['tools'])
    lender.ctx.tools.register(tool('write'))
  })
  const agentFor = (format: (typeof FORMATS)[number], toolChange?: ToolChangeOption): Promise<Agent> =>
    harness.agents.create({ id: `a${made++}`, model: MODEL[format], ...(toolChange === undefined ? {} : { toolChange }) })

  for (const format of FORMATS) {
    it(`${format}: disposing a tool's plugin keeps it declared byte for byte, reports it inert with its former owner and no break, and tells the model once`, async () => {
      const agent = await agentFor(format)
      const first = await agent.stepDetailed('Hi.', { format })
      agent.record({ role: 'assistant', content: 'Hello.' })
      await lender.dispose()
      const second = await agent.stepDetailed('Write it.', { format })
      expect(declared(format, second.request)).to.deep.equal(['read', 'write'])
      expect(JSON.stringify(toolsOf(second.request))).to.equal(JSON.stringify(toolsOf(first.request)))
      expect(second.report.breaks).to.deep.equal([])
      expect(second.report.toolChanges).to.deep.equal([{ tool: 'write', kind: 'removed', owner: 'lender', handling: 'inert', breaks: false, cost: 0 }])
      const notes = second.added.filter((item) => item.content?.startsWith(TOOL_CHANGE_NOTE_MARKER))
      expect(notes).to.have.length(1)
      expect(notes[0].content).to.include('"write" (from lender) is no longer available')
      expect(elementsText(second.request)).to.include('is no longer available')
      agent.record({ role: 'assistant', content: 'Noted.' })
      const third = await agent.stepDetailed('Go on.', { format })
      expect(third.added.some((item) => item.content?.startsWith(TOOL_CHANGE_NOTE_MARKER))).to.equal(false)
      expect(third.report.breaks).to.deep.equal([])
    })

    it(`${format}: under immediate, disposing the plugin stops declaring the tool and the report names the break, its owner and its cost`, async () => {
      const agent = await agentFor(format, 'immediate')
      const first = await agent.stepDetailed('Hi.', { format })
      await lender.dispose()
      const second = await agent.stepDetailed('Write it.', { format })
      expect(declared(format, second.request)).to.deep.equal(['read'])
      expect(second.report.breaks[0]).to.deep.include({ kind: 'tool', section: 'write', owner: 'lender' })
      const [change] = second.report.toolChanges!
      expect(change).to.deep.include({ tool: 'write', kind: 'removed', owner: 'lender', handling: 'declared', breaks: true })
      expect(change.cost).to.equal(first.report.requestTokens - second.report.predictedCachedTokens).and.to.be.greaterThan(0)
    })

    it(`${format}: a tool that appears is declared at once after the others under the default policy, its break and cost reported before the request goes out`, async () => {
      const agent = await agentFor(format)
      const first = await agent.stepDetailed('Hi.', { format })
      const helper = await loadPlugin(harness, 'helper', ['tools'])
      helper.ctx.tools.register(tool('grep'))
      const second = await agent.stepDetailed('Search.', { format })
      expect(declared(format, second.request)).to.deep.equal(['read', 'write', 'grep'])
      const [change] = second.report.toolChanges!
      expect(change).to.deep.include({ tool: 'grep', kind: 'added', owner: 'helper', handling: 'declared', breaks: true })
      expect(change.fallback).to.equal(FALLBACK[format])
      expect(change.cost).to.equal(first.report.requestTokens - second.report.predictedCachedTokens)
    })

    it(`${format}: under epoch, a tool that appears is announced in a note, not declared, and declared at the next epoch`, async () => {
      const agent = await agentFor(format, 'epoch')
      const first = await agent.stepDetailed('Hi.', { format })
      harness.tools.register(tool('grep', { description: 'Searches files.' }))
      const second = await agent.stepDetailed('Search.', { format })
      expect(declared(format, second.request)).to.deep.equal(['read', 'write'])
      expect(second.report.breaks).to.deep.equal([])
      expect(second.report.toolChanges).to.deep.equal([{ tool: 'grep', kind: 'added', owner: 'host', handling: 'next-epoch', breaks: false, cost: 0 }])
      expect(second.added.at(-1)!.content).to.include('"grep" will be added to your tools').and.to.include('Searches files.')
      expect(second.report.reusableTokens).to.equal(first.report.requestTokens)
      const call = agent.record({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'grep', arguments: '{}' } }] })
      expect(call.map((found) => found.error.details)).to.deep.equal([{ id: agent.id, call: 'c1', tool: 'grep', owner: 'host', reason: 'not-yet-declared' }])
      agent.openToolEpoch()
      const third = await agent.stepDetailed(undefined, { format })
      expect(declared(format, third.request)).to.deep.equal(['grep', 'read', 'write'])
    })
  }

  it('a fork after a tool went inert repeats the latest request, the inert tool declared (parity null)', async () => {
    const agent = await agentFor('anthropic')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    await lender.dispose()
    await agent.stepDetailed('Write it.', { format: 'anthropic' })
    const fork = await agent.fork({ kind: 'title', instruction: 'Name this conversation.', format: 'anthropic' })
    expect(declared('anthropic', fork.request)).to.deep.equal(['read', 'write'])
    expect(fork.parity()).to.equal(null)
  })

  it('a step that fails tells nothing: the note comes with the next step that is built', async () => {
    const agent = await agentFor('anthropic')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    await lender.dispose()
    expect(await rejection(agent.stepDetailed('Write it.', { format: 'anthropic', breakpoints: { max: 9 } }))).to.deep.include({ code: 'WIRE_INVALID_BREAKPOINTS' })
    const next = await agent.stepDetailed('Write it.', { format: 'anthropic' })
    expect(next.added.filter((item) => item.content?.startsWith(TOOL_CHANGE_NOTE_MARKER))).to.have.length(1)
    expect(next.report.toolChanges).to.deep.equal([{ tool: 'write', kind: 'removed', owner: 'lender', handling: 'inert', breaks: false, cost: 0 }])
  })

  it('a reply that calls an inert tool gets back AGENT_TOOL_UNAVAILABLE naming the tool and its former owner, and a tool result to record', async () => {
    const agent = await agentFor('anthropic')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    await lender.dispose()
    await agent.stepDetailed('Write it.', { format: 'anthropic' })
    const found = agent.record({ role: 'assistant', content: null, tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'write', arguments: '{}' } },
      { id: 'c2', type: 'function', function: { name: 'read', arguments: '{}' } },
    ] })
    expect(found).to.have.length(1)
    expect(found[0].error).to.deep.include({ code: 'AGENT_TOOL_UNAVAILABLE', details: { id: agent.id, call: 'c1', tool: 'write', owner: 'lender', reason: 'removed' } })
    expect(found[0].result).to.deep.include({ role: 'tool', tool_call_id: 'c1', name: 'write' })
    expect(found[0].result.content).to.match(/^AGENT_TOOL_UNAVAILABLE: /)
    expect(agent.record(found[0].result)).to.deep.equal([])
    agent.record({ role: 'tool', tool_call_id: 'c2', content: 'file text' })
    const next = await agent.stepDetailed(undefined, { format: 'anthropic' })
    expect(next.report.breaks).to.deep.equal([])
  })

  it('Anthropic: a plugin disposed mid-conversation predicts at least 90% of the request cached under the default policy, and 0 under immediate', async () => {
    const ratios: Record<string, number> = {}
    for (const policy of ['default', 'immediate'] as const) {
      const agent = await agentFor('anthropic', policy)
      const lending = await loadPlugin(harness, `lender-${policy}`, ['tools'])
      lending.ctx.tools.register(tool(`edit_${policy}`))
      for (let turn = 0; turn < 6; turn++) {
        await agent.stepDetailed(`Turn ${turn}.`, { format: 'anthropic' })
        agent.record({ role: 'assistant', content: `Answer ${turn}.` })
      }
      await lending.dispose()
      const { report } = await agent.stepDetailed('After the plugin went.', { format: 'anthropic' })
      ratios[policy] = report.predictedCachedTokens / report.requestTokens
    }
    expect(ratios.default).to.be.at.least(0.9)
    expect(ratios.immediate).to.equal(0)
  })

  it('classifies an edited tool with its owner and declares the new definition at once in its place; the order is kept', async () => {
    const agent = await agentFor('openai-chat')
    const listed = harness.tools.register(tool('list'))
    await agent.stepDetailed('Hi.')
    listed()
    harness.tools.register(tool('list', { description: 'Lists a folder, newest first.' }))
    const { request, report } = await agent.stepDetailed('Again.')
    expect(report.toolChanges).to.deep.equal([{ tool: 'list', kind: 'edited', owner: 'host', handling: 'declared', breaks: true, cost: report.toolChanges![0].cost }])
    expect(report.breaks[0]).to.deep.include({ kind: 'tool', section: 'list', owner: 'host' })
    expect(declared('openai-chat', request)).to.deep.equal(['list', 'read', 'write'])
    expect((request as { tools: { function: { description: string } }[] }).tools[0].function.description).to.equal('Lists a folder, newest first.')
  })

  it('under edited: epoch, an edited tool keeps its old declaration, the note gives the new one, and the epoch declares it', async () => {
    const agent = await agentFor('anthropic', { edited: 'epoch' })
    const listed = harness.tools.register(tool('list'))
    const first = await agent.stepDetailed('Hi.', { format: 'anthropic' })
    listed()
    harness.tools.register(tool('list', { description: 'Lists a folder, newest first.' }))
    const second = await agent.stepDetailed('Again.', { format: 'anthropic' })
    expect(JSON.stringify(toolsOf(second.request))).to.equal(JSON.stringify(toolsOf(first.request)))
    expect(second.report.breaks).to.deep.equal([])
    expect(second.report.toolChanges).to.deep.equal([{ tool: 'list', kind: 'edited', owner: 'host', handling: 'next-epoch', breaks: false, cost: 0 }])
    expect(second.added.at(-1)!.content).to.include('"list" has changed').and.to.include('Lists a folder, newest first.')
    agent.openToolEpoch()
    const third = await agent.stepDetailed(undefined, { format: 'anthropic' })
    expect((toolsOf(third.request) as { description: string }[])[0].description).to.equal('Lists a folder, newest first.')
  })

  it('a tool added at once after the others is reported once, not as reordered at the next request', async () => {
    const agent = await agentFor('openai-chat')
    await agent.stepDetailed('Hi.')
    harness.tools.register(tool('grep'))
    expect((await agent.stepDetailed('Search.')).report.toolChanges!.map((change) => change.kind)).to.deep.equal(['added'])
    const next = await agent.stepDetailed('More.')
    expect(next.report.toolChanges).to.equal(undefined)
    expect(declared('openai-chat', next.request)).to.deep.equal(['read', 'write', 'grep'])
  })

  it('the agents service\'s toolChange is every agent\'s default; an agent\'s own option wins', async () => {
    const { host } = await bootApp({ systemPrompt: { persona: 'Persona.' }, tools: true, agents: { toolChange: { added: 'epoch' } } })
    expect((await host.agents.create({ id: 'x', model: 'gpt-5' })).toolChange).to.deep.equal({ removed: 'inert', added: 'epoch', edited: 'immediate', reordered: 'keep' })
    expect((await host.agents.create({ id: 'y', model: 'gpt-5', toolChange: 'immediate' })).toolChange).to.deep.equal({ removed: 'immediate', added: 'immediate', edited: 'immediate', reordered: 'immediate' })
    const refused = await bootApp({ systemPrompt: { persona: 'Persona.' }, tools: true, agents: { toolChange: { added: 'later' } as never } }).catch((error: Error) => error)
    expect(refused).to.be.instanceOf(Error)
  })

  it('an unknown policy is refused with AGENT_INVALID_TOOL_CHANGE naming the key', async () => {
    const error = await rejection(agentFor('openai-chat', { removed: 'vanish' } as never))
    expect(error).to.deep.include({ code: 'AGENT_INVALID_TOOL_CHANGE', details: { id: `a${made - 1}`, key: 'toolChange.removed', received: 'vanish' } })
    expect(((await rejection(agentFor('openai-chat', 'never' as never))) as Error & { details: object }).details).to.deep.include({ key: 'toolChange', received: 'never' })
  })
})
