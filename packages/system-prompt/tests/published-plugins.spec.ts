import { expect } from 'chai'
import { Context } from 'cordis'
import SystemPrompt, { renderAssembly, type Config } from 'dsh-system-prompt'
import { bootApp, promptText, rejection, scope } from 'dsh-testing'
import { BARE } from './helpers.js'
import * as afterSuffix from './fixtures/published/after-suffix.js'
import * as auditListener from './fixtures/published/audit-listener.js'
import * as badOrderListener from './fixtures/published/bad-order-listener.js'
import * as betaTools from './fixtures/published/beta-tools.js'
import * as placementNames from './fixtures/published/placement-names.js'
import * as personaPrefixShadow from './fixtures/published/persona-prefix-shadow.js'
import * as nullContexts from './fixtures/published/null-contexts.js'
import * as teamNotes from './fixtures/published/team-notes.js'
import * as teamNotesHanded from './fixtures/published/team-notes-handed.js'

// Plugins written for the published dsh-system-prompt must run unchanged (R-WF, R-ORDER); each is a
// plugin module of its own under fixtures/published, loaded like any plugin.
describe('dsh-system-prompt: plugins written for the published package run unchanged', () => {
  let app: Context
  beforeEach(async () => { ({ app } = await bootApp({ systemPrompt: BARE })) })

  it('keeps an order-less section and context a listener appends where it put them', async () => {
    await app.plugin(auditListener)
    app.systemPrompt.context({ name: 'clock', order: 1, text: 'Clock.' })
    const assembly = await app.systemPrompt.assemble()
    expect(assembly.sections.at(-1)).to.deep.equal({ name: 'audit', text: 'Every action is audited.' })
    const rendered = renderAssembly(assembly)
    expect(rendered.sections.at(-1)?.name).to.equal('audit')
    expect(rendered.snapshot.endsWith('Clock.\n\nAudit window: open.')).to.equal(true)
  })

  for (const literal of [false, true]) {
    it(`lets a scope replace the persona under the 0.2 name of its section (${literal ? 'the literal "deployment:persona-prefix"' : 'PERSONA_PREFIX_SECTION'}), as a 0.2 agent preset does`, async () => {
      ({ app } = await bootApp({ systemPrompt: { ...BARE, persona: 'Deployment persona.' } }))
      const preset = scope(app, 'preset')
      await preset.ctx.plugin(personaPrefixShadow, { text: 'Preset persona.', literal })
      expect(await promptText(app, { scope: preset.key })).to.equal('Preset persona.')
      expect(await promptText(app)).to.equal('Deployment persona.')
    })
  }

  it('refuses a second global persona under the 0.2 name: the service owns the section, as in 0.2', async () => {
    const error = await rejection(Promise.resolve().then(() => app.systemPrompt.section({ name: 'deployment:persona-prefix', order: 0, text: 'x' })))
    expect((error as Error & { code: string }).code).to.equal('PROMPT_ALREADY_REGISTERED')
  })

  it('places sections by the published constant names and falls back with ?? for an unknown one', async () => {
    await app.plugin(placementNames)
    const assembly = await app.systemPrompt.assemble()
    expect(assembly.sections.filter((s) => s.name.endsWith('-notes')).map((s) => [s.name, s.order])).to.deep.equal([
      ['persona-notes', 1], ['plan-notes', 500], ['new-tool-notes', 1005], ['read-notes', 1100],
    ])
  })

  it('lets a listener rewrite a tool description in place; the registry and the next assembly keep theirs', async () => {
    app.systemPrompt.tools(() => ({ schemas: [{ name: 'read', description: 'Read a file.', parameters: { type: 'object' } }] }))
    await app.plugin(betaTools)
    // Once per assembly, never accumulated: each assembly starts from the registered schema.
    expect((await app.systemPrompt.assemble()).tools[0].description).to.equal('Read a file. (beta)')
    expect((await app.systemPrompt.assemble()).tools[0].description).to.equal('Read a file. (beta)')
  })

  it('still refuses a listener addition whose order is not a finite number, naming the listener\'s plugin', async () => {
    await app.plugin(badOrderListener)
    expect((await rejection(app.systemPrompt.assemble())).message).to.equal(
      'system-prompt/assemble listener of plugin "bad-order-listener" returned a malformed assembly: sections[2] ("broken") order is not a finite number')
  })

  it('accepts a returned assembly of the published shape { sections, tools, variables }, keeping the contexts it was handed', async () => {
    await app.plugin(teamNotes)
    app.systemPrompt.context({ name: 'clock', order: 1, text: 'Clock.' })
    const assembly = await app.systemPrompt.assemble()
    expect(assembly.sections.at(-1)).to.deep.equal({ name: 'team-notes', text: 'Ask before pushing to main.' })
    expect(assembly.contexts.map((c) => c.name)).to.deep.equal(['clock'])
    expect(renderAssembly(assembly).snapshot.endsWith('\n\nClock.')).to.equal(true)
  })

  it('accepts an assembly of the published shape handed on through next(), keeping the contexts the listener received', async () => {
    await app.plugin(teamNotesHanded)
    app.systemPrompt.section({ name: 'drafts', order: 5, text: 'Drafts.' })
    app.systemPrompt.context({ name: 'clock', order: 1, text: 'Clock.' })
    const assembly = await app.systemPrompt.assemble()
    expect(assembly.sections.map((s) => s.name)).to.not.include('drafts')
    expect(assembly.contexts.map((c) => c.name)).to.deep.equal(['clock'])
  })

  it('still refuses an assembly whose contexts is present but not an array, naming the listener\'s plugin', async () => {
    await app.plugin(nullContexts)
    const error = await rejection(app.systemPrompt.assemble())
    expect(error.message).to.equal('system-prompt/assemble listener of plugin "null-contexts" returned a malformed assembly: contexts is not an array')
    expect((error as { code?: string }).code).to.equal('PROMPT_MALFORMED_ASSEMBLY')
  })

  it('gives DEPLOYMENT_PERSONA_SUFFIX the published 10200, so +1 and +2 stay two orders, and the suffix still renders last', async () => {
    const booted = await bootApp({ systemPrompt: { ...BARE, personaSuffix: 'Suffix.' } })
    await booted.app.plugin(afterSuffix)
    const assembly = await booted.app.systemPrompt.assemble()
    expect(assembly.sections.filter((s) => s.name.startsWith('closing-')).map((s) => [s.name, s.order])).to.deep.equal([['closing-a', 10201], ['closing-b', 10202]])
    expect(renderAssembly(assembly).system.endsWith('First.\n\nSecond.\n\nSuffix.')).to.equal(true)
  })

  it('accepts a partial Config, and direct construction applies the defaults', () => {
    const config: Config = { persona: 'x' }
    const service = new SystemPrompt(new Context(), {})
    expect(service.config).to.deep.equal({ includeHarnessIdentity: true, identity: 'You are an AI agent powered by the DeepSeek Harness SDK.', persona: '', personaSuffix: '', includeRuntimeContext: true })
    expect(new SystemPrompt(new Context(), config).config.persona).to.equal('x')
  })
})
