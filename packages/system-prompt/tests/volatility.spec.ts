import { expect } from 'chai'
import { Context } from 'cordis'
import { templateVariables } from 'dsh-system-prompt/internal'
import { bootApp, thrown } from 'dsh-testing'
import { BARE } from './helpers.js'

describe('dsh-system-prompt: volatility declarations (R-CACHE-8)', () => {
  let app: Context
  beforeEach(async () => { ({ app } = await bootApp({ systemPrompt: BARE })) })

  it('keeps the declared volatility of sections, contexts and variables, static by default', () => {
    app.systemPrompt.section({ name: 'turns', order: 1, text: 'Turn.', volatility: 'turn' })
    app.systemPrompt.section({ name: 'plain', order: 2, text: 'Plain.' })
    app.systemPrompt.context({ name: 'clock', order: 1, text: 'Now.', volatility: 'turn' })
    app.systemPrompt.variable('today', () => 'x', { volatility: 'daily' })
    app.systemPrompt.variable('user', () => 'u')
    const inspection = app.systemPrompt.inspect()
    expect(inspection.sections.filter((s) => s.name === 'turns' || s.name === 'plain').map((s) => [s.name, s.volatility]))
      .to.deep.equal([['turns', 'turn'], ['plain', 'static']])
    expect(inspection.contexts.map((c) => [c.name, c.volatility])).to.deep.equal([['clock', 'turn']])
    expect(inspection.variables.map((v) => [v.name, v.volatility])).to.deep.equal([['today', 'daily'], ['user', 'static']])
  })

  it('refuses a volatility that is not one of the four, naming the entry, and registers nothing', () => {
    const error = thrown(() => app.systemPrompt.section({ name: 's', order: 1, text: 'x', volatility: 'hourly' as never }), TypeError) as TypeError & { code: string }
    expect([error.message, error.code]).to.deep.equal([
      'prompt section "s" volatility must be one of "static", "conversation", "daily", "turn", received a string "hourly"', 'PROMPT_INVALID_VOLATILITY',
    ])
    expect(thrown(() => app.systemPrompt.variable('v', () => 'x', { volatility: 3 as never })).message)
      .to.equal('prompt variable "v" volatility must be one of "static", "conversation", "daily", "turn", received a number (3)')
    expect(app.systemPrompt.inspect().sections.map((s) => s.name)).to.not.include('s')
  })

  it('lists the variables a text references, in order of first use, up to its first malformed form', () => {
    expect(templateVariables('A {{date}} and {{model}}, again {{date}}. {{#raw}}{{cwd}}{{/raw}}')).to.deep.equal(['date', 'model'])
    expect(templateVariables('{{model}} {{ bad }} {{cwd}}')).to.deep.equal(['model'])
    expect(templateVariables('no references')).to.deep.equal([])
  })
})
