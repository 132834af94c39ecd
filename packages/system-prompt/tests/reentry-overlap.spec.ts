import { expect } from 'chai'
import type { PromptAssembly } from 'dsh-system-prompt'
import { bootApp, pluginContext, scope } from 'dsh-testing'
import { BARE } from './helpers.js'

// The depth of a chain is checked in `reentry-frames.spec.ts`, in a process of its own: an assembly another
// test leaves in flight gives the first assembly of a chain a frame, and the chain is refused a level sooner.
describe('dsh-system-prompt: the re-entrancy guard and overlapping assemblies', () => {
  it('three overlapping assemblies of one scope, none nested in another, all complete', async () => {
    const { app, host } = await bootApp({ systemPrompt: BARE })
    const agent = scope(host, 'agent')
    const slow = await pluginContext(app, 'slow-listener', ['systemPrompt'])
    slow.on('system-prompt/assemble', async (assembly: PromptAssembly, _context, next) => {
      await new Promise((resolve) => setImmediate(resolve))
      return next(assembly)
    })
    const both = await Promise.all([0, 1, 2].map(() => app.systemPrompt.assemble({ scope: agent.key })))
    expect(both).to.have.length(3)
  })
})
