import { expect } from 'chai'
import type { Context } from 'cordis'
import SystemPromptDefault, {
  joinContextSections, SystemPrompt, renderContextSections, renderContextSnapshot, renderPrompt, type PromptAssembly,
} from 'dsh-system-prompt'
import { bootApp } from 'dsh-testing'
import { BARE } from './helpers.js'

// Every type R-SP-6 lists is pinned by the type-checker in exports.test-d.ts.

// Declaration merging (R-SP-6): a package adds fields to the assembly and to the assemble context.
declare module 'dsh-system-prompt' {
  interface PromptAssembly {
    /** Added by this spec to prove `PromptAssembly` is extensible. */
    conformanceNote?: string
  }
  interface AssembleContext {
    /** Added by this spec to prove `AssembleContext` is extensible. */
    conformanceTag?: string
  }
}

describe('dsh-system-prompt: the package root', () => {
  it('default-exports the service class', () => {
    expect(SystemPromptDefault).to.equal(SystemPrompt)
  })

  describe('exports (R-SP-6)', () => {
    it('exports the render functions by name from the package root', () => {
      const assembly: PromptAssembly = {
        sections: [{ name: 'a', order: 0, text: 'A {{x}}' }],
        contexts: [{ name: 'c', order: 0, text: 'C {{x}}' }],
        tools: [],
        variables: { x: '1' },
      }
      expect(renderPrompt(assembly)).to.equal('A 1')
      expect(renderContextSections(assembly)).to.deep.equal([{ name: 'c', text: 'C 1', entry: assembly.contexts[0] }])
      expect(renderContextSnapshot(assembly)).to.equal(joinContextSections(['C 1']))
    })
  })

  describe('PromptAssembly (R-SP-6)', () => {
    it('is exactly { sections, contexts, tools, variables } when no listener adds to it', async () => {
      const { app, host } = await bootApp({ systemPrompt: BARE })
      host.systemPrompt.tools(() => ({ schemas: [{ name: 'read' }] }))
      expect(Object.keys(await app.systemPrompt.assemble())).to.deep.equal(['sections', 'contexts', 'tools', 'variables'])
    })
  })

  describe('declaration merging (R-SP-6)', () => {
    let app: Context
    let host: Context
    beforeEach(async () => {
      ({ app, host } = await bootApp({ systemPrompt: BARE }))
    })

    it('a field merged into AssembleContext reaches the providers of that assembly', async () => {
      let seen: string | undefined
      host.systemPrompt.section({ name: 's', order: 1, text: (context) => { seen = context.conformanceTag; return 'S' } })
      await app.systemPrompt.assemble({ conformanceTag: 'tagged' })
      expect(seen).to.equal('tagged')
    })

    it('a field merged into PromptAssembly that a listener sets comes back in the result', async () => {
      host.on('system-prompt/assemble', async (_assembly, _context, next) => ({ ...await next(), conformanceNote: 'noted' }))
      expect((await app.systemPrompt.assemble()).conformanceNote).to.equal('noted')
    })
  })
})
