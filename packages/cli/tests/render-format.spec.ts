import { expect } from 'chai'
import { cli, EXAMPLE, runBeforeAll } from './helpers.js'

describe('dsh-prompt render --request --format', function () {
  this.timeout(60000)
  const input = ['--step-input', 'Fix the failing parser test.']
  const r = runBeforeAll({
    chat: () => cli(['render', EXAMPLE.coding, '--request', ...input]),
    chatNamed: () => cli(['render', EXAMPLE.coding, '--request', '--format', 'openai-chat', ...input]),
    responses: () => cli(['render', EXAMPLE.coding, '--request', '--format', 'openai-responses', ...input]),
    anthropic: () => cli(['render', EXAMPLE.coding, '--request', '--format', 'anthropic', ...input]),
    gemini: () => cli(['render', EXAMPLE.coding, '--request', '--format', 'gemini', ...input]),
    unknown: () => cli(['render', EXAMPLE.coding, '--request', '--format', 'cohere']),
    alone: () => cli(['render', EXAMPLE.coding, '--format', 'gemini', '--json']),
  })

  it('openai-chat is the default, byte for byte', () => {
    expect(r.chatNamed.code).to.equal(0)
    expect(r.chatNamed.stdout).to.equal(r.chat.stdout)
  })

  it('each format prints its own body for the same step: instructions, system blocks or systemInstruction', () => {
    const chat = JSON.parse(r.chat.stdout)
    const responses = JSON.parse(r.responses.stdout)
    const anthropic = JSON.parse(r.anthropic.stdout)
    const gemini = JSON.parse(r.gemini.stdout)
    const system = chat.messages[0].content
    expect(Object.keys(responses)).to.deep.equal(['model', 'instructions', 'input', 'tools', 'prompt_cache_key'])
    expect(responses.instructions).to.equal(system)
    expect(responses.prompt_cache_key).to.equal('main')
    expect(Object.keys(anthropic)).to.deep.equal(['model', 'max_tokens', 'tools', 'system', 'messages'])
    expect(anthropic.system[0].text).to.equal(system)
    expect(anthropic.messages[0].content[0].text).to.equal('Fix the failing parser test.')
    expect(gemini.config.systemInstruction.parts[0].text).to.equal(system)
    expect(gemini.config.tools[0].functionDeclarations.map((d: { name: string }) => d.name))
      .to.deep.equal(chat.tools.map((t: { function: { name: string } }) => t.function.name))
  })

  it('refuses an unknown format, and --format without --request, as usage errors (exit 2)', () => {
    expect(r.unknown.code).to.equal(2)
    expect(r.unknown.stderr).to.include('--format must be one of openai-chat, openai-responses, anthropic, gemini, received "cohere"')
    expect(r.alone.code).to.equal(2)
    expect(JSON.parse(r.alone.stdout).error.code).to.equal('CLI_FORMAT_NEEDS_REQUEST')
  })
})
