import { expect } from 'chai'
import { Context } from 'cordis'
import fc from 'fast-check'
import { PERSONA_ORDER, PERSONA_SECTION, renderPrompt, SystemPrompt } from 'dsh-system-prompt'
import { bootApp, pluginContext, promptText, scope, thrown } from 'dsh-testing'
import { sectionNames } from './helpers.js'

const sections = (...texts: string[]) => texts.map((text, i) => ({ name: `s${i}`, order: i, text }))

describe('dsh-system-prompt: renderPrompt', () => {
  it('exports the persona constants', () => {
    expect([PERSONA_SECTION, PERSONA_ORDER]).to.deep.equal(['deployment:persona', 0])
  })

  it('joins sections with exactly one blank line', () => {
    expect(renderPrompt({ sections: sections('one', 'two', 'three'), variables: {} })).to.equal('one\n\ntwo\n\nthree')
  })

  it('does not trim: surrounding whitespace and newlines of a section are kept', () => {
    expect(renderPrompt({ sections: sections(' one \n', '\ntwo '), variables: {} })).to.equal(' one \n\n\n\ntwo ')
  })

  it('keeps a whitespace-only section (it is not empty)', () => {
    expect(renderPrompt({ sections: sections('a', ' ', 'b'), variables: {} })).to.equal('a\n\n \n\nb')
  })

  it('drops empty sections', () => {
    expect(renderPrompt({ sections: sections('', 'a', '', '', 'b', ''), variables: {} })).to.equal('a\n\nb')
  })

  it('drops sections that are empty after interpolation', () => {
    expect(renderPrompt({ sections: sections('{{empty}}', 'a', '{{empty}}{{empty}}'), variables: { empty: '' } })).to.equal('a')
  })

  it('renders an assembly without text as the empty string', () => {
    expect(renderPrompt({ sections: [], variables: {} })).to.equal('')
    expect(renderPrompt({ sections: sections('', ''), variables: {} })).to.equal('')
  })

  it('renders sections in the order given (the assembly order is authoritative)', () => {
    expect(renderPrompt({ sections: [{ name: 'b', order: 2, text: 'B' }, { name: 'a', order: 1, text: 'A' }], variables: {} })).to.equal('B\n\nA')
  })

  it('property: text without braces renders as the non-empty texts joined by \\n\\n', () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '\n', 'é', '😀') })
    fc.assert(fc.property(fc.array(text), (texts) => {
      expect(renderPrompt({ sections: sections(...texts), variables: {} })).to.equal(texts.filter((t) => t !== '').join('\n\n'))
    }))
  })

  describe('persona suffix', () => {
    let app: Context
    let plugin: Context
    beforeEach(async () => {
      ({ app, host: plugin } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Persona.', personaSuffix: 'Suffix.' }, host: { name: 'p' } }))
    })

    it('renders last even after a section with a huge order', async () => {
      plugin.systemPrompt.section({ name: 'huge', order: Number.MAX_VALUE, text: 'Huge.' })
      plugin.systemPrompt.section({ name: 'zzz', order: Number.MAX_SAFE_INTEGER, text: 'Max safe.' })
      expect(await promptText(app)).to.equal('Persona.\n\nMax safe.\n\nHuge.\n\nSuffix.')
      expect(sectionNames(await app.systemPrompt.assemble()).at(-1)).to.equal('deployment:persona-suffix')
    })

    it('renders last even when a listener appends sections after it', async () => {
      plugin.on('system-prompt/assemble', async (assembly, _context, next) => {
        assembly.sections.push({ name: 'appended', order: -5, text: 'Appended.' })
        return next()
      })
      const assembly = await app.systemPrompt.assemble()
      expect(sectionNames(assembly).at(-1)).to.equal('appended')
      expect(renderPrompt(assembly)).to.equal('Persona.\n\nAppended.\n\nSuffix.')
    })

    it('renders last even when a listener moves it to the front', async () => {
      plugin.on('system-prompt/assemble', (assembly) => ({ ...assembly, sections: assembly.sections.slice().reverse() }))
      expect(await promptText(app)).to.equal('Persona.\n\nSuffix.')
    })

    it('is a strict template', async () => {
      const { app: strict, host: p } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, personaSuffix: 'Answer in {{lang}}.' }, host: { name: 'p' } })
      const assembly = await strict.systemPrompt.assemble()
      expect(thrown(() => renderPrompt(assembly)).message)
        .to.equal('unknown prompt variable "{{lang}}" in section "deployment:persona-suffix"; registered variables: (none)')
      p.systemPrompt.variable('lang', () => 'French')
      expect(await promptText(strict)).to.equal('Answer in French.')
    })
  })

  describe('persona prefix', () => {
    it('is a strict template', async () => {
      const { app } = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'You run {{model}}.' } })
      const assembly = await app.systemPrompt.assemble()
      expect(thrown(() => renderPrompt(assembly)).message)
        .to.equal('unknown prompt variable "{{model}}" in section "deployment:persona"; registered variables: (none)')
      const plugin = await pluginContext(app, 'loop', ['systemPrompt'])
      plugin.systemPrompt.variable('model', () => 'deepseek-chat')
      expect(await promptText(app)).to.equal('You run deepseek-chat.')
    })
  })

  describe('empty persona pieces', () => {
    let app: Context
    let host: Context
    beforeEach(async () => {
      ({ app, host } = await bootApp({ systemPrompt: {} }))
    })

    it('stay registered, so a global registration of the same name is a duplicate', async () => {
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.sections.filter((s) => s.name.startsWith('deployment:')).map((s) => [s.name, s.text]))
        .to.deep.equal([['deployment:persona', ''], ['deployment:persona-suffix', '']])
      expect(thrown(() => host.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'x' })).message)
        .to.equal('prompt section "deployment:persona" is already registered (register the second one through a narrower scope to shadow it there)')
    })

    it('are dropped at render', async () => {
      expect(await promptText(app)).to.equal('You are an AI agent powered by the DeepSeek Harness SDK.')
    })

    it('can be shadowed by a scope, which then renders its persona at order 0 and its suffix last', async () => {
      const agent = scope(host, 'agent')
      host.systemPrompt.section({ name: 'before', order: -1, text: 'Before.' })
      host.systemPrompt.section({ name: 'after', order: 1e12, text: 'After.' })
      agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'Agent persona.' })
      agent.ctx.systemPrompt.section({ name: 'deployment:persona-suffix', order: 0, text: 'Agent suffix.' })
      expect(await promptText(app, { scope: agent.key })).to.equal(
        'You are an AI agent powered by the DeepSeek Harness SDK.\n\nBefore.\n\nAgent persona.\n\nAfter.\n\nAgent suffix.')
      expect(await promptText(app)).to.equal('You are an AI agent powered by the DeepSeek Harness SDK.\n\nBefore.\n\nAfter.')
    })

    it('a configured persona can be shadowed by a scope the same way', async () => {
      const deployment = new Context()
      await deployment.plugin(SystemPrompt, { includeHarnessIdentity: false, persona: 'Global persona.' })
      const h = await pluginContext(deployment, 'host', ['systemPrompt'])
      const agent = scope(h, 'agent')
      agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'Agent persona.' })
      expect(await promptText(deployment, { scope: agent.key })).to.equal('Agent persona.')
      expect(await promptText(deployment)).to.equal('Global persona.')
    })
  })
})
