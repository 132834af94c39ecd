import { expect } from 'chai'
import { Context } from 'cordis'
import { publishedAssembly } from 'dsh-system-prompt'
import { bootApp } from 'dsh-testing'
import { BARE } from './helpers.js'

// What the published package's own tests compare an assembly with: its entries are `{ name, text }`
// (an order is registry input, not part of an assembled entry), and the assembly has `contexts`. A test
// ported from it compares `publishedAssembly(assembly)` (R-WF-4, docs/porting.md).
describe('dsh-system-prompt: publishedAssembly() is the published package\'s assembly', () => {
  let app: Context
  beforeEach(async () => { ({ app } = await bootApp({ systemPrompt: BARE })) })

  it('gives each section and runtime-context entry as { name, text }: no order, owner, band or complete', async () => {
    app.systemPrompt.section({ name: 'rules', order: 10, text: 'Be precise.' })
    app.systemPrompt.context({ name: 'clock', order: 1, text: 'Noon.' })
    app.systemPrompt.tools(() => ({ schemas: [{ name: 'echo', description: 'Echo back.', parameters: {} }] }))
    app.systemPrompt.variable('cwd', () => '/work')
    const assembly = await app.systemPrompt.assemble()
    expect(assembly.sections[1]).to.include({ order: 10, owner: 'root' })
    expect(publishedAssembly(assembly)).to.deep.equal({
      sections: [
        { name: 'deployment:persona', text: '' },
        { name: 'rules', text: 'Be precise.' },
        { name: 'deployment:persona-suffix', text: '' },
      ],
      contexts: [{ name: 'clock', text: 'Noon.' }],
      tools: [{ name: 'echo', description: 'Echo back.', parameters: {} }],
      variables: { cwd: '/work' },
    })
  })

  it('keeps a section\'s interpolate: false, which the published entry carries too', async () => {
    app.systemPrompt.section({ name: 'literal', order: 10, text: 'Write {{name}} as is.', interpolate: false })
    const { sections } = publishedAssembly(await app.systemPrompt.assemble())
    expect(sections[1]).to.deep.equal({ name: 'literal', text: 'Write {{name}} as is.', interpolate: false })
  })

  it('gives a complete section as the published package restores it: the one entry, { name, text }', async () => {
    app.systemPrompt.section({ name: 'complete', order: 10, text: 'Exact prompt.', complete: true })
    app.systemPrompt.section({ name: 'extra', order: 20, text: 'extra' })
    expect(publishedAssembly(await app.systemPrompt.assemble()).sections).to.deep.equal([{ name: 'complete', text: 'Exact prompt.' }])
  })

  it('copies the lists: changing the published view changes nothing in the assembly', async () => {
    app.systemPrompt.section({ name: 'rules', order: 10, text: 'Be precise.' })
    const assembly = await app.systemPrompt.assemble()
    const view = publishedAssembly(assembly)
    view.sections.pop()
    view.contexts.push({ name: 'late', text: 'x' })
    view.variables.x = 'y'
    expect(assembly.sections).to.have.length(3)
    expect(assembly.contexts).to.deep.equal([])
    expect(assembly.variables).to.deep.equal({})
  })
})
