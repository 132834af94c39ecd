import { expect } from 'chai'
import type { Context } from 'cordis'
import ToolRegistry from 'dsh-tools'
import { captureLogs, rejection } from 'dsh-testing'
import { boot, DEPLOYMENT, loadPresets, PLAN, SNAPSHOT, stepAgent, Tools, toolNames } from './helpers.js'

const REVIEWER = 'You review changes for {{model}}.'

describe('dsh-presets: mounting presets', () => {
  let app: Context
  let ctx: Context

  beforeEach(async () => {
    ({ app, host: ctx } = await boot())
  })

  describe('persona', () => {
    it('gives a preset\'s agents the preset persona while every other agent keeps the deployment\'s', async () => {
      await loadPresets(app, { presets: [{ id: 'review', persona: REVIEWER }, { id: 'plain' }] })
      expect((await stepAgent(ctx, 'r', 'review')).system).to.equal(`You review changes for test-model.\n\n${PLAN}`)
      expect((await stepAgent(ctx, 'p', 'plain')).system).to.equal(`${DEPLOYMENT}\n\n${PLAN}`)
      expect((await stepAgent(ctx, 'solo')).system).to.equal(`${DEPLOYMENT}\n\n${PLAN}`)
    })

    it('puts the preset persona at the persona placement and records it as the opening message', async () => {
      await loadPresets(app, { presets: [{ id: 'review', persona: REVIEWER }] })
      const { request, assembly } = await stepAgent(ctx, 'r', 'review')
      expect(assembly.sections.map((s) => `${s.name}@${s.order}`)).to.deep.equal(
        ['deployment:persona@0', 'plan:policy@500', 'deployment:persona-suffix@10200'])
      expect(request.messages[0]).to.deep.equal({ role: 'system', content: `You review changes for test-model.\n\n${PLAN}` })
    })

    it('renders a preset\'s persona suffix last, for that preset\'s agents only', async () => {
      await loadPresets(app, { presets: [{ id: 'review', personaSuffix: 'Answer in English.' }] })
      expect((await stepAgent(ctx, 'r', 'review')).system).to.equal(`${DEPLOYMENT}\n\n${PLAN}\n\nAnswer in English.`)
      expect((await stepAgent(ctx, 'solo')).system).to.equal(`${DEPLOYMENT}\n\n${PLAN}`)
    })

    it('lets a complete preset persona claim the whole prompt of its agents only', async () => {
      await loadPresets(app, { presets: [{ id: 'bare', persona: 'Only this, {{model}}.', complete: true }] })
      const bare = await stepAgent(ctx, 'b', 'bare')
      expect(bare.system).to.equal('Only this, test-model.')
      expect(bare.assembly.sections.map((s) => s.name)).to.deep.equal(['deployment:persona'])
      expect((await stepAgent(ctx, 'solo')).system).to.equal(`${DEPLOYMENT}\n\n${PLAN}`)
    })

    it('lets an agent shadow its preset\'s persona in its own scope', async () => {
      await loadPresets(app, { presets: [{ id: 'review', persona: REVIEWER }] })
      const agent = await ctx.agents.create({ id: 'r', model: 'm', preset: 'review' })
      agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'Agent persona.' })
      expect((await agent.stepDetailed()).system).to.equal(`Agent persona.\n\n${PLAN}`)
    })
  })

  describe('runtime context', () => {
    it('leaves the runtime context out for a preset with includeRuntimeContext: false, and only there', async () => {
      await loadPresets(app, { presets: [{ id: 'quiet', includeRuntimeContext: false }, { id: 'loud' }] })
      const quiet = await stepAgent(ctx, 'q', 'quiet')
      expect(quiet.snapshot).to.equal('')
      expect(quiet.request.messages.map((m) => m.role)).to.deep.equal(['system', 'user'])
      expect((await stepAgent(ctx, 'l', 'loud')).snapshot).to.equal(SNAPSHOT)
      expect((await stepAgent(ctx, 'solo')).snapshot).to.equal(SNAPSHOT)
    })
  })

  describe('tool restrictions', () => {
    it('shows a preset\'s agents only the allowed tools, and every other agent all of them', async () => {
      await loadPresets(app, { presets: [{ id: 'ro', tools: { allow: ['read'] } }] })
      expect(await toolNames(await ctx.agents.create({ id: 'r', model: 'm', preset: 'ro' }))).to.deep.equal(['read'])
      expect(await toolNames(await ctx.agents.create({ id: 'solo', model: 'm' }))).to.deep.equal(['bash', 'read', 'write'])
    })

    it('hides the denied tools from a preset\'s agents', async () => {
      await loadPresets(app, { presets: [{ id: 'safe', tools: { deny: ['bash', 'write'] } }] })
      expect(await toolNames(await ctx.agents.create({ id: 's', model: 'm', preset: 'safe' }))).to.deep.equal(['read'])
    })

    it('restricts nothing with empty allow and deny lists', async () => {
      await loadPresets(app, { presets: [{ id: 'open', tools: { allow: [], deny: [] } }] })
      expect(await toolNames(await ctx.agents.create({ id: 'o', model: 'm', preset: 'open' }))).to.deep.equal(['bash', 'read', 'write'])
      expect(app.presets.get('open')!.tools).to.equal(undefined)
    })

    it('covers tools registered after the presets loaded, and reports names no tool answers yet', async () => {
      const fiber = await loadPresets(app, { presets: [{ id: 'ro', tools: { allow: ['read', 'grep'], deny: ['exec'] } }] })
      expect(app.presets.unresolvedTools('ro')).to.deep.equal(['grep', 'exec'])
      await app.plugin(Tools, { names: ['grep', 'exec', 'glob'] })
      expect(app.presets.unresolvedTools('ro')).to.deep.equal([])
      // toolChange immediate: each request declares exactly the tools the agent sees (no inert tools kept).
      const agent = await ctx.agents.create({ id: 'r', model: 'm', preset: 'ro', toolChange: 'immediate' })
      expect(await toolNames(agent)).to.deep.equal(['grep', 'read'])
      await fiber.dispose()
      expect(await toolNames(agent)).to.deep.equal(['bash', 'exec', 'glob', 'grep', 'read', 'write'])
    })

    it('keeps a tool registered through the preset\'s own scope visible, even when the preset lists its name', async () => {
      const logs = captureLogs(app)
      await loadPresets(app, { presets: [{ id: 'ro', tools: { allow: ['read', 'special'] } }] })
      expect(app.presets.unresolvedTools('ro')).to.deep.equal(['special'])
      // A plugin loaded through the preset's context registers in the preset's scope.
      await ctx.agents.preset('ro')!.ctx.plugin({
        name: 'preset-tool',
        inject: ['tools'],
        apply(scoped: Context) {
          scoped.tools.register({ name: 'special', description: 'Only for this preset.', parameters: { type: 'object', properties: {} } })
        },
      })
      // The preset's own tool is not inherited, so the restriction neither needs nor takes its name.
      expect(app.presets.unresolvedTools('ro')).to.deep.equal(['special'])
      expect(await toolNames(await ctx.agents.create({ id: 'r', model: 'm', preset: 'ro' }))).to.deep.equal(['read', 'special'])
      expect(logs.filter((log) => log.type === 'warn' || log.type === 'error').map((log) => log.line)).to.deep.equal([])
    })

    it('does not need the tools service when no preset restricts tools', async () => {
      const { app: bare, host: creator } = await boot({ tools: false })
      await loadPresets(bare, { presets: [{ id: 'review', persona: REVIEWER }] })
      const agent = await creator.agents.create({ id: 'r', model: 'm', preset: 'review' })
      expect((await agent.stepDetailed()).system).to.equal(`You review changes for m.\n\n${PLAN}`)
    })

    it('loads without the tools service and applies a restriction once the service and its tools arrive', async () => {
      const { app: bare, host: creator } = await boot({ tools: false })
      await loadPresets(bare, { presets: [{ id: 'safe', persona: REVIEWER, tools: { deny: ['bash'] } }] })
      expect(bare.presets.ids()).to.deep.equal(['safe'])
      expect(bare.presets.unresolvedTools('safe')).to.deep.equal(['bash'])
      await bare.plugin(ToolRegistry)
      await bare.plugin(Tools, {})
      const agent = await creator.agents.create({ id: 's', model: 'm', preset: 'safe' })
      expect(await toolNames(agent)).to.deep.equal(['read', 'write'])
      expect(bare.presets.unresolvedTools('safe')).to.deep.equal([])
    })
  })

  describe('disposal', () => {
    it('falls back to the deployment text when the presets plugin is disposed while agents use it', async () => {
      const fiber = await loadPresets(app, {
        presets: [{ id: 'review', persona: REVIEWER, personaSuffix: 'Be brief.', includeRuntimeContext: false, tools: { allow: ['read'] } }],
      })
      // toolChange immediate: the request declares exactly the tools the agent sees once the restriction is gone.
      const agent = await ctx.agents.create({ id: 'r', model: 'test-model', preset: 'review', toolChange: 'immediate' })
      const before = await agent.stepDetailed('first')
      expect(before.system).to.equal(`You review changes for test-model.\n\n${PLAN}\n\nBe brief.`)
      expect(before.snapshot).to.equal('')
      await fiber.dispose()
      const after = await agent.stepDetailed('second')
      expect(after.system).to.equal(`${DEPLOYMENT}\n\n${PLAN}`)
      expect(after.snapshot).to.equal(SNAPSHOT)
      expect(after.request.tools?.map((tool) => tool.function.name)).to.deep.equal(['bash', 'read', 'write'])
      // Append policy: the new deployment text is added later; the earlier messages stay as they were.
      expect(after.request.messages.slice(0, before.request.messages.length)).to.deep.equal(before.request.messages)
      expect(after.request.messages.slice(before.request.messages.length)).to.deep.equal([
        { role: 'system', content: `${DEPLOYMENT}\n\n${PLAN}` },
        { role: 'user', content: 'second' },
        { role: 'user', content: SNAPSHOT },
      ])
      expect(app.agents.presetIds()).to.deep.equal([])
      expect((await rejection(ctx.agents.create({ id: 'late', model: 'm', preset: 'review' }))).message).to.equal('unknown preset "review"; known presets: (none)')
    })

    it('takes the presets service away with the plugin', async () => {
      const fiber = await loadPresets(app, { presets: [{ id: 'review' }] })
      expect(app.presets.ids()).to.deep.equal(['review'])
      await fiber.dispose()
      expect(app.presets).to.equal(undefined)
    })
  })
})
