/**
 * The program of `reentry-frames.spec.ts`, run in a process of its own (the storage is process-wide:
 * an assembly that another test left waiting would keep it on):
 *
 *   node --conditions=source --import tsx/esm packages/system-prompt/tests/reentry-frames-probe.ts
 *
 * prints one JSON line: whether the storage was on during assemblies with listeners run one at a time
 * (`lone`) and during two that overlap (`during`), whether it was off after the loop turned, and the code
 * a re-entrant listener got after the storage went off and came back, and how far a chain of new scopes
 * (each assembled from the listener of the one before) got before it was refused.
 */
import type { PromptAssembly } from 'dsh-system-prompt'
import { bootApp, pluginContext, scope } from 'dsh-testing'
import { assemblyFramesOn } from '../src/reentry.js'
import { BARE } from './helpers.js'

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

const { app, host } = await bootApp({ systemPrompt: BARE })
const agent = scope(host, 'agent')
const watcher = await pluginContext(app, 'watcher', ['systemPrompt'])
let during = false
watcher.on('system-prompt/assemble', (assembly: PromptAssembly, _context, next) => {
  during ||= assemblyFramesOn()
  return next(assembly)
})
await app.systemPrompt.assemble({ scope: agent.key })
await app.systemPrompt.assemble({ scope: agent.key })
const lone = during
await Promise.all([app.systemPrompt.assemble({ scope: agent.key }), app.systemPrompt.assemble({ scope: agent.key })])
await turn()
const after = assemblyFramesOn()
const loop = await pluginContext(app, 'loop-listener', ['systemPrompt'])
loop.on('system-prompt/assemble', async (assembly: PromptAssembly, context, next) => {
  if (context.scope === agent.key) {
    await turn()
    await turn()
    await loop.systemPrompt.assemble({ scope: agent.key })
  }
  return next(assembly)
})
const error = await app.systemPrompt.assemble({ scope: agent.key }).then(() => undefined, (failure: { code?: string; details?: unknown }) => failure)
// A chain of new scopes, each assembled from the listener of the one before, once nothing else is in flight.
await turn()
const chainer = await pluginContext(app, 'chain-listener', ['systemPrompt'])
let started = 0
chainer.on('system-prompt/assemble', async (assembly: PromptAssembly, context, next) => {
  if (context.scope !== agent.key) {
    started++
    await chainer.systemPrompt.assemble({ scope: scope(host, `link-${started}`).key })
  }
  return next(assembly)
})
const chained = await app.systemPrompt.assemble({ scope: scope(host, 'link-0').key }).then(() => undefined, (failure: { code?: string; details?: unknown }) => failure)
console.log(JSON.stringify({ lone, during, after, code: error?.code, details: error?.details, chain: { started, code: chained?.code, details: chained?.details } }))
process.exit(0)
