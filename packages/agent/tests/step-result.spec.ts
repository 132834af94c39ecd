import { expect } from 'chai'
import type { Context } from 'cordis'
import { toRequestTool } from 'dsh-agent'
import { renderAssembly } from 'dsh-system-prompt'
import { WireSession, entry } from 'dsh-wire'
import { bootApp, tool } from 'dsh-testing'

describe('dsh-agent: what a step returns', () => {
  let harness: Context
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: 'Persona for {{model}}.', personaSuffix: 'Suffix.' }, tools: true, agents: true }))
    harness.tools.register(tool('read', { guidance: 'Read before you edit.' }))
    harness.systemPrompt.context({ name: 'clock', order: 1, text: 'Turn one.' })
  })

  it('carries what was rendered, each part with its assembled entry, so nothing needs to render again', async () => {
    const agent = await harness.agents.create({ id: 'coder', model: 'm1' })
    const step = await agent.stepDetailed('Hi.')
    expect(step.rendered.sections.map((part) => [part.name, part.entry.owner, part.entry.order])).to.deep.equal([
      ['harness:identity', 'dsh-system-prompt', -1000],
      ['deployment:persona', 'dsh-system-prompt', 0],
      ['tool:read', 'host', 1100],
      ['deployment:persona-suffix', 'dsh-system-prompt', 10200],
    ])
    expect(step.rendered.sections.every((part) => step.assembly.sections.includes(part.entry))).to.equal(true)
    expect(step.rendered).to.deep.equal(renderAssembly(step.assembly))
    expect([step.system, step.snapshot]).to.deep.equal([step.rendered.system, step.rendered.snapshot])
    expect(step.request.messages[0].content).to.equal(step.rendered.system)
  })

  // An object literal's getters get an accessor pair in V8's old generation, which kept every closure
  // it held, and the whole step behind it, alive through young collections (bench/README.md, "Seventh round").
  it('keeps request, body, headers, report and budget as accessors of its class, not own properties, in a step, a fork and a wire build', async () => {
    const agent = await harness.agents.create({ id: 'coder', model: 'm1' })
    const step = await agent.stepDetailed('Hi.')
    agent.record({ role: 'assistant', content: 'Hello.' })
    const fork = await agent.fork({ kind: 'title', instruction: 'Name this chat.' })
    const build = new WireSession('anthropic').build({ record: [entry({ role: 'user', content: 'Hi.' }, 'user')], tools: [], model: 'm1', promptChange: 'append' })
    const accessors = (value: object) => Object.entries(Object.getOwnPropertyDescriptors(value)).filter(([, d]) => d.get || d.set).map(([key]) => key)
    for (const result of [step, fork.result]) {
      expect(accessors(result)).to.deep.equal([])
      expect(Object.keys(result)).to.not.include.members(['request', 'body', 'headers', 'report', 'budget'])
      expect(result.body).to.equal(JSON.stringify(result.request))
      expect([typeof result.report.requestTokens, typeof result.budget.fill, result.headers]).to.deep.equal(['number', 'number', {}])
    }
    expect(fork.result.side).to.deep.equal({ kind: 'title' })
    expect(accessors(build)).to.deep.equal([])
    expect(build.body).to.equal(JSON.stringify(build.request))
  })

  it('sends each tool as toRequestTool makes it, the one mapping the CLI also uses', async () => {
    const agent = await harness.agents.create({ id: 'coder', model: 'm1' })
    const step = await agent.stepDetailed()
    expect(step.request.tools).to.deep.equal(step.assembly.tools.map(toRequestTool))
    expect(step.request.tools![0]).to.deep.equal({ type: 'function', function: { name: 'read', description: 'The read tool.', parameters: step.assembly.tools[0].parameters } })
  })
})
