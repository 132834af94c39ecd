import { expect } from 'chai'
import type { Context } from 'cordis'
import SystemPromptDefault, {
  joinContextSections, SystemPrompt, renderContextSections, renderContextSnapshot, renderPrompt, type PromptAssembly,
} from 'dsh-system-prompt'
import { bootApp } from 'dsh-testing'
import { BARE } from './helpers.js'

// Every type SPEC §3 lists is pinned by the type-checker in exports.test-d.ts.

// Declaration merging (SPEC §3): a package adds fields to the assembly and to the assemble context.
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

  describe('§3 exports', () => {
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

  describe('§3 PromptAssembly', () => {
    it('is exactly { sections, contexts, tools, variables } when no listener adds to it', async () => {
      const { app, host } = await bootApp({ systemPrompt: BARE })
      host.systemPrompt.tools(() => ({ schemas: [{ name: 'read' }] }))
      expect(Object.keys(await app.systemPrompt.assemble())).to.deep.equal(['sections', 'contexts', 'tools', 'variables'])
    })
  })

  describe('§3 declaration merging', () => {
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
