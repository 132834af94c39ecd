import { expect } from 'chai'
import { Context } from 'cordis'
import { renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { bootApp, promptText, rejection, scope } from 'dsh-testing'
import { sectionNames } from './helpers.js'

describe('dsh-system-prompt: complete sections', () => {
  let app: Context
  let plugin: Context
  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Persona.', personaSuffix: 'Suffix.' }, host: { name: 'p' } }))
    plugin.systemPrompt.section({ name: 'before', order: -10, text: 'Before.' })
    plugin.systemPrompt.section({ name: 'after', order: 10, text: 'After.' })
  })

  it('claims the whole prompt: the final sections are exactly the complete one', async () => {
    plugin.systemPrompt.section({ name: 'whole', order: 5, text: 'The whole prompt.', complete: true })
    const assembly = await app.systemPrompt.assemble()
    expect(sectionNames(assembly)).to.deep.equal(['whole'])
    expect(assembly.sections[0]).to.include({ text: 'The whole prompt.', complete: true })
    expect(renderPrompt(assembly)).to.equal('The whole prompt.')
  })

  it('is still interpolated as a strict template at render', async () => {
    plugin.systemPrompt.variable('model', () => 'deepseek-chat')
    plugin.systemPrompt.section({ name: 'whole', order: 5, text: 'Model {{model}}.', complete: true })
    expect(await promptText(app)).to.equal('Model deepseek-chat.')
  })

  it('is restored as resolved before the waterfall, whatever a listener does to the sections', async () => {
    plugin.systemPrompt.section({ name: 'whole', order: 5, text: 'Original.', complete: true })
    plugin.on('system-prompt/assemble', async (assembly, _context, next) => {
      expect(sectionNames(assembly)).to.include('whole')
      assembly.sections.find((s) => s.name === 'whole')!.text = 'Mutated in place.'
      assembly.sections.push({ name: 'added', order: 1, text: 'Added.' })
      return next()
    })
    plugin.on('system-prompt/assemble', (assembly) => ({
      ...assembly,
      sections: [{ name: 'replacement', order: 0, text: 'Replaced.' }, { name: 'whole', order: 5, text: 'Rewritten.' }],
    }))
    const assembly = await app.systemPrompt.assemble()
    expect(assembly.sections.map((s) => [s.name, s.text])).to.deep.equal([['whole', 'Original.']])
  })

  it('is restored even when a listener removes every section', async () => {
    plugin.systemPrompt.section({ name: 'whole', order: 5, text: 'Original.', complete: true })
    plugin.on('system-prompt/assemble', (assembly) => ({ ...assembly, sections: [] }))
    expect(await promptText(app)).to.equal('Original.')
  })

  it('leaves the rest of the assembly to the waterfall (tools, contexts, variables stay authoritative)', async () => {
    plugin.systemPrompt.section({ name: 'whole', order: 5, text: 'W', complete: true })
    plugin.systemPrompt.tools(() => ({ schemas: [{ name: 'read' }] }))
    plugin.on('system-prompt/assemble', (assembly): PromptAssembly => ({ ...assembly, tools: [...assembly.tools, { name: 'extra' }] }))
    const assembly = await app.systemPrompt.assemble()
    expect(assembly.tools.map((t) => t.name)).to.deep.equal(['read', 'extra'])
  })

  it('rejects two effective complete sections, names JSON-quoted in assembly order', async () => {
    plugin.systemPrompt.section({ name: 'zeta', order: 1, text: 'Z', complete: true })
    plugin.systemPrompt.section({ name: 'alpha', order: 2, text: 'A', complete: true })
    const error = await rejection(app.systemPrompt.assemble())
    expect(error.message).to.equal('multiple complete prompt sections are active: "zeta", "alpha"')
  })

  it('lists complete sections tied on order by code-unit name in the rejection', async () => {
    plugin.systemPrompt.section({ name: 'b', order: 1, text: 'b', complete: true })
    plugin.systemPrompt.section({ name: 'B', order: 1, text: 'B', complete: true })
    plugin.systemPrompt.section({ name: 'a"q', order: 0, text: 'q', complete: true })
    const error = await rejection(app.systemPrompt.assemble())
    expect(error.message).to.equal('multiple complete prompt sections are active: "a\\"q", "B", "b"')
  })

  it('counts complete sections across the chain: a global and a scoped one reject that scope\'s assembly', async () => {
    const agent = scope(plugin, 'agent')
    plugin.systemPrompt.section({ name: 'global-whole', order: 1, text: 'G', complete: true })
    agent.ctx.systemPrompt.section({ name: 'agent-whole', order: 2, text: 'A', complete: true })
    expect((await rejection(app.systemPrompt.assemble({ scope: agent.key }))).message)
      .to.equal('multiple complete prompt sections are active: "global-whole", "agent-whole"')
    expect(await promptText(app)).to.equal('G')
  })

  it('applies only to the scope that registered it', async () => {
    const agent = scope(plugin, 'agent')
    const other = scope(plugin, 'other')
    agent.ctx.systemPrompt.section({ name: 'whole', order: 1, text: 'Agent only.', complete: true })
    expect(await promptText(app, { scope: agent.key })).to.equal('Agent only.')
    expect(await promptText(app, { scope: other.key })).to.equal('Before.\n\nPersona.\n\nAfter.\n\nSuffix.')
    expect(await promptText(app)).to.equal('Before.\n\nPersona.\n\nAfter.\n\nSuffix.')
  })

  it('is no longer complete where a scope shadows it with an ordinary section of the same name', async () => {
    const agent = scope(plugin, 'agent')
    plugin.systemPrompt.section({ name: 'whole', order: 5, text: 'Global whole.', complete: true })
    agent.ctx.systemPrompt.section({ name: 'whole', order: 5, text: 'Agent part.' })
    expect(await promptText(app, { scope: agent.key })).to.equal('Before.\n\nPersona.\n\nAgent part.\n\nAfter.\n\nSuffix.')
    expect(await promptText(app)).to.equal('Global whole.')
  })

  it('stops claiming the prompt once disposed', async () => {
    const dispose = plugin.systemPrompt.section({ name: 'whole', order: 5, text: 'W', complete: true })
    expect(await promptText(app)).to.equal('W')
    dispose()
    expect(await promptText(app)).to.equal('Before.\n\nPersona.\n\nAfter.\n\nSuffix.')
  })
})
