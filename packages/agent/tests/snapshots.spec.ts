import { expect } from 'chai'
import type { Context } from 'cordis'
import type { Agent } from 'dsh-agent'
import { bootApp } from 'dsh-testing'
import { briefAgent, HEADING, NONE } from './helpers.js'

/** The runtime-context entries of an agent's record. */
const snapshots = (agent: Agent) => agent.conversation.filter((e) => e.source === 'runtime-context').map((e) => e.content)

describe('dsh-agent: runtime-context snapshots', () => {
  let app: Context
  let harness: Context
  let agent: Agent
  let mode: string
  beforeEach(async () => {
    ({ app, host: harness, agent } = await briefAgent())
    mode = 'read-only'
  })

  /** Registers the sandbox context through a plugin of its own; resolves to its disposer. */
  async function sandboxPlugin(): Promise<() => Promise<void>> {
    const fiber = app.plugin({ name: 'sandbox', inject: ['systemPrompt'], apply(ctx: Context) {
      ctx.systemPrompt.context({ name: 'sandbox:policy', order: ctx.systemPrompt.getContextOrder('sandbox:policy'), text: () => mode && `Sandbox: ${mode}.` })
    } })
    await fiber
    return async () => { await (fiber as unknown as { dispose(): unknown }).dispose() }
  }

  it('appends no snapshot and no "none" message while no context ever had text', async () => {
    await agent.step('One.')
    await agent.step('Two.')
    expect(agent.messages()).to.deep.equal([
      { role: 'system', content: 'Be brief.' }, { role: 'user', content: 'One.' }, { role: 'user', content: 'Two.' },
    ])
  })

  it('appends the snapshot after the input, as a user message, and not again while its text is the same', async () => {
    await sandboxPlugin()
    await agent.step('One.')
    expect((await agent.step('Two.')).messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'One.' },
      { role: 'user', content: `${HEADING}\n\nSandbox: read-only.` },
      { role: 'user', content: 'Two.' },
    ])
  })

  it('appends a new snapshot each time the text changes, even back to an earlier text', async () => {
    await sandboxPlugin()
    await agent.step()
    mode = 'workspace-write'
    await agent.step()
    await agent.step()
    mode = 'read-only'
    await agent.step()
    expect(snapshots(agent)).to.deep.equal([
      `${HEADING}\n\nSandbox: read-only.`, `${HEADING}\n\nSandbox: workspace-write.`, `${HEADING}\n\nSandbox: read-only.`,
    ])
  })

  it('appends the "none" message once when the context is removed, and nothing on later steps', async () => {
    const dispose = await sandboxPlugin()
    await agent.step('One.')
    await dispose()
    await agent.step('Two.')
    expect((await agent.step('Three.')).messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'One.' },
      { role: 'user', content: `${HEADING}\n\nSandbox: read-only.` },
      { role: 'user', content: 'Two.' },
      { role: 'user', content: NONE },
      { role: 'user', content: 'Three.' },
    ])
  })

  it('treats a context that renders empty like a removed one', async () => {
    await sandboxPlugin()
    await agent.step()
    mode = ''
    await agent.step()
    await agent.step()
    expect(snapshots(agent)).to.deep.equal([`${HEADING}\n\nSandbox: read-only.`, NONE])
  })

  it('after "none", a context with text brings a full snapshot back, and a second clearing a second "none"', async () => {
    const dispose = await sandboxPlugin()
    await agent.step()
    await dispose()
    await agent.step()
    const disposeAgain = await sandboxPlugin()
    await agent.step()
    await disposeAgain()
    await agent.step()
    await agent.step()
    expect(snapshots(agent)).to.deep.equal([`${HEADING}\n\nSandbox: read-only.`, NONE, `${HEADING}\n\nSandbox: read-only.`, NONE])
  })

  it('a suppressor registered mid-chat empties the snapshot: "none" once, and the snapshot returns when it goes', async () => {
    await sandboxPlugin()
    await agent.step()
    const lift = agent.ctx.systemPrompt.suppressRuntimeContext()
    await agent.step()
    await agent.step()
    lift()
    await agent.step()
    expect(snapshots(agent)).to.deep.equal([`${HEADING}\n\nSandbox: read-only.`, NONE, `${HEADING}\n\nSandbox: read-only.`])
  })

  it('joins several contexts in their order, interpolated, under one heading', async () => {
    harness.systemPrompt.context({ name: 'model:info', order: 300, text: 'Model: {{model}}.' })
    harness.systemPrompt.context({ name: 'approval:policy', order: 115, text: 'Approval: on request.' })
    await sandboxPlugin()
    await agent.step()
    expect(snapshots(agent)).to.deep.equal([`${HEADING}\n\nSandbox: read-only.\n\nApproval: on request.\n\nModel: deepseek-chat.`])
  })

  it('keeps the snapshots where they were recorded under the replace policy', async () => {
    await sandboxPlugin()
    const replacing = await harness.agents.create({ id: 'r', model: 'deepseek-chat', promptChange: 'replace' })
    await replacing.step('One.')
    mode = 'workspace-write'
    expect((await replacing.step('Two.')).messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'One.' },
      { role: 'user', content: `${HEADING}\n\nSandbox: read-only.` },
      { role: 'user', content: 'Two.' },
      { role: 'user', content: `${HEADING}\n\nSandbox: workspace-write.` },
    ])
  })

  it('sends no snapshot when the deployment turns the runtime context off', async () => {
    ({ app, host: harness } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, includeRuntimeContext: false }, tools: true, agents: true }))
    harness.systemPrompt.context({ name: 'sandbox:policy', order: 110, text: 'Sandbox: read-only.' })
    const quiet = await harness.agents.create({ id: 'q', model: 'deepseek-chat' })
    expect((await quiet.step('Hello.')).messages).to.deep.equal([{ role: 'user', content: 'Hello.' }])
  })
})
