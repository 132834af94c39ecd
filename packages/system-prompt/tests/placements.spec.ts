import { expect } from 'chai'
import { Context } from 'cordis'
import { CONTEXT_PLACEMENTS, SECTION_PLACEMENTS } from 'dsh-system-prompt'
import { getContextOrder, getSectionOrder } from 'dsh-system-prompt/internal'
import { bootApp, pluginContext, promptText } from 'dsh-testing'
import { BARE } from './helpers.js'

/** R-ORDER-5, copied by hand: the contract the table in the code must match. */
const REFERENCE_SECTIONS: Record<string, number> = {
  'harness:identity': -1000, 'harness:source': -900, 'app:web-surface': -800, 'deployment:persona': 0,
  'plan:policy': 500, 'team:policy': 600, 'tools:ptc-only': 800, 'context:file-reference': 900,
  'tool:bash': 1000, 'tool:pwsh': 1010, 'tool:read': 1100, 'tool:write': 1200, 'tool:edit': 1300,
  'tool:glob': 1400, 'tool:grep': 1500, 'tool:jobs': 1600, 'tool:pty': 1700, 'tool:web_search': 2000,
  'tool:web_fetch': 2100, 'tool:lsp': 2200, 'tool:session-query': 2300, 'tool:goal': 2400,
  'tool:cordis': 2500, 'tool:workflow': 2600, 'tool:ralph': 2700, 'subagent:continuable': 2800,
  'tool:report': 2900, 'tool:computer_use': 3000, 'mcp:servers': 3100, 'tools:sdk': 5000, 'deliverable:file-references': 9000, 'tool:structured_output': 9900,
}
const REFERENCE_CONTEXTS: Record<string, number> = { 'sandbox:policy': 110, 'approval:policy': 115, 'subagent:delegation': 120 }

describe('dsh-system-prompt: named placements', () => {
  let app: Context
  before(async () => { app = (await bootApp({ systemPrompt: BARE })).app })

  for (const [name, order] of Object.entries(REFERENCE_SECTIONS)) {
    it(`getSectionOrder("${name}") is ${order}`, () => {
      expect(app.systemPrompt.getSectionOrder(name)).to.equal(order)
      expect(getSectionOrder(name)).to.equal(order)
    })
  }

  for (const [name, order] of Object.entries(REFERENCE_CONTEXTS)) {
    it(`getContextOrder("${name}") is ${order}`, () => {
      expect(app.systemPrompt.getContextOrder(name)).to.equal(order)
      expect(getContextOrder(name)).to.equal(order)
    })
  }

  it('allocates exactly the section and context names of R-ORDER-5', () => {
    expect(SECTION_PLACEMENTS).to.deep.equal(REFERENCE_SECTIONS)
    expect(CONTEXT_PLACEMENTS).to.deep.equal(REFERENCE_CONTEXTS)
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

  for (const name of ['tool:unknown', 'Tool:bash', 'tool:bash ', '', 'constructor', 'toString', '__proto__', 'TOOL_SOMETHING_NEW']) {
    it(`getSectionOrder has no placement (undefined) for the unknown name ${JSON.stringify(name)}, so "?? 1005" falls back (R-ORDER-7)`, () => {
      expect(app.systemPrompt.getSectionOrder(name)).to.equal(undefined)
      expect(app.systemPrompt.getSectionOrder(name) ?? 1005).to.equal(1005)
    })
  }

  it('getContextOrder has no placement for an unknown name, and section names are not context names', () => {
    for (const name of ['sandbox', 'tool:bash', 'constructor', 'TOOL_READ']) expect(app.systemPrompt.getContextOrder(name)).to.equal(undefined)
  })

  it('getSectionOrder does not know context names', () => {
    expect(getSectionOrder('sandbox:policy')).to.equal(undefined)
    expect(getSectionOrder('SANDBOX_POLICY')).to.equal(undefined)
  })

  const aliases: Array<[string, string]> = [
    ['HARNESS_IDENTITY', 'harness:identity'], ['HARNESS_SOURCE', 'harness:source'], ['WEB_SURFACE', 'app:web-surface'],
    ['DEPLOYMENT_PERSONA_PREFIX', 'deployment:persona'], ['PLAN_POLICY', 'plan:policy'], ['TEAM_POLICY', 'team:policy'],
    ['PTC_ONLY', 'tools:ptc-only'], ['FILE_REFERENCE', 'context:file-reference'], ['TOOL_BASH', 'tool:bash'], ['TOOL_PWSH', 'tool:pwsh'],
    ['TOOL_READ', 'tool:read'], ['TOOL_WRITE', 'tool:write'], ['TOOL_EDIT', 'tool:edit'], ['TOOL_GLOB', 'tool:glob'], ['TOOL_GREP', 'tool:grep'],
    ['TOOL_JOBS', 'tool:jobs'], ['TOOL_PTY', 'tool:pty'], ['TOOL_WEB_SEARCH', 'tool:web_search'], ['TOOL_WEB_FETCH', 'tool:web_fetch'],
    ['TOOL_LSP', 'tool:lsp'], ['TOOL_SESSION_QUERY', 'tool:session-query'], ['TOOL_GOAL', 'tool:goal'], ['TOOL_CORDIS', 'tool:cordis'],
    ['TOOL_WORKFLOW', 'tool:workflow'], ['TOOL_RALPH', 'tool:ralph'], ['TOOL_SUBAGENT', 'subagent:continuable'], ['TOOL_REPORT', 'tool:report'],
    ['TOOLS_SDK', 'tools:sdk'], ['DELIVERABLE_FILE_REFERENCES', 'deliverable:file-references'], ['STRUCTURED_OUTPUT', 'tool:structured_output'],
  ]
  for (const [alias, name] of aliases) {
    it(`resolves the published constant name ${alias} to the placement of "${name}"`, () => {
      expect(app.systemPrompt.getSectionOrder(alias)).to.equal(SECTION_PLACEMENTS[name as keyof typeof SECTION_PLACEMENTS])
    })
  }

  it('resolves the two newer published placements, TOOL_COMPUTER_USE 3000 and MCP_SERVERS 3100', () => {
    expect([app.systemPrompt.getSectionOrder('TOOL_COMPUTER_USE'), app.systemPrompt.getSectionOrder('MCP_SERVERS')]).to.deep.equal([3000, 3100])
  })

  it('gives the persona suffix, by name or as DEPLOYMENT_PERSONA_SUFFIX, the published order 10200', () => {
    expect([app.systemPrompt.getSectionOrder('deployment:persona-suffix'), app.systemPrompt.getSectionOrder('DEPLOYMENT_PERSONA_SUFFIX')])
      .to.deep.equal([10200, 10200])
  })

  it('resolves the published context constant names', () => {
    expect(['SANDBOX_POLICY', 'APPROVAL_POLICY', 'SUBAGENT_DELEGATION'].map((n) => app.systemPrompt.getContextOrder(n))).to.deep.equal([110, 115, 120])
  })

  it('places first-party sections that ask for their order as the allocation says', async () => {
    const plugin = await pluginContext(app, 'first-party', ['systemPrompt'])
    for (const name of ['tool:read', 'tool:bash', 'harness:source', 'tool:pwsh', 'tools:sdk'] as const) {
      plugin.systemPrompt.section({ name, order: plugin.systemPrompt.getSectionOrder(name), text: name })
    }
    plugin.systemPrompt.section({ name: 'external', order: 1005, text: 'external' })
    expect(await promptText(app)).to.equal(['harness:source', 'tool:bash', 'external', 'tool:pwsh', 'tool:read', 'tools:sdk'].join('\n\n'))
    await plugin.fiber.dispose()
  })
})
