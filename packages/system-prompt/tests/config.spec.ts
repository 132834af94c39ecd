import { expect } from 'chai'
import { Context } from 'cordis'
import { Config, DEFAULT_IDENTITY, SystemPrompt } from 'dsh-system-prompt'
import { PERSONA_PIECES, promptText, recordChanges, rejection, tick } from 'dsh-testing'
import { sectionNames } from './helpers.js'

const IDENTITY = 'You are an AI agent powered by the DeepSeek Harness SDK.'
const REST = '<unlisted-tools>'
const MISSING_REST = 'toolOrder must contain the "<unlisted-tools>" rest entry (where unlisted tools are inserted)'

/** Cordis's wrapper around a config validation message. */
const invalidConfig = (message: string) => `invalid config:\n  - ${message}`

describe('dsh-system-prompt: config', () => {
  it('has the documented defaults (R-SP-7) and no toolOrder', () => {
    expect(Config({})).to.deep.equal({
      includeHarnessIdentity: true,
      identity: IDENTITY,
      persona: '',
      personaSuffix: '',
      includeRuntimeContext: true,
    })
    expect(DEFAULT_IDENTITY).to.equal(IDENTITY)
  })

  it('describes every key, so config UIs can show it', () => {
    const dict = (Config as unknown as { dict: Record<string, { meta: { description?: unknown } }> }).dict
    expect(Object.keys(dict).sort()).to.deep.equal(
      ['identity', 'includeHarnessIdentity', 'includeRuntimeContext', 'persona', 'personaSuffix', 'toolOrder'])
    for (const [key, schema] of Object.entries(dict)) {
      expect(schema.meta.description, key).to.be.a('string').and.not.equal('')
    }
  })

  describe('identity', () => {
    it('registers the identity line as harness:identity at order -1000 by default', async () => {
      const app = new Context()
      await app.plugin(SystemPrompt, {})
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.sections[0]).to.include({ name: 'harness:identity', order: -1000, text: IDENTITY })
      expect(await promptText(app)).to.equal(IDENTITY)
    })

    it('uses the configured identity text', async () => {
      const app = new Context()
      await app.plugin(SystemPrompt, { identity: 'You are Ada, a coding assistant.' })
      expect(await promptText(app)).to.equal('You are Ada, a coding assistant.')
    })

    it('includeHarnessIdentity: false leaves the identity line out', async () => {
      const app = new Context()
      await app.plugin(SystemPrompt, { includeHarnessIdentity: false, identity: 'unused' })
      const assembly = await app.systemPrompt.assemble()
      expect(sectionNames(assembly)).to.deep.equal(PERSONA_PIECES)
      expect(await promptText(app)).to.equal('')
    })
  })

  describe('persona', () => {
    it('registers the persona as deployment:persona at order 0 and the suffix as deployment:persona-suffix', async () => {
      const app = new Context()
      await app.plugin(SystemPrompt, { persona: 'You speak French.', personaSuffix: 'Be brief.' })
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.sections.map((s) => [s.name, s.text])).to.deep.equal([
        ['harness:identity', IDENTITY], ['deployment:persona', 'You speak French.'], ['deployment:persona-suffix', 'Be brief.'],
      ])
      expect(assembly.sections[1].order).to.equal(0)
      expect(await promptText(app)).to.equal(`${IDENTITY}\n\nYou speak French.\n\nBe brief.`)
    })
  })

  describe('load-time errors', () => {
    const cases: Array<[string, unknown, string]> = [
      ['a name listed twice', { toolOrder: ['read', REST, 'read'] }, invalidConfig('toolOrder lists "read" more than once')],
      ['a repeated rest entry', { toolOrder: [REST, 'read', REST] }, invalidConfig('toolOrder lists "<unlisted-tools>" more than once')],
      ['a missing rest entry', { toolOrder: ['read', 'write'] }, invalidConfig(MISSING_REST)],
      ['an empty list', { toolOrder: [] }, invalidConfig(MISSING_REST)],
      ['a string instead of a list', { toolOrder: 'read,write' }, invalidConfig('$.toolOrder expected array but got read,write (at toolOrder)')],
      ['a non-string entry', { toolOrder: [1, REST] }, invalidConfig('$.toolOrder[0] expected string but got 1 (at toolOrder.0)')],
      ['a mistyped switch', { includeRuntimeContext: 'no' }, invalidConfig('$.includeRuntimeContext expected boolean but got no (at includeRuntimeContext)')],
    ]
    for (const [what, config, message] of cases) {
      it(`rejects the load for ${what} with the exact message, and provides nothing`, async () => {
        const app = new Context()
        const events = recordChanges(app)
        let applied = false
        const consumer = app.plugin({ name: 'consumer', inject: ['systemPrompt'], apply() { applied = true } })
        const fiber = app.plugin(SystemPrompt, config as never)
        const error = await rejection(fiber)
        expect(error.message).to.equal(message)
        // The failed service stays PENDING (0), is never constructed, and nothing waiting for it runs.
        expect(fiber.state).to.equal(0)
        expect((app as unknown as Record<string, unknown>).systemPrompt).to.equal(undefined)
        await tick(5)
        expect(applied).to.equal(false)
        expect(consumer.state).to.equal(0)
        expect(events).to.deep.equal([])
        // A valid deployment loaded afterwards starts clean: only its own default registrations exist.
        await app.plugin(SystemPrompt, {})
        expect(app.systemPrompt.stats()).to.deep.include({ entries: 3, scopeLayers: 0, listeners: 0 })
        expect(applied).to.equal(true)
      })
    }

    it('accepts the rest entry alone', async () => {
      const app = new Context()
      await app.plugin(SystemPrompt, { toolOrder: [REST] })
      expect(app.systemPrompt.config.toolOrder).to.deep.equal([REST])
    })
  })
})
