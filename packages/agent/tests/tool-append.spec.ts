/**
 * A tool that appears mid-conversation through the provider's append path (issue 21, item 4; R-TOOL-13):
 * Anthropic's mid-conversation tool changes, a `system` message of `tool_addition` blocks after the
 * tool-change note, with `wire.toolAdditions` on a model that takes mid-conversation system messages.
 */
import { expect } from 'chai'
import type { Context } from 'cordis'
import type { Agent, StepResult } from 'dsh-agent'
import { exportLedger, TOOL_CHANGE_NOTE_MARKER } from 'dsh-agent'
import { bootApp, loadPlugin, tool, type LoadedPlugin } from 'dsh-testing'
import { readFileSync, writeFileSync } from 'node:fs'

const LONG = 'Follow the house style for every change you make to the code base. '.repeat(160)
const BETA = { 'anthropic-beta': 'inline-tools-2026-09-15' }

type Body = { tools?: { name: string }[]; system?: unknown; messages: { role: string; content: { type: string; [key: string]: unknown }[] }[] }

const bodyOf = (result: StepResult<'anthropic'>): Body => result.request as unknown as Body
const names = (result: StepResult<'anthropic'>): string[] => (bodyOf(result).tools ?? []).map((item) => item.name)

/** The messages of a body without breakpoints (a breakpoint moves to the newest block at each request). */
function unmarked(body: Body): string {
  return JSON.stringify(body.messages, (key, value) => (key === 'cache_control' ? undefined : value))
}

describe('dsh-agent: a tool added through the provider\'s append path (issue 21, item 4, R-TOOL-13)', () => {
  let harness: Context
  let helper: LoadedPlugin
  let made = 0
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, tools: true, agents: true }))
    harness.tools.register(tool('read'))
    helper = await loadPlugin(harness, 'helper', ['tools'])
  })
  const agentFor = (model: string, toolAdditions = true): Promise<Agent> =>
    harness.agents.create({ id: `a${made++}`, model, wire: { toolAdditions } })

  it('Anthropic: the tools list and every earlier message keep their bytes; a system message of tool_addition blocks follows the note; no break, reported as appended', async () => {
    const agent = await agentFor('claude-opus-5')
    const first = await agent.stepDetailed('Hi.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Hello.' })
    helper.ctx.tools.register(tool('grep', { description: 'Searches files.' }))
    const second = await agent.stepDetailed('Search.', { format: 'anthropic' })
    const [before, after] = [bodyOf(first), bodyOf(second)]
    expect(JSON.stringify(after.tools)).to.equal(JSON.stringify(before.tools))
    expect(JSON.stringify(after.system)).to.equal(JSON.stringify(before.system))
    expect(unmarked({ messages: after.messages.slice(0, before.messages.length) })).to.equal(unmarked(before))
    expect(after.messages.at(-2)!.role).to.equal('user')
    expect((after.messages.at(-2)!.content[0] as unknown as { text: string }).text).to.match(/^\[tools changed: /).and.to.include('"grep" (from helper) is available from now on')
    expect(JSON.parse(unmarked({ messages: [after.messages.at(-1)!] }))).to.deep.equal([{
      role: 'system',
      content: [{ type: 'tool_addition', tool: { type: 'tool_definition', definition: { name: 'grep', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, description: 'Searches files.' } } }],
    }])
    expect(second.report.breaks).to.deep.equal([])
    expect(second.report.reusableTokens).to.equal(first.report.requestTokens)
    const [change] = second.report.toolChanges!
    expect(change).to.deep.equal({
      tool: 'grep', kind: 'added', owner: 'helper', handling: 'appended', breaks: false, cost: 0,
      via: 'a system message of tool_addition blocks (platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages#define-tools-in-a-message-beta)',
    })
    expect(first.headers).to.deep.equal({})
    expect(second.headers).to.deep.equal(BETA)
    const fork = await agent.fork({ kind: 'title', instruction: 'Name this conversation.', format: 'anthropic' })
    expect(fork.headers).to.deep.equal(BETA)
    expect(fork.parity()).to.equal(null)
  })

  it('golden: the three Anthropic bodies of a conversation whose tool is added through the path, pinned byte for byte (golden/tool-additions.json)', async () => {
    const agent = await agentFor('claude-opus-5')
    const bodies: unknown[] = [await agent.step('Hi.', { format: 'anthropic', breakpoints: { minTokens: 0 } })]
    agent.record({ role: 'assistant', content: 'Hello.' })
    helper.ctx.tools.register(tool('grep', { description: 'Searches files.' }))
    bodies.push(await agent.step('Search.', { format: 'anthropic', breakpoints: { minTokens: 0 } }))
    agent.record({ role: 'assistant', content: 'Searching.' })
    bodies.push(await agent.step('Go on.', { format: 'anthropic', breakpoints: { minTokens: 0 } }))
    const file = new URL('./golden/tool-additions.json', import.meta.url)
    const text = `${JSON.stringify(bodies, null, 2).replaceAll(LONG.trim(), '<LONG>')}\n`
    if (process.env.DSH_UPDATE_GOLDEN === '1') writeFileSync(file, text)
    expect(text).to.equal(readFileSync(file, 'utf8'))
  })

  it('Anthropic: later requests keep the tool appended, send the beta header, report nothing again and predict at least 90% cached; a call to it is an ordinary call', async () => {
    const agent = await agentFor('claude-opus-5')
    for (let turn = 0; turn < 4; turn++) {
      await agent.stepDetailed(`Turn ${turn}.`, { format: 'anthropic' })
      agent.record({ role: 'assistant', content: `Answer ${turn}.` })
    }
    helper.ctx.tools.register(tool('grep'))
    const added = await agent.stepDetailed('Search.', { format: 'anthropic' })
    expect(added.report.predictedCachedTokens / added.report.requestTokens).to.be.at.least(0.9)
    expect(agent.record({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'grep', arguments: '{}' } }] })).to.deep.equal([])
    agent.record({ role: 'tool', tool_call_id: 'c1', content: 'match' })
    const next = await agent.stepDetailed(undefined, { format: 'anthropic' })
    expect(names(next)).to.deep.equal(['read'])
    expect(next.report.toolChanges).to.equal(undefined)
    expect(next.report.breaks).to.deep.equal([])
    expect(next.report.predictedCachedTokens / next.report.requestTokens).to.be.at.least(0.9)
    expect(next.headers).to.deep.equal(BETA)
    expect(next.added.some((item) => item.content?.startsWith(TOOL_CHANGE_NOTE_MARKER))).to.equal(false)
  })

  it('Anthropic: a new definition of an appended tool goes by the path again, with no break', async () => {
    const agent = await agentFor('claude-opus-5')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    const dispose = helper.ctx.tools.register(tool('grep'))
    await agent.stepDetailed('Search.', { format: 'anthropic' })
    dispose()
    helper.ctx.tools.register(tool('grep', { description: 'Searches files, newest first.' }))
    const third = await agent.stepDetailed('Again.', { format: 'anthropic' })
    expect(names(third)).to.deep.equal(['read'])
    expect(third.report.breaks).to.deep.equal([])
    expect(third.report.toolChanges!.map((change) => [change.tool, change.kind, change.handling])).to.deep.equal([['grep', 'edited', 'appended']])
    const last = bodyOf(third).messages.at(-1)!
    expect((last.content[0] as unknown as { tool: { definition: { description: string } } }).tool.definition.description).to.equal('Searches files, newest first.')
  })

  it('Anthropic: at the next epoch the appended tool is declared in the tools list', async () => {
    const agent = await agentFor('claude-opus-5')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    helper.ctx.tools.register(tool('grep'))
    await agent.stepDetailed('Search.', { format: 'anthropic' })
    agent.openToolEpoch()
    const next = await agent.stepDetailed('Go on.', { format: 'anthropic' })
    expect(names(next)).to.deep.equal(['grep', 'read'])
  })

  it('the path closed: a model without mid-conversation system messages, the option off, or no declared tool: declared at once, the break reported with the reason', async () => {
    const cases: Array<[string, boolean, RegExp]> = [
      ['claude-sonnet-4-5', true, /^claude-sonnet-4-5 takes no mid-conversation system message, which anthropic's append path needs$/],
      ['claude-opus-5', false, /^anthropic's append path \(a system message of tool_addition blocks\) is off for this agent \(wire\.toolAdditions\)$/],
    ]
    for (const [model, on, reason] of cases) {
      const agent = await agentFor(model, on)
      await agent.stepDetailed('Hi.', { format: 'anthropic' })
      const dispose = helper.ctx.tools.register(tool('grep'))
      const second = await agent.stepDetailed('Search.', { format: 'anthropic' })
      dispose()
      expect(names(second), model).to.deep.equal(['read', 'grep'])
      expect(second.report.toolChanges![0]).to.deep.include({ tool: 'grep', kind: 'added', owner: 'helper', handling: 'declared', breaks: true })
      expect(second.report.toolChanges![0].fallback, model).to.match(reason)
      expect(second.headers).to.deep.equal({})
    }
    const { host } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, tools: true, agents: true })
    const bare = await host.agents.create({ id: 'bare', model: 'claude-opus-5', wire: { toolAdditions: true } })
    await bare.stepDetailed('Hi.', { format: 'anthropic' })
    host.tools.register(tool('grep'))
    const [change] = (await bare.stepDetailed('Search.', { format: 'anthropic' })).report.toolChanges!
    expect(change.fallback).to.match(/^anthropic's append path needs at least one declared tool/)
  })

  it('the ledger keeps the note\'s toolAdditions: a restored agent holds them and exports the same lines', async () => {
    const agent = await agentFor('claude-opus-5')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    helper.ctx.tools.register(tool('grep', { description: 'Searches files.' }))
    const added = await agent.stepDetailed('Search.', { format: 'anthropic' })
    agent.record({ role: 'assistant', content: 'Searching.' })
    const ledger = exportLedger(agent)
    expect(ledger).to.include('"toolAdditions":[{"name":"grep"')
    const { host } = await bootApp({ systemPrompt: { persona: `Persona. ${LONG}` }, tools: true, agents: true })
    const restored = await host.agents.restore(ledger)
    expect(exportLedger(restored)).to.equal(ledger)
    const note = restored.conversation.find((item) => item.role === 'user' && item.toolAdditions)!
    expect(note.role === 'user' && note.toolAdditions!.map((item) => item.name)).to.deep.equal(['grep'])
    expect(added.report.toolChanges![0].handling).to.equal('appended')
  })

  it('a request of a format without the path declares the appended tools after the others, reported as a break with that format\'s reason', async () => {
    const agent = await agentFor('claude-opus-5')
    await agent.stepDetailed('Hi.', { format: 'anthropic' })
    helper.ctx.tools.register(tool('grep'))
    await agent.stepDetailed('Search.', { format: 'anthropic' })
    const chat = await agent.stepDetailed('Go on.', { format: 'openai-chat' })
    expect((chat.request.tools ?? []).map((item) => item.function.name)).to.deep.equal(['read', 'grep'])
    expect(chat.report.toolChanges!.map((change) => [change.tool, change.handling, change.breaks, change.fallback])).to.deep.equal([
      ['grep', 'declared', true, 'openai-chat has no append path for an added tool (chat completions take tools only in the request\'s tools list)'],
    ])
    expect(JSON.stringify(chat.request.messages)).to.not.include('tool_addition')
  })
})
