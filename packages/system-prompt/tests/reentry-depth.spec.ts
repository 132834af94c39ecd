import { expect } from 'chai'
import type { PromptAssembly } from 'dsh-system-prompt'
import { bootApp, pluginContext, rejection, scope } from 'dsh-testing'
import { BARE } from './helpers.js'

describe('dsh-system-prompt: the re-entrancy guard\'s depth', () => {
  it('a listener that assembles a new scope from every assembly is refused at the ninth nested one (the first, which has no frame, counts), naming its plugin', async () => {
    const { app, host } = await bootApp({ systemPrompt: BARE })
    const chain = await pluginContext(app, 'chain-listener', ['systemPrompt'])
    let started = 0
    chain.on('system-prompt/assemble', async (assembly: PromptAssembly, _context, next) => {
      started++
      await chain.systemPrompt.assemble({ scope: scope(host, `link-${started}`).key })
      return next(assembly)
    })
    const error = await rejection(app.systemPrompt.assemble({ scope: scope(host, 'link-0').key }))
    expect(error).to.deep.include({ code: 'PROMPT_ASSEMBLY_REENTRANT', details: { owner: 'chain-listener', depth: 9, limit: 8 } })
    expect(started).to.equal(8)
  })

  it('overlapping assemblies of one scope that are not nested in each other both complete, whichever starts first', async () => {
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
