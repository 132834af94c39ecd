import { expect } from 'chai'
import type { Context } from 'cordis'
import type { ToolSchema } from 'dsh-system-prompt'
import { bootApp, scope } from 'dsh-testing'
import { BARE, toolNames } from './helpers.js'

// Issue 19: a listener that inserts a tool into the array it received (push, unshift, an inserting
// splice), before or after `next()`, made every assembly throw a TypeError from detach(), naming no
// plugin; replacing the array worked.
describe('dsh-system-prompt: a listener inserting a tool in place', () => {
  let app: Context
  let plugin: Context
  const added: ToolSchema = { name: 'added', description: 'Added by a listener.', parameters: { type: 'object' } }

  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'inserter' } }))
    plugin.systemPrompt.tools(() => ({ schemas: [
      { name: 'read', description: 'Read a file.', parameters: { type: 'object' } },
      { name: 'write', description: 'Write a file.', parameters: { type: 'object' } },
    ] }))
  })

  const insertions: Record<string, (tools: ToolSchema[]) => void> = {
    push: (tools) => { tools.push({ ...added }) },
    unshift: (tools) => { tools.unshift({ ...added }) },
    splice: (tools) => { tools.splice(1, 0, { ...added }) },
  }
  const expected: Record<string, string[]> = {
    push: ['read', 'write', 'added'],
    unshift: ['added', 'read', 'write'],
    splice: ['read', 'added', 'write'],
  }

  const verbs: Record<string, string> = { push: 'pushes', unshift: 'unshifts', splice: 'splices' }
  for (const [how, insert] of Object.entries(insertions)) {
    it(`keeps a tool a listener ${verbs[how]} into the array before next()`, async () => {
      plugin.on('system-prompt/assemble', (assembly, _context, next) => {
        insert(assembly.tools)
        return next()
      })
      expect(toolNames(await app.systemPrompt.assemble())).to.deep.equal(expected[how])
      expect(toolNames(await app.systemPrompt.assemble())).to.deep.equal(expected[how])
    })

    it(`keeps a tool a scoped listener ${verbs[how]} into the array after next()`, async () => {
      const agent = scope(plugin, 'agent')
      agent.ctx.on('system-prompt/assemble', async (_assembly, _context, next) => {
        const result = await next()
        insert(result.tools)
        return result
      })
      plugin.on('system-prompt/assemble', (assembly, _context, next) => next(assembly))
      const assembly = await app.systemPrompt.assemble({ scope: agent.key })
      expect(toolNames(assembly)).to.deep.equal(expected[how])
      expect(assembly.tools.find((t) => t.name === 'added')).to.deep.equal(added)
      expect(toolNames(await app.systemPrompt.assemble())).to.deep.equal(['read', 'write'])
    })
  }
})

// The tool check is kept with the view while the providers return the same elements (compiled-view.ts):
// a provider's `layers` is compared by content, as its schemas' names are, since a Map is not frozen.
describe('dsh-system-prompt: the kept tool check and a provider\'s layers', () => {
  it('follows a provider that moves a tool to another layer in the same Map', async () => {
    const { app, host } = await bootApp({ systemPrompt: BARE, host: { name: 'layered' } })
    const agent = scope(host, 'agent')
    const schemas = [{ name: 'read', description: 'Read a file.', parameters: { type: 'object' } }]
    const layers = new Map<string, object | undefined>([['read', undefined]])
    host.systemPrompt.tools(() => ({ schemas, layers }))
    agent.ctx.systemPrompt.section({ name: 'read-guide', order: 1, text: 'How to read.', tool: 'read' })
    const shown = async () => (await app.systemPrompt.assemble({ scope: agent.key })).sections.some((s) => s.name === 'read-guide')
    expect(await shown()).to.equal(false)
    layers.set('read', agent.key)
    expect(await shown()).to.equal(true)
    layers.set('read', undefined)
    expect(await shown()).to.equal(false)
  })
})
