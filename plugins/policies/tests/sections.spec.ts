import { readFile } from 'node:fs/promises'
import { expect } from 'chai'
import type { Context } from 'cordis'
import Policies, { DEFAULT_PLAN_TEXT, DEFAULT_TEAM_TEXT } from 'dsh-plugin-policies'
import { bootApp, pluginContext, promptText, rejection, snapshotText } from 'dsh-testing'

describe('dsh-plugin-policies: plan:policy and team:policy', () => {
  let app: Context
  beforeEach(async () => { app = (await bootApp({ systemPrompt: { includeHarnessIdentity: false }, agents: true })).app })

  it('registers both sections at their named placements with the built-in texts', async () => {
    await app.plugin(Policies)
    const sections = (await app.systemPrompt.assemble()).sections.filter((s) => s.name.endsWith(':policy'))
    expect(sections.map((s) => [s.name, s.order, s.text, s.owner])).to.deep.equal([
      ['plan:policy', app.systemPrompt.getSectionOrder('plan:policy'), DEFAULT_PLAN_TEXT, 'dsh-plugin-policies'],
      ['team:policy', app.systemPrompt.getSectionOrder('team:policy'), DEFAULT_TEAM_TEXT, 'dsh-plugin-policies'],
    ])
    expect(await promptText(app)).to.equal(DEFAULT_PLAN_TEXT + '\n\n' + DEFAULT_TEAM_TEXT)
  })

  it('the built-in texts open with their headings', () => {
    expect(DEFAULT_PLAN_TEXT.startsWith('## Planning\n\n- For work with several steps, write a short plan before you change anything')).to.equal(true)
    expect(DEFAULT_TEAM_TEXT.startsWith('## Working with other agents\n\n- You may be one of several agents on a task.')).to.equal(true)
  })

  it('the sections sit after the persona and before tool guidance', async () => {
    const order = (name: 'deployment:persona' | 'plan:policy' | 'team:policy' | 'tool:bash') => app.systemPrompt.getSectionOrder(name)
    expect(order('deployment:persona')).to.be.below(order('plan:policy'))
    expect(order('team:policy')).to.be.below(order('tool:bash'))
  })

  it('with no sandbox or approval mode configured, no runtime context is registered', async () => {
    await app.plugin(Policies)
    expect((await app.systemPrompt.assemble()).contexts).to.deep.equal([])
    expect(await snapshotText(app)).to.equal('')
  })

  it('enabled: false leaves a section out', async () => {
    await app.plugin(Policies, { team: { enabled: false } })
    expect(await promptText(app)).to.equal(DEFAULT_PLAN_TEXT)
  })

  it('a text override replaces the section and is interpolated as a strict template', async () => {
    const facts = await pluginContext(app, 'facts', ['systemPrompt', 'agents'])
    facts.systemPrompt.variable('tracker', () => 'PROJ')
    await app.plugin(Policies, { plan: { text: 'Open a {{tracker}} ticket for every plan.' }, team: { enabled: false } })
    expect(await promptText(app)).to.equal('Open a PROJ ticket for every plan.')
  })

  it('an override naming an unknown variable fails the assembly with the variable and the section named', async () => {
    await app.plugin(Policies, { plan: { text: 'Plan in {{language}}.' }, team: { enabled: false } })
    const error = await rejection(promptText(app))
    expect(error.message).to.match(/^unknown prompt variable "\{\{language\}\}" in section "plan:policy"; registered variables: /)
  })

  it('refuses a blank text for an enabled section, naming the key', async () => {
    const error = await rejection(app.plugin(Policies, { plan: { text: ' ' } }))
    expect(error.message).to.equal('invalid config:\n  - plan.text must not be empty (set plan.enabled: false to leave it out)')
    expect((await app.systemPrompt.assemble()).sections.filter((s) => s.name.endsWith(':policy'))).to.deep.equal([])
  })

  it('accepts a blank text when the section is disabled', async () => {
    await app.plugin(Policies, { plan: { enabled: false, text: '' }, team: { enabled: false } })
    expect(await promptText(app)).to.equal('')
  })

  it('disposing the plugin removes the sections', async () => {
    const fiber = app.plugin(Policies)
    await fiber
    await fiber.dispose()
    expect(await promptText(app)).to.equal('')
  })

  it('the README shows the exact built-in texts with their byte counts', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
    for (const text of [DEFAULT_PLAN_TEXT, DEFAULT_TEAM_TEXT]) {
      expect(readme).to.include('```markdown\n' + text + '\n```')
      expect(readme).to.include(`${Buffer.byteLength(text)} bytes`)
    }
  })
})
