import { expect } from 'chai'
import { Context } from 'cordis'
import type { ScopeHandle } from 'dsh-scope'
import { renderPrompt } from 'dsh-system-prompt'
import { bootApp, ownSections, pluginContext, promptText, scope } from 'dsh-testing'
import { BARE, contextNames, counted, sectionTexts, toolNames } from './helpers.js'

describe('dsh-system-prompt: scopes and shadowing', () => {
  let app: Context
  let host: Context
  let preset: ScopeHandle
  let agent: ScopeHandle
  let sibling: ScopeHandle

  // global ← preset ← agent, and a sibling agent under the same preset.
  beforeEach(async () => {
    ({ app, host } = await bootApp({ systemPrompt: BARE }))
    preset = scope(host, 'preset')
    agent = scope(host, 'agent', preset.key)
    sibling = scope(host, 'sibling', preset.key)
  })

  const role = (ctx: Context, text: string | (() => string)) => ctx.systemPrompt.section({ name: 'role', order: 10, text })

  it('the nearest layer wins a section name: agent over preset over global', async () => {
    role(app, 'global role')
    role(preset.ctx, 'preset role')
    role(agent.ctx, 'agent role')
    expect(await promptText(app, { scope: agent.key })).to.equal('agent role')
    expect(await promptText(app, { scope: preset.key })).to.equal('preset role')
    expect(await promptText(app)).to.equal('global role')
  })

  it('a shadowing section takes the shadowing entry\'s order too', async () => {
    app.systemPrompt.section({ name: 'a', order: 1, text: 'A' })
    app.systemPrompt.section({ name: 'b', order: 2, text: 'B' })
    agent.ctx.systemPrompt.section({ name: 'a', order: 3, text: 'agent A' })
    expect(sectionTexts(await app.systemPrompt.assemble({ scope: agent.key })).filter((t) => !t.startsWith('deployment:')))
      .to.deep.equal(['b=B', 'a=agent A'])
  })

  it('an agent sees the sections of every layer on its parent chain', async () => {
    app.systemPrompt.section({ name: 'g', order: 1, text: 'G' })
    preset.ctx.systemPrompt.section({ name: 'p', order: 2, text: 'P' })
    agent.ctx.systemPrompt.section({ name: 'a', order: 3, text: 'A' })
    expect(await promptText(app, { scope: agent.key })).to.equal('G\n\nP\n\nA')
  })

  it('nothing a scope registers is visible above it', async () => {
    preset.ctx.systemPrompt.section({ name: 'p', order: 2, text: 'P' })
    agent.ctx.systemPrompt.section({ name: 'a', order: 3, text: 'A' })
    expect(await promptText(app, { scope: preset.key })).to.equal('P')
    expect(await promptText(app)).to.equal('')
  })

  it('sibling scopes never see each other\'s sections, contexts, variables or tools', async () => {
    agent.ctx.systemPrompt.section({ name: 'agent-only', order: 1, text: 'A' })
    agent.ctx.systemPrompt.context({ name: 'agent-ctx', order: 1, text: 'A' })
    agent.ctx.systemPrompt.variable('agent_var', () => 'A')
    agent.ctx.systemPrompt.tools(() => ({ schemas: [{ name: 'agent_tool' }] }))
    const assembly = await app.systemPrompt.assemble({ scope: sibling.key })
    expect([ownSections(assembly), assembly.contexts, assembly.variables, assembly.tools]).to.deep.equal([[], [], {}, []])
    expect(ownSections(await app.systemPrompt.assemble({ scope: agent.key }))).to.deep.equal(['agent-only'])
  })

  it('the same name may be registered in two sibling scopes, each seeing its own', async () => {
    role(agent.ctx, 'agent role')
    role(sibling.ctx, 'sibling role')
    expect(await promptText(app, { scope: agent.key })).to.equal('agent role')
    expect(await promptText(app, { scope: sibling.key })).to.equal('sibling role')
  })

  it('an assembly without a scope sees the global layer only', async () => {
    app.systemPrompt.section({ name: 'g', order: 1, text: 'G' })
    preset.ctx.systemPrompt.section({ name: 'p', order: 1, text: 'P' })
    expect(await promptText(app)).to.equal('G')
  })

  it('the nearest layer wins a context name and a variable name', async () => {
    app.systemPrompt.context({ name: 'cwd', order: 1, text: 'global {{where}}' })
    agent.ctx.systemPrompt.context({ name: 'cwd', order: 1, text: 'agent {{where}}' })
    app.systemPrompt.variable('where', () => 'everywhere')
    preset.ctx.systemPrompt.variable('where', () => 'preset dir')
    const assembly = await app.systemPrompt.assemble({ scope: agent.key })
    expect(assembly.contexts.map((c) => c.text)).to.deep.equal(['agent {{where}}'])
    expect(assembly.variables).to.deep.equal({ where: 'preset dir' })
    expect((await app.systemPrompt.assemble({ scope: sibling.key })).contexts.map((c) => c.text)).to.deep.equal(['global {{where}}'])
  })

  it('tool providers of every layer on the chain all contribute', async () => {
    app.systemPrompt.tools(() => ({ schemas: [{ name: 'global_tool' }] }))
    preset.ctx.systemPrompt.tools(() => ({ schemas: [{ name: 'preset_tool' }] }))
    agent.ctx.systemPrompt.tools(() => ({ schemas: [{ name: 'agent_tool' }] }))
    expect(toolNames(await app.systemPrompt.assemble({ scope: agent.key }))).to.deep.equal(['agent_tool', 'global_tool', 'preset_tool'])
    expect(toolNames(await app.systemPrompt.assemble({ scope: sibling.key }))).to.deep.equal(['global_tool', 'preset_tool'])
  })

  it('a shadowed text provider is not evaluated', async () => {
    const global = counted('global role')
    const presetText = counted('preset role')
    role(app, global)
    role(preset.ctx, presetText)
    role(agent.ctx, 'agent role')
    expect(await promptText(app, { scope: agent.key })).to.equal('agent role')
    expect([global.calls, presetText.calls]).to.deep.equal([0, 0])
    expect(await promptText(app, { scope: preset.key })).to.equal('preset role')
    expect([global.calls, presetText.calls]).to.deep.equal([0, 1])
  })

  it('a shadowed variable provider is not evaluated', async () => {
    let calls = 0
    app.systemPrompt.variable('model', () => { calls++; return 'global-model' })
    agent.ctx.systemPrompt.variable('model', () => 'agent-model')
    expect((await app.systemPrompt.assemble({ scope: agent.key })).variables).to.deep.equal({ model: 'agent-model' })
    expect(calls).to.equal(0)
  })

  it('a disposed agent scope falls back to the preset\'s text, then a disposed preset to the global text', async () => {
    role(app, 'global role')
    role(preset.ctx, 'preset role')
    role(agent.ctx, 'agent role')
    expect(await promptText(app, { scope: agent.key })).to.equal('agent role')
    await agent.dispose()
    expect(await promptText(app, { scope: agent.key })).to.equal('preset role')
    await preset.dispose()
    expect(await promptText(app, { scope: agent.key })).to.equal('global role')
    expect(await promptText(app, { scope: sibling.key })).to.equal('global role')
  })

  it('disposing a shadowing registration alone brings the wider text back', async () => {
    role(app, 'global role')
    const dispose = role(agent.ctx, 'agent role')
    expect(await promptText(app, { scope: agent.key })).to.equal('agent role')
    dispose()
    expect(await promptText(app, { scope: agent.key })).to.equal('global role')
  })

  it('a change to global text applies from the next assembly, for every scope', async () => {
    // Assemble first so any memoised view for these chains exists before the change.
    const dispose = role(app, 'old')
    for (const key of [agent.key, sibling.key, preset.key, undefined]) expect(await promptText(app, { scope: key })).to.equal('old')
    dispose()
    role(app, 'new')
    for (const key of [agent.key, sibling.key, preset.key, undefined]) expect(await promptText(app, { scope: key })).to.equal('new')
    app.systemPrompt.section({ name: 'extra', order: 20, text: 'extra' })
    for (const key of [agent.key, sibling.key, preset.key, undefined]) expect(await promptText(app, { scope: key })).to.equal('new\n\nextra')
  })

  it('a change in a preset applies from the next assembly to the agents under it', async () => {
    expect(await promptText(app, { scope: agent.key })).to.equal('')
    const dispose = role(preset.ctx, 'preset role')
    expect(await promptText(app, { scope: agent.key })).to.equal('preset role')
    expect(await promptText(app, { scope: sibling.key })).to.equal('preset role')
    dispose()
    expect(await promptText(app, { scope: agent.key })).to.equal('')
  })

  it('a sub-agent scope sees its parent agent\'s layer, the preset\'s and the global one', async () => {
    const sub = scope(host, 'sub-agent', agent.key)
    app.systemPrompt.context({ name: 'g', order: 1, text: 'G' })
    preset.ctx.systemPrompt.context({ name: 'p', order: 2, text: 'P' })
    agent.ctx.systemPrompt.context({ name: 'a', order: 3, text: 'A' })
    sub.ctx.systemPrompt.context({ name: 's', order: 4, text: 'S' })
    expect(contextNames(await app.systemPrompt.assemble({ scope: sub.key }))).to.deep.equal(['g', 'p', 'a', 's'])
    expect(contextNames(await app.systemPrompt.assemble({ scope: agent.key }))).to.deep.equal(['g', 'p', 'a'])
  })

  it('a plugin loaded through a scope context registers into that scope', async () => {
    const inner = await pluginContext(agent.ctx, 'agent-plugin', ['systemPrompt'])
    inner.systemPrompt.section({ name: 'inner', order: 1, text: 'inner' })
    expect(await promptText(app, { scope: agent.key })).to.equal('inner')
    expect(await promptText(app, { scope: sibling.key })).to.equal('')
    await agent.dispose()
    expect(await promptText(app, { scope: agent.key })).to.equal('')
  })

  it('renders the scope view of the same deployment consistently for many agents', async () => {
    role(app, 'global role')
    const agents = Array.from({ length: 20 }, (_, i) => scope(host, `a${i}`, preset.key))
    agents.forEach((a, i) => { if (i % 2) role(a.ctx, `role ${i}`) })
    const rendered = await Promise.all(agents.map(async (a) => renderPrompt(await app.systemPrompt.assemble({ scope: a.key }))))
    expect(rendered).to.deep.equal(agents.map((_, i) => i % 2 ? `role ${i}` : 'global role'))
  })
})
