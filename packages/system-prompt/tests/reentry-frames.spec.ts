import { expect } from 'chai'
import type { Context } from 'cordis'
import type { PromptAssembly } from 'dsh-system-prompt'
import { bootApp, pluginContext, scope } from 'dsh-testing'
import { assemblyFramesOn } from '../src/reentry.js'
import { BARE } from './helpers.js'

/** One turn of the event loop (the storage goes off on the turn after the last frame settled). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('dsh-system-prompt: the re-entrancy guard\'s frames', () => {
  let app: Context
  let host: Context

  beforeEach(async () => {
    ({ app, host } = await bootApp({ systemPrompt: BARE }))
  })

  it('an assembly with listeners leaves no async-context hook on once it settled and the event loop turned (Node 20 makes every later promise pay for one)', async () => {
    const plugin = await pluginContext(app, 'watcher', ['systemPrompt'])
    let during = false
    plugin.on('system-prompt/assemble', (assembly: PromptAssembly, _context, next) => {
      during = assemblyFramesOn()
      return next(assembly)
    })
    const agent = scope(host, 'agent')
    await app.systemPrompt.assemble({ scope: agent.key })
    await app.systemPrompt.assemble({ scope: agent.key })
    expect(during).to.equal(true)
    await turn()
    expect(assemblyFramesOn()).to.equal(false)
  })

  it('a listener that assembles its own scope again after turns of the event loop is still refused, after the storage went off and came back', async () => {
    const agent = scope(host, 'agent')
    const quiet = await pluginContext(app, 'quiet', ['systemPrompt'])
    quiet.on('system-prompt/assemble', (assembly: PromptAssembly, _context, next) => next(assembly))
    await app.systemPrompt.assemble({ scope: agent.key })
    await turn()
    expect(assemblyFramesOn()).to.equal(false)
    const loop = await pluginContext(app, 'loop-listener', ['systemPrompt'])
    loop.on('system-prompt/assemble', async (assembly: PromptAssembly, context, next) => {
      if (context.scope === agent.key) {
        await turn()
        await turn()
        await loop.systemPrompt.assemble({ scope: agent.key })
      }
      return next(assembly)
    })
    const error = await app.systemPrompt.assemble({ scope: agent.key }).then(() => undefined, (failure: unknown) => failure)
    expect(error).to.deep.include({ code: 'PROMPT_ASSEMBLY_REENTRANT', details: { owner: 'loop-listener', depth: 2, limit: 8 } })
  })
})
