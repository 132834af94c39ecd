import { expect } from 'chai'
import { Context } from 'cordis'
import fc from 'fast-check'
import { renderContextSnapshot, renderPrompt, SystemPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { bootApp, ownSections, pluginContext } from 'dsh-testing'
import { BARE, contextNames } from './helpers.js'

/** The oracle: ascending order, ties by code-unit name order (JS `<` on strings compares UTF-16 code units). */
const byOrderThenCodeUnits = (a: { name: string; order: number }, b: { name: string; order: number }) =>
  a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

describe('dsh-system-prompt: ordering', () => {
  let app: Context
  beforeEach(async () => { app = (await bootApp({ systemPrompt: BARE })).app })

  it('renders sections in ascending order, whatever the registration order', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    plugin.systemPrompt.section({ name: 'late', order: 300, text: 'C' })
    plugin.systemPrompt.section({ name: 'early', order: -5, text: 'A' })
    plugin.systemPrompt.section({ name: 'middle', order: 2.5, text: 'B' })
    expect(ownSections(await app.systemPrompt.assemble())).to.deep.equal(['early', 'middle', 'late'])
  })

  it('places the persona prefix (order 0) between negative and positive orders', async () => {
    app = (await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'PERSONA' } })).app
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    plugin.systemPrompt.section({ name: 'after', order: 1, text: 'after' })
    plugin.systemPrompt.section({ name: 'before', order: -1, text: 'before' })
    expect(renderPrompt(await app.systemPrompt.assemble())).to.equal('before\n\nPERSONA\n\nafter')
  })

  for (const [first, second] of [['B', 'a'], ['Z', 'a'], ['z', 'é'], ['a', 'aa'], ['😀', 'ｅ']] as const) {
    it(`breaks an order tie by code-unit name order: "${first}" before "${second}"`, async () => {
      const plugin = await pluginContext(app, 'p', ['systemPrompt'])
      plugin.systemPrompt.section({ name: second, order: 7, text: second })
      plugin.systemPrompt.section({ name: first, order: 7, text: first })
      expect(ownSections(await app.systemPrompt.assemble())).to.deep.equal([first, second])
    })
  }

  it('does not use locale order for ties (locale would put "é" before "z")', async () => {
    expect('é'.localeCompare('z')).to.be.lessThan(0)
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    for (const name of ['é', 'z', 'E', 'e']) plugin.systemPrompt.section({ name, order: 1, text: name })
    expect(ownSections(await app.systemPrompt.assemble())).to.deep.equal(['E', 'e', 'z', 'é'])
  })

  it('does not use registration order for ties: both registration orders give the same sections', async () => {
    const forward = await pluginContext(app, 'p', ['systemPrompt'])
    forward.systemPrompt.section({ name: 'b', order: 1, text: 'b' })
    forward.systemPrompt.section({ name: 'a', order: 1, text: 'a' })
    const { app: other, host: backward } = await bootApp({ systemPrompt: BARE, host: { name: 'p' } })
    backward.systemPrompt.section({ name: 'a', order: 1, text: 'a' })
    backward.systemPrompt.section({ name: 'b', order: 1, text: 'b' })
    expect(ownSections(await app.systemPrompt.assemble())).to.deep.equal(['a', 'b'])
    expect(ownSections(await other.systemPrompt.assemble())).to.deep.equal(['a', 'b'])
  })

  it('orders runtime contexts by ascending order, ties by code-unit name', async () => {
    const plugin = await pluginContext(app, 'p', ['systemPrompt'])
    plugin.systemPrompt.context({ name: 'late', order: 120, text: 'L' })
    plugin.systemPrompt.context({ name: 'a', order: 110, text: 'a' })
    plugin.systemPrompt.context({ name: 'B', order: 110, text: 'B' })
    plugin.systemPrompt.context({ name: 'first', order: -1, text: 'F' })
    expect(contextNames(await app.systemPrompt.assemble())).to.deep.equal(['first', 'B', 'a', 'late'])
  })

  it('does not depend on plugin activation order: opposite orders render byte for byte the same', async () => {
    const plugins = [
      { name: 'alpha', inject: ['systemPrompt'], apply(ctx: Context) {
        ctx.systemPrompt.section({ name: 'alpha', order: 100, text: 'Alpha.' })
        ctx.systemPrompt.context({ name: 'alpha:ctx', order: 5, text: 'alpha facts' })
        ctx.systemPrompt.tools(() => ({ schemas: [{ name: 'zeta' }, { name: 'Alpha' }] }))
      } },
      { name: 'beta', inject: ['systemPrompt'], apply(ctx: Context) {
        ctx.systemPrompt.section({ name: 'Beta', order: 100, text: 'Beta.' })
        ctx.systemPrompt.section({ name: 'beta:late', order: 1e6, text: 'Late.' })
        ctx.systemPrompt.context({ name: 'beta:ctx', order: 5, text: 'beta facts' })
        ctx.systemPrompt.tools(() => ({ schemas: [{ name: 'mid' }] }))
      } },
      { name: 'gamma', inject: ['systemPrompt'], apply(ctx: Context) {
        ctx.systemPrompt.section({ name: 'gamma', order: -100, text: 'Gamma.' })
        ctx.systemPrompt.section({ name: '_gamma', order: 100, text: 'Underscore.' })
        ctx.systemPrompt.context({ name: 'Gamma:ctx', order: 5, text: 'gamma facts' })
        ctx.systemPrompt.tools(() => ({ schemas: [{ name: 'a' }, { name: 'B' }] }))
      } },
    ]
    const outputs: string[] = []
    for (const sequence of [plugins, plugins.slice().reverse()]) {
      const deployment = new Context()
      await deployment.plugin(SystemPrompt, { persona: 'Persona.', personaSuffix: 'Suffix.' })
      for (const plugin of sequence) await deployment.plugin(plugin)
      const assembly = await deployment.systemPrompt.assemble()
      outputs.push(renderPrompt(assembly) + '\u0000' + renderContextSnapshot(assembly) + '\u0000' + JSON.stringify(assembly.tools))
    }
    expect(outputs[0]).to.equal(outputs[1])
    expect(outputs[0].split('\u0000')[0]).to.equal([
      'You are an AI agent powered by the DeepSeek Harness SDK.', 'Gamma.', 'Persona.', 'Beta.', 'Underscore.', 'Alpha.', 'Late.', 'Suffix.',
    ].join('\n\n'))
  })

  it('property: any sections, registered in any permutation by separate plugins, come out by order then code-unit name', async () => {
    const name = fc.string({ minLength: 1, maxLength: 3, unit: fc.constantFrom('a', 'b', 'B', 'Z', '_', '1', 'é', 'ｅ', '😀', ':') })
    const entries = fc.uniqueArray(fc.record({ name, order: fc.constantFrom(-1.5, 0, 1, 1, 2, 1e9) }), { selector: (e) => e.name, minLength: 1, maxLength: 8 })
    const registrations = entries.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length })))
    await fc.assert(fc.asyncProperty(registrations, async ([list, shuffled]) => {
      const { app: deployment } = await bootApp({ systemPrompt: BARE })
      // One plugin per section, activated in a shuffled order.
      for (const entry of shuffled) {
        await deployment.plugin({ name: `p-${entry.name}`, inject: ['systemPrompt'], apply(ctx: Context) {
          ctx.systemPrompt.section({ name: entry.name, order: entry.order, text: entry.name })
        } })
      }
      const assembly: PromptAssembly = await deployment.systemPrompt.assemble()
      expect(ownSections(assembly)).to.deep.equal(list.slice().sort(byOrderThenCodeUnits).map((e) => e.name))
    }), { numRuns: 40 })
  })
})
