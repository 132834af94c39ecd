import { expect } from 'chai'
import { Context } from 'cordis'
import { assemblyNotes, type PromptAssembly, type Provenance } from 'dsh-system-prompt'
import { bootApp, pluginContext } from 'dsh-testing'
import { BARE } from './helpers.js'

/** `name: action by plugin` of every recorded change, sections then contexts then tools. */
const changes = (provenance: Provenance) => (['sections', 'contexts', 'tools'] as const).flatMap((list) =>
  [...provenance[list]].map(([name, change]) => `${list}/${name}: ${change.action} by ${change.by}`))

describe('dsh-system-prompt: provenance through the waterfall (R-WF-8)', () => {
  let app: Context
  beforeEach(async () => {
    ({ app } = await bootApp({ systemPrompt: BARE }))
    app.systemPrompt.section({ name: 'a', order: 1, text: 'A.' })
    app.systemPrompt.section({ name: 'b', order: 2, text: 'B.' })
    app.systemPrompt.context({ name: 'c', order: 1, text: 'C.' })
    app.systemPrompt.tools(() => ({ schemas: [{ name: 'read', description: 'Read.' }] }))
  })
  const notes = async () => assemblyNotes(await app.systemPrompt.assemble())!.provenance

  it('records nothing for listeners that hand the assembly on untouched', async () => {
    const plugin = await pluginContext(app, 'pass', ['systemPrompt'])
    plugin.on('system-prompt/assemble', (assembly, _c, next) => next(assembly))
    plugin.on('system-prompt/assemble', async (_assembly, _c, next) => next())
    expect(changes(await notes())).to.deep.equal([])
  })

  it('records no section change when a complete section is restored, and no context change while the runtime context is off', async () => {
    const plugin = await pluginContext(app, 'editor', ['systemPrompt'])
    plugin.on('system-prompt/assemble', (assembly, _c, next) => next({
      ...assembly,
      sections: assembly.sections.map((s) => s.name === 'a' || s.name === 'b' ? { ...s, text: `${s.text} (edited)` } : s),
      contexts: [...assembly.contexts, { name: 'added', text: 'Added.' }],
      tools: [...assembly.tools, { name: 'added' }],
    }))
    expect(changes(await notes())).to.deep.equal([
      'sections/a: rewritten by editor', 'sections/b: rewritten by editor', 'contexts/added: added by editor', 'tools/added: added by editor',
    ])
    app.systemPrompt.section({ name: 'whole', order: 3, text: 'The whole prompt.', complete: true })
    app.systemPrompt.suppressRuntimeContext()
    const assembly = await app.systemPrompt.assemble()
    expect([assembly.sections.map((s) => s.text), assembly.contexts]).to.deep.equal([['The whole prompt.'], []])
    expect(changes(assemblyNotes(assembly)!.provenance)).to.deep.equal(['tools/added: added by editor'])
  })

  it('names the plugin that added, rewrote (by spreading or in place) or removed each entry', async () => {
    const adder = await pluginContext(app, 'adder', ['systemPrompt'])
    const editor = await pluginContext(app, 'editor', ['systemPrompt'])
    adder.on('system-prompt/assemble', async (assembly, _c, next) => {
      const r = await next({ ...assembly, sections: [...assembly.sections, { name: 'audit', text: 'Audited.' }] })
      r.contexts[0].text = 'C, rewritten in place.'
      return r
    })
    editor.on('system-prompt/assemble', (assembly: PromptAssembly) => ({
      ...assembly,
      sections: assembly.sections.filter((s) => s.name !== 'b').map((s) => s.name === 'a' ? { ...s, text: 'A, rewritten.' } : s),
      tools: assembly.tools.map((t) => ({ ...t, description: 'Read (beta).' })),
    }))
    expect(changes(await notes()).sort()).to.deep.equal([
      'contexts/c: rewritten by adder',
      'sections/a: rewritten by editor',
      'sections/audit: added by adder',
      'sections/b: removed by editor',
      'tools/read: rewritten by editor',
    ])
  })

  it('keeps the last change to a name, and only changes that still show in the result', async () => {
    const first = await pluginContext(app, 'first', ['systemPrompt'])
    const second = await pluginContext(app, 'second', ['systemPrompt'])
    // `first` runs first: it removes "a" before next(); `second` adds it back, so "a" is an addition by `second`.
    first.on('system-prompt/assemble', (assembly, _c, next) => next({ ...assembly, sections: assembly.sections.filter((s) => s.name !== 'a') }))
    second.on('system-prompt/assemble', (assembly: PromptAssembly) => ({ ...assembly, sections: [...assembly.sections, { name: 'a', text: 'A again.' }] }))
    expect(changes(await notes())).to.deep.equal(['sections/a: added by second'])
  })

  it('has no changes for an assembly without listeners', async () => {
    expect(changes(await notes())).to.deep.equal([])
  })
})
