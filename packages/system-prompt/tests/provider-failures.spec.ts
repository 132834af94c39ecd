import { expect } from 'chai'
import { providerFailures, PromptError } from 'dsh-system-prompt'
import { bootApp, pluginContext, rejection } from 'dsh-testing'
import { BARE } from './helpers.js'

describe('dsh-system-prompt: every failing provider of an assembly (issue 24)', () => {
  it('runs every provider after one fails, and throws the first failure carrying the others, in order', async () => {
    const { app } = await bootApp({ systemPrompt: BARE })
    const a = await pluginContext(app, 'plugin-a', ['systemPrompt'])
    const b = await pluginContext(app, 'plugin-b', ['systemPrompt'])
    a.systemPrompt.section({ name: 'a', order: 1, text: () => { throw new Error('a failed') } })
    b.systemPrompt.section({ name: 'b', order: 2, text: () => { throw new Error('b failed') } })
    b.systemPrompt.context({ name: 'c', order: 1, text: () => 7 as unknown as string })
    a.systemPrompt.variable('v', () => { throw new Error('v failed') })
    const error = await rejection(app.systemPrompt.assemble())
    expect(error).to.be.instanceOf(PromptError)
    expect((error as PromptError & { code: string }).code).to.equal('PROMPT_PROVIDER_FAILED')
    expect(error.message).to.equal('prompt section "a" text provider of plugin "plugin-a" failed: a failed')
    expect(providerFailures(error).map((failure) => { const { code, details } = failure as PromptError & { code: string; details: unknown }; return [code, details] })).to.deep.equal([
      ['PROMPT_PROVIDER_FAILED', { what: 'prompt section "a" text provider', owner: 'plugin-a' }],
      ['PROMPT_PROVIDER_FAILED', { what: 'prompt section "b" text provider', owner: 'plugin-b' }],
      ['PROMPT_PROVIDER_RETURNED', { what: 'prompt context "c" text provider', owner: 'plugin-b', expected: 'a string' }],
      ['PROMPT_PROVIDER_FAILED', { what: 'prompt variable "v" provider', owner: 'plugin-a' }],
    ])
  })

  it('gives [] for an error that is not a provider failure, and [error] for a lone one', async () => {
    const { app, host } = await bootApp({ systemPrompt: BARE })
    expect(providerFailures(new Error('other'))).to.deep.equal([])
    host.systemPrompt.section({ name: 'a', order: 1, text: () => { throw new Error('a failed') } })
    const error = await rejection(app.systemPrompt.assemble())
    expect(providerFailures(error)).to.deep.equal([error])
  })
})
