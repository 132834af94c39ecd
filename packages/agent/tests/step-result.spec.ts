import { expect } from 'chai'
import type { Context } from 'cordis'
import { toRequestTool } from 'dsh-agent'
import { renderAssembly } from 'dsh-system-prompt'
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

  it('sends each tool as toRequestTool makes it, the one mapping the CLI also uses', async () => {
    const agent = await harness.agents.create({ id: 'coder', model: 'm1' })
    const step = await agent.stepDetailed()
    expect(step.request.tools).to.deep.equal(step.assembly.tools.map(toRequestTool))
    expect(step.request.tools![0]).to.deep.equal({ type: 'function', function: { name: 'read', description: 'The read tool.', parameters: step.assembly.tools[0].parameters } })
  })
})
