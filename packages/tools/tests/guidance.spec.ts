import { expect } from 'chai'
import { Context } from 'cordis'
import { bootApp, promptText, scope, thrown, tool } from 'dsh-testing'
import { stats, toolNames } from './helpers.js'

describe('dsh-tools: guidance sections', () => {
  let app: Context
  let plugin: Context
  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, host: { name: 'fs' } }))
  })

  it('registers guidance as section "tool:<name>" at the named placement, verbatim and owned by the caller', async () => {
    plugin.tools.register(tool('read', { guidance: 'Read a file before you edit it.' }))
    const section = (await app.systemPrompt.assemble()).sections.find((s) => s.name === 'tool:read')
    expect(section).to.deep.equal({ name: 'tool:read', order: 1100, text: 'Read a file before you edit it.', owner: 'fs', interpolate: false, tool: 'read' })
    expect(app.systemPrompt.getSectionOrder('tool:read')).to.equal(1100)
  })

  it('places guidance among other sections by its placement: bash (1000) before read (1100), around a section at 1050', async () => {
    plugin.tools.register(tool('read', { guidance: 'READ' }))
    plugin.tools.register(tool('bash', { guidance: 'BASH' }))
    plugin.systemPrompt.section({ name: 'between', order: 1050, text: 'BETWEEN' })
    plugin.systemPrompt.section({ name: 'plan:policy', order: app.systemPrompt.getSectionOrder('plan:policy'), text: 'PLAN' })
    expect(await promptText(app)).to.equal('PLAN\n\nBASH\n\nBETWEEN\n\nREAD')
  })

  it('uses an explicit order for a tool without a named placement', async () => {
    plugin.tools.register(tool('deploy', { guidance: { text: 'Deploy only from main.', order: 3100 } }))
    plugin.systemPrompt.section({ name: 'late', order: 3200, text: 'Late.' })
    plugin.systemPrompt.section({ name: 'early', order: 3000, text: 'Early.' })
    expect(await promptText(app)).to.equal('Early.\n\nDeploy only from main.\n\nLate.')
  })

  it('an explicit order overrides the named placement', async () => {
    plugin.tools.register(tool('read', { guidance: { text: 'READ', order: -5 } }))
    plugin.systemPrompt.section({ name: 'zero', order: 0, text: 'ZERO' })
    expect(await promptText(app)).to.equal('READ\n\nZERO')
  })

  it('keeps braces: guidance is not interpolated, so unknown or malformed references render as written', async () => {
    const text = 'Pass the pattern as {{pattern}}; {{ spaced }} and {{{triple}}} stay as they are.'
    plugin.tools.register(tool('grep', { guidance: text }))
    expect(await promptText(app)).to.equal(text)
  })

  it('renders the guidance only where the tool is visible: a scope that denies the tool loses its guidance', async () => {
    plugin.tools.register(tool('bash', { guidance: 'Run one command at a time.' }))
    plugin.tools.register(tool('read', { guidance: 'Read before you edit.' }))
    const reviewer = scope(plugin, 'reviewer')
    const coder = scope(plugin, 'coder')
    reviewer.ctx.tools.restrict({ deny: ['bash'] })
    expect(await promptText(app, { scope: reviewer.key })).to.equal('Read before you edit.')
    expect(await toolNames(app, reviewer.key)).to.deep.equal(['read'])
    expect(await promptText(app, { scope: coder.key })).to.equal('Run one command at a time.\n\nRead before you edit.')
    expect(await promptText(app)).to.equal('Run one command at a time.\n\nRead before you edit.')
  })

  it('an allow list that leaves a tool out drops its guidance too', async () => {
    plugin.tools.register(tool('bash', { guidance: 'BASH' }))
    plugin.tools.register(tool('read', { guidance: 'READ' }))
    const agent = scope(plugin, 'agent')
    agent.ctx.tools.restrict({ allow: ['bash'] })
    expect(await promptText(app, { scope: agent.key })).to.equal('BASH')
  })

  it('the guidance of a scoped tool renders in that scope only', async () => {
    const agent = scope(plugin, 'agent')
    agent.ctx.tools.register(tool('notes', { guidance: { text: 'Keep notes short.', order: 3000 } }))
    expect(await promptText(app, { scope: agent.key })).to.equal('Keep notes short.')
    expect(await promptText(app)).to.equal('')
  })

  it('a scope that shadows a tool shadows its guidance with its own', async () => {
    plugin.tools.register(tool('read', { guidance: 'Global read guidance.' }))
    const agent = scope(plugin, 'agent')
    agent.ctx.tools.register(tool('read', { guidance: 'Only read files under review/.' }))
    expect(await promptText(app, { scope: agent.key })).to.equal('Only read files under review/.')
    expect(await promptText(app)).to.equal('Global read guidance.')
  })

  it('a scope that shadows a tool with one of its own, without guidance, does not get the wider tool\'s guidance', async () => {
    plugin.tools.register(tool('read', { guidance: 'Global read guidance.' }))
    plugin.systemPrompt.section({ name: 'rules', order: 10, text: 'Rules.' })
    const agent = scope(plugin, 'agent')
    agent.ctx.tools.register(tool('read', { description: 'Read a file of the review.' }))
    expect(await promptText(app, { scope: agent.key })).to.equal('Rules.')
    expect(await promptText(app)).to.equal('Rules.\n\nGlobal read guidance.')
  })

  it('disposing the tool removes its guidance section', async () => {
    const before = stats(app)
    const dispose = plugin.tools.register(tool('read', { guidance: 'READ' }))
    expect(app.systemPrompt.stats().entries).to.equal(before.prompt.entries + 1)
    dispose()
    expect(await promptText(app)).to.equal('')
    expect(stats(app).prompt).to.deep.equal(before.prompt)
  })

  describe('refused guidance leaves nothing behind', () => {
    /** Runs `register`, expects `message`, and proves neither service changed. */
    async function refused(register: () => unknown, message: string): Promise<void> {
      const before = stats(app)
      expect(thrown(register).message).to.equal(message)
      expect(stats(app)).to.deep.equal(before)
      expect(await toolNames(app)).to.deep.equal(['existing'])
      expect(await promptText(app)).to.equal('Existing.')
    }
    beforeEach(() => { plugin.tools.register(tool('existing', { guidance: { text: 'Existing.', order: 3000 } })) })

    it('a tool without a named placement needs an explicit order', () => refused(
      () => plugin.tools.register(tool('deploy', { guidance: 'Deploy carefully.' })),
      'tool "deploy" guidance needs an order: "tool:deploy" is not a named placement, so pass guidance as { text, order }',
    ))

    it('guidance that is neither a string nor { text, order? } is refused', () => refused(
      () => plugin.tools.register(tool('read', { guidance: 42 as never })),
      'tool "read" guidance must be a string or { text: string, order?: number }',
    ))

    it('a non-finite guidance order is refused with the prompt service\'s message, and the tool is not kept', () => refused(
      () => plugin.tools.register(tool('read', { guidance: { text: 'READ', order: Number.NaN } })),
      'prompt section "tool:read" order must be a finite number',
    ))

    it('guidance whose section name is taken in the same layer is refused, and the tool is not kept', async () => {
      plugin.systemPrompt.section({ name: 'tool:read', order: 1100, text: 'Hand-written read notes.' })
      const before = stats(app)
      expect(thrown(() => plugin.tools.register(tool('read', { guidance: 'READ' }))).message).to.equal(
        'prompt section "tool:read" is already registered (register the second one through a narrower scope to shadow it there)',
      )
      expect(stats(app)).to.deep.equal(before)
      expect(await toolNames(app)).to.deep.equal(['existing'])
    })
  })
})
