/**
 * The worked example of docs/when-the-text-changes.md, run for real: the page's messages and its cache
 * table are pinned here, so the page stays true when the code changes.
 */
import { expect } from 'chai'
import type { Context } from 'cordis'
import type { Agent, ChatRequest, ChatRequestMessage } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'
import { HEADING, IDENTITY, NONE } from './helpers.js'

const PERSONA = 'You are the coding agent of the Shop team. Work in /work/shop.'
const READ = 'Read a file before you change it, and quote the lines you rely on.'
const PLAN = 'Plan mode: before you edit anything, list the changes you intend and wait for approval.'
const S1 = { role: 'system', content: `${IDENTITY}\n\n${PERSONA}\n\n${READ}` } as const
const S2 = { role: 'system', content: `${IDENTITY}\n\n${PERSONA}\n\n${PLAN}\n\n${READ}` } as const
const C1 = { role: 'user', content: `${HEADING}\n\nSandbox: workspace-write. Writable roots: /work/shop.` } as const
const C2 = { role: 'user', content: `${HEADING}\n\nSandbox: read-only.` } as const
const N = { role: 'user', content: NONE } as const
const u = (content: string) => ({ role: 'user', content }) as const
const a = (content: string) => ({ role: 'assistant', content }) as const
const CALL = { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"src/cart.ts"}' } }] } as const
const RESULT = { role: 'tool', content: 'export function total(items) { return sum(items) }', tool_call_id: 'call_1' } as const

/** The page's stand-in for a token stream: role names and texts in order. */
const text = (messages: readonly ChatRequestMessage[]) =>
  messages.map((m) => `<${m.role}>${m.content ?? ''}${m.role === 'assistant' && m.tool_calls ? JSON.stringify(m.tool_calls) : ''}`).join('')
const sharedPrefix = (x: string, y: string) => { let i = 0; while (i < x.length && i < y.length && x[i] === y[i]) i++; return i }

async function runExample(): Promise<Record<'append' | 'replace', ChatRequest[]>> {
  const { app, host: ctx } = await bootApp({ systemPrompt: { persona: 'You are the coding agent of the Shop team. Work in {{cwd}}.' }, tools: true, agents: true, host: { name: 'harness' } })
  await app.plugin({ name: 'fs', inject: ['tools'], apply(ctx: Context) {
    ctx.tools.register(tool('read', { description: 'Read a file.', guidance: READ }))
  } })
  let sandbox = 'Sandbox: workspace-write. Writable roots: /work/shop.'
  const sandboxPlugin = app.plugin({ name: 'sandbox', inject: ['systemPrompt'], apply(ctx: Context) {
    ctx.systemPrompt.context({ name: 'sandbox:policy', order: ctx.systemPrompt.getContextOrder('sandbox:policy'), text: () => sandbox })
  } }) as unknown as PromiseLike<void> & { dispose(): unknown }
  await sandboxPlugin
  const agents = [
    await ctx.agents.create({ id: 'append', model: 'deepseek-chat', cwd: '/work/shop' }),
    await ctx.agents.create({ id: 'replace', model: 'deepseek-chat', cwd: '/work/shop', promptChange: 'replace' }),
  ]
  const requests: Record<string, ChatRequest[]> = { append: [], replace: [] }
  const step = async (input?: string) => { for (const agent of agents) requests[agent.id].push(await agent.step(input)) }
  const each = (fn: (agent: Agent) => void) => agents.forEach(fn)

  await step('Why does the cart total ignore coupons?')
  each((agent) => {
    agent.record({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"src/cart.ts"}' } }] })
    agent.record({ role: 'tool', tool_call_id: 'call_1', content: 'export function total(items) { return sum(items) }' })
  })
  await step()
  each((agent) => agent.record({ role: 'assistant', content: 'total() never applies the coupon. Shall I fix it?' }))
  each((agent) => agent.ctx.systemPrompt.section({ name: 'plan:policy', order: agent.ctx.systemPrompt.getSectionOrder('plan:policy'), text: PLAN }))
  await step('Yes. Plan it first.')
  each((agent) => agent.record({ role: 'assistant', content: 'Plan: 1. apply the coupon in total(). 2. add a test. Approve?' }))
  sandbox = 'Sandbox: read-only.'
  await step('Approved. The sandbox is read-only for now, so show me the diff instead.')
  each((agent) => agent.record({ role: 'assistant', content: 'Here is the diff: ...' }))
  await sandboxPlugin.dispose()
  await step('Thanks. Anything else?')
  each((agent) => agent.record({ role: 'assistant', content: 'No, that is all.' }))
  await step('Bye.')
  return requests as Record<'append' | 'replace', ChatRequest[]>
}

describe('dsh-agent: the worked example of "When the text changes"', () => {
  let requests: Record<'append' | 'replace', ChatRequest[]>
  before(async () => { requests = await runExample() })

  it('sends the messages the page lists under append', () => {
    const all = [S1, u('Why does the cart total ignore coupons?'), C1, CALL, RESULT,
      a('total() never applies the coupon. Shall I fix it?'), S2, u('Yes. Plan it first.'),
      a('Plan: 1. apply the coupon in total(). 2. add a test. Approve?'),
      u('Approved. The sandbox is read-only for now, so show me the diff instead.'), C2,
      a('Here is the diff: ...'), u('Thanks. Anything else?'), N, a('No, that is all.'), u('Bye.')]
    expect(requests.append.map((r) => r.messages)).to.deep.equal([3, 5, 8, 11, 14, 16].map((n) => all.slice(0, n)))
  })

  it('sends the messages the page lists under replace', () => {
    const rest = [u('Why does the cart total ignore coupons?'), C1, CALL, RESULT,
      a('total() never applies the coupon. Shall I fix it?'), u('Yes. Plan it first.'),
      a('Plan: 1. apply the coupon in total(). 2. add a test. Approve?'),
      u('Approved. The sandbox is read-only for now, so show me the diff instead.'), C2,
      a('Here is the diff: ...'), u('Thanks. Anything else?'), N, a('No, that is all.'), u('Bye.')]
    expect(requests.replace.map((r) => r.messages)).to.deep.equal([
      [S1, ...rest.slice(0, 2)], [S1, ...rest.slice(0, 4)], [S2, ...rest.slice(0, 6)],
      [S2, ...rest.slice(0, 9)], [S2, ...rest.slice(0, 12)], [S2, ...rest.slice(0, 14)],
    ])
  })

  it('gives the sizes and reused prefixes of the page\'s cost table', () => {
    const table = (list: ChatRequest[]) => list.map((request, i) => {
      const size = text(request.messages).length
      return i === 0 ? [size] : [size, sharedPrefix(text(list[i - 1].messages), text(request.messages))]
    })
    expect(table(requests.append)).to.deep.equal([[386], [556, 386], [926, 556], [1187, 926], [1334, 1187], [1371, 1334]])
    expect(table(requests.replace)).to.deep.equal([[386], [556, 386], [730, 130], [991, 730], [1138, 991], [1175, 1138]])
  })
})

describe('dsh-agent: the empty-render example of "When the text changes"', () => {
  it('drops the opening message while nothing renders and appends the next text', async () => {
    const { app, host: ctx } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, agents: true, host: { name: 'harness' } })
    const rules = (text: string) => ({ name: 'house-rules', inject: ['systemPrompt'], apply(ctx: Context) {
      ctx.systemPrompt.section({ name: 'house:rules', order: 100, text })
    } })
    const english = app.plugin(rules('Answer in English.')) as unknown as PromiseLike<void> & { dispose(): unknown }
    await english
    const agent = await ctx.agents.create({ id: 'e', model: 'deepseek-chat' })
    const first = await agent.step('One.')
    agent.record({ role: 'assistant', content: 'Reply one.' })
    await english.dispose()
    const second = await agent.step('Two.')
    agent.record({ role: 'assistant', content: 'Reply two.' })
    await app.plugin(rules('Answer in French.'))
    const third = await agent.step('Three.')
    expect([first, second, third].map((r) => r.messages)).to.deep.equal([
      [{ role: 'system', content: 'Answer in English.' }, u('One.')],
      [u('One.'), a('Reply one.'), u('Two.')],
      [u('One.'), a('Reply one.'), u('Two.'), a('Reply two.'), { role: 'system', content: 'Answer in French.' }, u('Three.')],
    ])
  })
})
