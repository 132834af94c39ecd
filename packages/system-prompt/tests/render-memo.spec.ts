import { expect } from 'chai'
import fc from 'fast-check'
import { Context } from 'cordis'
import { renderAssembly, renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { bootApp, rejection, SOAK } from 'dsh-testing'
import { BARE } from './helpers.js'

// An assembly from assemble() reuses the last rendering of its view for sections whose text and
// referenced values did not change (render.ts). Each case renders once to fill the memo, then changes
// one thing the prompt depends on and checks that the render follows it, compared with a render of a
// plain copy (which has no memo).
describe('dsh-system-prompt: the render memo never returns stale text', () => {
  let app: Context
  let plugin: Context
  let value: string
  let provided: string
  beforeEach(async () => {
    ({ app, host: plugin } = await bootApp({ systemPrompt: BARE, host: { name: 'memo-plugin' } }))
    value = 'one'
    provided = 'Provided {{v}}.'
    plugin.systemPrompt.section({ name: 'a', order: 10, text: 'Static {{v}} text.' })
    plugin.systemPrompt.section({ name: 'b', order: 20, text: () => provided })
    plugin.systemPrompt.section({ name: 'c', order: 30, text: 'No references.' })
    plugin.systemPrompt.variable('v', () => value)
  })

  const plain = (assembly: PromptAssembly) => renderPrompt({ sections: assembly.sections.map((s) => ({ ...s })), variables: { ...assembly.variables } })
  const rendered = async () => {
    const assembly = await app.systemPrompt.assemble()
    const system = renderPrompt(assembly)
    expect(system).to.equal(plain(assembly))
    expect(renderAssembly(assembly).system).to.equal(system)
    return system
  }

  it('renders an assembly a listener emptied, first or after a full one', async () => {
    expect(await rendered()).to.include('Static one text.')
    let empty = true
    plugin.on('system-prompt/assemble', (assembly, _c, next) => next(empty ? { ...assembly, sections: [] } : assembly))
    expect(await rendered()).to.equal('')
    expect(await rendered()).to.equal('')
    empty = false
    expect(await rendered()).to.include('Static one text.')
    const fresh = await bootApp({ systemPrompt: BARE, host: { name: 'empty-first' } })
    fresh.host.on('system-prompt/assemble', (assembly, _c, next) => next({ ...assembly, sections: [] }))
    expect(renderAssembly(await fresh.app.systemPrompt.assemble()).system).to.equal('')
  })

  it('reuses nothing stale when a variable\'s value changes', async () => {
    expect(await rendered()).to.include('Static one text.')
    value = 'two'
    expect(await rendered()).to.include('Static two text.\n\nProvided two.')
    expect(await rendered()).to.include('Static two text.\n\nProvided two.')
  })

  it('follows a text provider that returns a new string', async () => {
    await rendered()
    provided = 'Changed {{v}}.'
    expect(await rendered()).to.include('Changed one.')
    provided = 'Provided {{v}}.'
    expect(await rendered()).to.include('Provided one.')
  })

  it('follows a listener that rewrites, moves, adds or removes a section, and returns to the plain prompt after it is gone', async () => {
    const before = await rendered()
    let mode = 'rewrite'
    const dispose = plugin.on('system-prompt/assemble', async (assembly, _context, next) => {
      const result = await next()
      const named = (name: string) => result.sections.find((s) => s.name === name)!
      if (mode === 'rewrite') named('a').text = 'Rewritten {{v}}.'
      if (mode === 'band') named('c').band = 'first'
      if (mode === 'raw') named('a').interpolate = false
      if (mode === 'add') result.sections.splice(result.sections.indexOf(named('b')), 0, { name: 'x', text: 'Inserted.' })
      if (mode === 'remove') result.sections.splice(result.sections.indexOf(named('b')), 1)
      return result
    })
    expect(await rendered()).to.match(/^Rewritten one\./)
    mode = 'band'
    expect(await rendered()).to.match(/^No references\.\n\nStatic one text\./)
    mode = 'raw'
    expect(await rendered()).to.match(/^Static \{\{v\}\} text\./)
    mode = 'add'
    expect(await rendered()).to.include('Static one text.\n\nInserted.\n\nProvided one.')
    mode = 'remove'
    expect(await rendered()).to.equal('Static one text.\n\nNo references.')
    dispose()
    expect(await rendered()).to.equal(before)
  })

  it('follows changes the caller makes to the returned assembly before rendering it', async () => {
    await rendered()
    const assembly = await app.systemPrompt.assemble()
    assembly.variables.v = 'caller'
    expect(renderPrompt(assembly)).to.include('Static caller text.')
    assembly.sections.find((s) => s.name === 'c')!.text = 'Caller text.'
    expect(renderPrompt(assembly)).to.match(/Caller text\.$/)
    delete assembly.variables.v
    expect(() => renderPrompt(assembly)).to.throw(/unknown variable|v/)
  })

  it('hands out parts that point at the entries of the assembly rendered, on the reused path too', async () => {
    await rendered()
    const assembly = await app.systemPrompt.assemble()
    const { sections } = renderAssembly(assembly)
    const shown = assembly.sections.filter((s) => s.text)
    expect(sections.map((p) => p.name)).to.deep.equal(['a', 'b', 'c'])
    expect(sections.every((p, i) => p.entry === shown[i])).to.equal(true)
  })

  it('a variable that loses its value fails the render even when the text was rendered before', async () => {
    await rendered()
    plugin.systemPrompt.variable('w', () => undefined)
    provided = 'Now {{w}}.'
    expect(String(await rejection(rendered()))).to.include('{{w}}')
  })

  describe('through the memo, against renders without it (soak)', function () {
    if (SOAK) this.timeout(0)
    it('renders every sequence of listener edits as an assembly without a memo renders (property)', async () => {
      // Each step edits some sections of the assembly in place (text, band, verbatim, empty), may drop or
      // insert one, and may change the variable's value; the memo path must give exactly the memo-free render.
      const edit = fc.record({
        at: fc.nat(5),
        text: fc.option(fc.constantFrom('', 'New {{v}}.', 'Plain.', 'Static {{v}} text.'), { nil: undefined }),
        band: fc.option(fc.constantFrom<'first' | 'last' | 'none'>('first', 'last', 'none'), { nil: undefined }),
        raw: fc.option(fc.boolean(), { nil: undefined }),
      })
      const step = fc.record({
        edits: fc.array(edit, { maxLength: 3 }),
        drop: fc.option(fc.nat(5), { nil: undefined }),
        insert: fc.option(fc.nat(5), { nil: undefined }),
        value: fc.constantFrom('one', 'two'),
      })
      let current: typeof step extends fc.Arbitrary<infer S> ? S | undefined : never
      plugin.systemPrompt.section({ name: 'd', order: 40, text: 'Fourth {{v}}.' })
      plugin.systemPrompt.section({ name: 'e', order: 50, text: '' })
      plugin.on('system-prompt/assemble', async (_assembly, _context, next) => {
        const result = await next()
        if (!current) return result
        for (const { at, text, band, raw } of current.edits) {
          const section = result.sections[at % result.sections.length]
          if (text !== undefined) section.text = text
          if (band !== undefined) section.band = band === 'none' ? undefined : band
          if (raw !== undefined) section.interpolate = !raw
        }
        if (current.drop !== undefined) result.sections.splice(current.drop % result.sections.length, 1)
        if (current.insert !== undefined) result.sections.splice(current.insert % (result.sections.length + 1), 0, { name: 'inserted', text: 'Inserted {{v}}.' })
        return result
      })
      const plainParts = (assembly: PromptAssembly) => renderAssembly({ ...assembly, sections: assembly.sections.map((s) => ({ ...s })) })
      await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        for (const next of [undefined, ...steps]) {
          current = next
          value = next?.value ?? 'one'
          const assembly = await app.systemPrompt.assemble()
          const expected = plainParts(assembly)
          const actual = renderAssembly(assembly)
          expect(actual.system).to.equal(expected.system)
          expect(actual.sections.map((p) => [p.name, p.text, p.entry])).to.deep.equal(expected.sections.map((p) => [p.name, p.text, assembly.sections.find((s) => s.name === p.name)]))
          expect(renderPrompt(assembly)).to.equal(expected.system)
        }
      }), { numRuns: SOAK ? 20_000 : 300 })
    })
  })
})
