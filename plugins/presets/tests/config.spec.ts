import { expect } from 'chai'
import type { Context } from 'cordis'
import Presets, { Config, PresetConfigError, resolvePresets, type PresetConfig } from 'dsh-presets'
import { rejection, thrown } from 'dsh-testing'
import { boot, DEPLOYMENT, loadPresets, PLAN, stepAgent } from './helpers.js'

const RULE = '(variable names match /^[a-z][a-z0-9_]*$/)'

interface SchemaNode {
  type: string
  dict?: Record<string, SchemaNode>
  inner?: SchemaNode
  meta: { description?: unknown }
}

/** Every object key of `schema`, with its path, walking into arrays. */
function keysOf(schema: SchemaNode, path = '$'): Array<[string, SchemaNode]> {
  if (schema.type === 'array' && schema.inner) return keysOf(schema.inner, `${path}[]`)
  if (schema.type !== 'object' || !schema.dict) return []
  return Object.entries(schema.dict).flatMap(([key, child]) => [[`${path}.${key}`, child] as [string, SchemaNode], ...keysOf(child, `${path}.${key}`)])
}

/** One-preset configs and the exact error each gives. */
const INVALID: Array<[string, Partial<Config>, string]> = [
  ['a malformed group in a persona',
    { presets: [{ id: 'rev', persona: 'Hi {{ model }}' }] },
    `preset "rev" persona is not a valid prompt template: malformed prompt variable reference "{{ model }}" at line 1, column 4 ${RULE}`],
  ['several problems in a persona, every one listed',
    { presets: [{ id: 'rev', persona: '{{Model}}\n{{{cwd}}} {{#raw}}' }] },
    `preset "rev" persona is not a valid prompt template: malformed prompt variable reference "{{Model}}" at line 1, column 1 ${RULE}; `
    + 'malformed prompt variable reference at "{{{cwd}}} {{#raw…" at line 2, column 1 (references are complete simple {{name}} groups); '
    + 'unterminated {{#raw}} block at line 2, column 11 (close it with {{/raw}})'],
  ['a malformed group in a persona suffix',
    { presets: [{ id: 'rev', personaSuffix: 'Bye {{}}' }] },
    `preset "rev" personaSuffix is not a valid prompt template: malformed prompt variable reference "{{}}" at line 1, column 5 ${RULE}`],
  ['a malformed configured template',
    { templates: { triage: 'Sort {{ issues }}' } },
    `template "triage" is not a valid prompt template: malformed prompt variable reference "{{ issues }}" at line 1, column 6 ${RULE}`],
  ['an empty configured template',
    { templates: { triage: '' } },
    'template "triage" is empty (a persona template needs text)'],
  ['an empty template id',
    { templates: { '': 'text' } },
    'templates has an empty template id (ids are non-empty strings)'],
  ['an unknown default',
    { default: 'boss' },
    'default names unknown persona template "boss"; known templates: coder, planner, reviewer'],
  ['a preset id used twice',
    { presets: [{ id: 'rev' }, { id: 'rev' }] },
    'presets lists preset "rev" more than once'],
  ['an empty preset id',
    { presets: [{ id: 'ok' }, { id: '' }] },
    'presets[1].id must be a non-empty string, received ""'],
  ['complete without any persona',
    { presets: [{ id: 'rev', complete: true }] },
    'preset "rev" sets complete but has no persona to claim the prompt with (set persona or template, or a default template)'],
  ['complete with a persona suffix',
    { presets: [{ id: 'rev', persona: 'P', complete: true, personaSuffix: 'S' }] },
    'preset "rev" sets both complete and personaSuffix; a complete persona is the whole prompt, so the suffix would never render'],
  ['an invalid tool name',
    { presets: [{ id: 'rev', tools: { deny: ['rm -rf'] } }] },
    'preset "rev" tools.deny lists invalid tool name "rm -rf" (must match /^[a-zA-Z0-9_-]{1,64}$/)'],
  ['a tool listed twice',
    { presets: [{ id: 'rev', tools: { allow: ['read', 'read'] } }] },
    'preset "rev" tools.allow lists "read" more than once'],
  ['tools both allowed and denied',
    { presets: [{ id: 'rev', tools: { allow: ['read', 'bash', 'write'], deny: ['write', 'bash'] } }] },
    'preset "rev" tools lists "bash", "write" in both allow and deny'],
]

describe('dsh-presets: config', () => {
  it('describes every key, nested ones included, so config UIs can show it', () => {
    const keys = keysOf(Config as unknown as SchemaNode)
    expect(keys.map(([path]) => path)).to.deep.equal([
      '$.templates', '$.default', '$.presets', '$.presets[].id', '$.presets[].persona', '$.presets[].template',
      '$.presets[].personaSuffix', '$.presets[].complete', '$.presets[].includeRuntimeContext', '$.presets[].tools',
      '$.presets[].tools.allow', '$.presets[].tools.deny',
    ])
    for (const [path, schema] of keys) expect(schema.meta.description, path).to.be.a('string').and.not.equal('')
  })

  it('defaults to no configured template, no default and no preset', () => {
    expect(Config({})).to.deep.equal({ templates: {}, presets: [] })
  })

  it('is the plugin\'s Config', () => {
    expect(Presets.Config).to.equal(Config)
  })

  describe('refused configs', () => {
    for (const [what, config, message] of INVALID) {
      it(`refuses ${what}, naming the culprit`, () => {
        expect(() => resolvePresets(config)).to.throw(PresetConfigError, message)
        expect(thrown(() => resolvePresets(config)).message).to.equal(message)
      })
    }

    it('refuses a mistyped value with schemastery\'s message, naming the path', () => {
      expect(() => resolvePresets({ presets: [{ id: 'rev', complete: 'yes' }] } as unknown as Partial<Config>))
        .to.throw(TypeError, '$.presets[0].complete expected boolean but got yes')
    })

    it('refuses a preset without an id', () => {
      expect(() => resolvePresets({ presets: [{} as PresetConfig] })).to.throw(TypeError, '$.presets[0].id missing required value')
    })

    it('accepts unknown variable names in a persona at load; rendering then fails naming the section', async () => {
      const { app, host: ctx } = await boot()
      await loadPresets(app, { presets: [{ id: 'rev', persona: 'Today is {{date}}.' }] })
      const agent = await ctx.agents.create({ id: 'r', model: 'm', preset: 'rev' })
      const error = await rejection(agent.step())
      expect(error.message).to.equal('unknown prompt variable "{{date}}" in section "deployment:persona"; registered variables: cwd, model, provider')
      expect(agent.conversation).to.deep.equal([])
    })
  })

  describe('a refused load', () => {
    let app: Context
    let host: Context

    beforeEach(async () => {
      ({ app, host } = await boot())
    })

    it('rejects with the error naming the preset and leaves nothing behind', async () => {
      const error = await rejection(app.plugin(Presets, { presets: [{ id: 'ok', persona: 'Fine.' }, { id: 'rev', persona: '{{ x }}' }] }))
      expect(error.message).to.equal(`preset "rev" persona is not a valid prompt template: malformed prompt variable reference "{{ x }}" at line 1, column 1 ${RULE}`)
      expect(app.agents.presetIds()).to.deep.equal([])
      expect(app.presets).to.equal(undefined)
      expect((await stepAgent(host, 'solo')).system).to.equal(`${DEPLOYMENT}\n\n${PLAN}`)
    })

    it('rejects a preset id another plugin already defined, and takes back the presets it had mounted', async () => {
      host.agents.definePreset('taken')
      const error = await rejection(app.plugin(Presets, { presets: [{ id: 'first', persona: 'First.' }, { id: 'taken' }] }))
      expect(error.message).to.equal('preset "taken" is already defined')
      expect(app.agents.presetIds()).to.deep.equal(['taken'])
      expect(app.presets).to.equal(undefined)
    })

    it('rejects a mistyped config through Cordis and mounts nothing', async () => {
      const error = await rejection(app.plugin(Presets, { presets: [{ id: 'rev', includeRuntimeContext: 'no' }] } as unknown as Partial<Config>))
      expect(error.message).to.contain('expected boolean but got no (at presets.0.includeRuntimeContext)')
      expect(app.agents.presetIds()).to.deep.equal([])
    })
  })
})
