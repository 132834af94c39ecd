import { expect } from 'chai'
import { Context } from 'cordis'
import { CONTEXT_PLACEMENTS, SECTION_PLACEMENTS } from 'dsh-system-prompt'
import { getContextOrder, getSectionOrder } from 'dsh-system-prompt/internal'
import { bootApp, pluginContext, promptText, thrown } from 'dsh-testing'
import { BARE } from './helpers.js'

/** SPEC §8, copied by hand: the contract the table in the code must match. */
const SPEC_SECTIONS: Record<string, number> = {
  'harness:identity': -1000, 'harness:source': -900, 'app:web-surface': -800, 'deployment:persona': 0,
  'plan:policy': 500, 'team:policy': 600, 'tools:ptc-only': 800, 'context:file-reference': 900,
  'tool:bash': 1000, 'tool:pwsh': 1010, 'tool:read': 1100, 'tool:write': 1200, 'tool:edit': 1300,
  'tool:glob': 1400, 'tool:grep': 1500, 'tool:jobs': 1600, 'tool:pty': 1700, 'tool:web_search': 2000,
  'tool:web_fetch': 2100, 'tool:lsp': 2200, 'tool:session-query': 2300, 'tool:goal': 2400,
  'tool:cordis': 2500, 'tool:workflow': 2600, 'tool:ralph': 2700, 'subagent:continuable': 2800,
  'tool:report': 2900, 'tools:sdk': 5000, 'deliverable:file-references': 9000, 'tool:structured_output': 9900,
}
const SPEC_CONTEXTS: Record<string, number> = { 'sandbox:policy': 110, 'approval:policy': 115, 'subagent:delegation': 120 }

describe('dsh-system-prompt: named placements', () => {
  let app: Context
  before(async () => { app = (await bootApp({ systemPrompt: BARE })).app })

  for (const [name, order] of Object.entries(SPEC_SECTIONS)) {
    it(`getSectionOrder("${name}") is ${order}`, () => {
      expect(app.systemPrompt.getSectionOrder(name)).to.equal(order)
      expect(getSectionOrder(name)).to.equal(order)
    })
  }

  for (const [name, order] of Object.entries(SPEC_CONTEXTS)) {
    it(`getContextOrder("${name}") is ${order}`, () => {
      expect(app.systemPrompt.getContextOrder(name)).to.equal(order)
      expect(getContextOrder(name)).to.equal(order)
    })
  }

  it('allocates exactly the SPEC section and context names', () => {
    expect(SECTION_PLACEMENTS).to.deep.equal(SPEC_SECTIONS)
    expect(CONTEXT_PLACEMENTS).to.deep.equal(SPEC_CONTEXTS)
  })

  it('gives every section a unique integer', () => {
    const values = Object.values(SECTION_PLACEMENTS)
    expect(values.every(Number.isInteger)).to.equal(true)
    expect(new Set(values).size).to.equal(values.length)
  })

  it('keeps adjacent section values at least ten apart', () => {
    const values = Object.values(SECTION_PLACEMENTS).sort((a, b) => a - b)
    const gaps = values.slice(1).map((v, i) => ({ between: [values[i], v], gap: v - values[i] }))
    expect(gaps.filter((g) => g.gap < 10)).to.deep.equal([])
  })

  it('gives every context a unique integer', () => {
    const values = Object.values(CONTEXT_PLACEMENTS)
    expect(values.every(Number.isInteger)).to.equal(true)
    expect(new Set(values).size).to.equal(values.length)
  })

  it('cannot be changed at run time', () => {
    expect(() => { (SECTION_PLACEMENTS as Record<string, number>)['tool:bash'] = 1 }).to.throw(TypeError)
    expect(getSectionOrder('tool:bash')).to.equal(1000)
  })

  for (const name of ['tool:unknown', 'Tool:bash', 'tool:bash ', '', 'constructor', 'toString', '__proto__']) {
    it(`getSectionOrder throws for the unknown name ${JSON.stringify(name)}`, () => {
      expect(thrown(() => app.systemPrompt.getSectionOrder(name)).message)
        .to.match(new RegExp(`^unknown prompt section placement ${escape(JSON.stringify(name))}; known placements: harness:identity, `))
    })
  }

  it('getContextOrder throws for an unknown name, and section names are not context names', () => {
    for (const name of ['sandbox', 'tool:bash', 'constructor']) {
      expect(thrown(() => app.systemPrompt.getContextOrder(name)).message)
        .to.equal(`unknown prompt context placement ${JSON.stringify(name)}; known placements: sandbox:policy, approval:policy, subagent:delegation`)
    }
  })

  it('getSectionOrder does not know context names', () => {
    expect(() => getSectionOrder('sandbox:policy')).to.throw('unknown prompt section placement "sandbox:policy"')
  })

  it('places first-party sections that ask for their order as the allocation says', async () => {
    const plugin = await pluginContext(app, 'first-party', ['systemPrompt'])
    for (const name of ['tool:read', 'tool:bash', 'harness:source', 'tool:pwsh', 'tools:sdk']) {
      plugin.systemPrompt.section({ name, order: plugin.systemPrompt.getSectionOrder(name), text: name })
    }
    plugin.systemPrompt.section({ name: 'external', order: 1005, text: 'external' })
    expect(await promptText(app)).to.equal(['harness:source', 'tool:bash', 'external', 'tool:pwsh', 'tool:read', 'tools:sdk'].join('\n\n'))
    await plugin.fiber.dispose()
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
