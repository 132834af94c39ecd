import { expect } from 'chai'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import type { Agent } from 'dsh-agent'
import { bootApp, tool, writeTinyModel } from 'dsh-testing'
import { llamaCppFamily, registerProvider, type ProviderFamily } from 'dsh-wire'

// Issue 25 (R-CACHE-11): a family that renders its engine's prompt (llama.cpp's) is measured in that
// prompt's tokens, and shares the longest common token prefix with the previous request's prompt.

function common(a: readonly number[], b: readonly number[]): number {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

describe('dsh-agent: the reuse report of a family that renders its engine\'s prompt (llama.cpp)', () => {
  let dir: string
  let family: ProviderFamily
  let dispose: () => void
  let harness: Context
  let agent: Agent
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-llama-report-'))
    family = llamaCppFamily({ model: await writeTinyModel(join(dir, 'tiny.gguf')) })
    dispose = registerProvider(family)
  })
  after(() => {
    dispose()
    rmSync(dir, { recursive: true, force: true })
  })
  beforeEach(async () => {
    ({ host: harness } = await bootApp({ systemPrompt: { persona: 'Be terse and exact.' }, tools: true, agents: true }))
    harness.tools.register(tool('read'))
    agent = await harness.agents.create({ id: 'local', model: 'tiny', provider: 'llama.cpp' })
  })

  for (const format of ['openai-chat', 'openai-responses', 'anthropic'] as const) {
    it(`${format}: requestTokens is the rendered prompt's length and reusableTokens its common token prefix with the previous prompt, no minimum, no unit (L1)`, async () => {
      const first = await agent.stepDetailed('Hello there.', { format })
      const firstPrompt = family.promptTokens!(format, first.request)!
      expect(first.report).to.include({ provider: 'llama.cpp', tokenizer: 'tiny.gguf vocabulary', requestTokens: firstPrompt.length, reusableTokens: 0, predictedCachedTokens: 0 })
      agent.record({ role: 'assistant', content: 'Hi.' })
      const second = await agent.stepDetailed('And again.', { format })
      const secondPrompt = family.promptTokens!(format, second.request)!
      const shared = common(firstPrompt, secondPrompt)
      // The first prompt ends with the assistant's opening, which the second prompt continues with the reply.
      expect(shared).to.be.above(firstPrompt.length - 20).and.below(firstPrompt.length + 1)
      expect(second.report).to.include({ requestTokens: secondPrompt.length, reusableTokens: shared, predictedCachedTokens: shared })
    })
  }
})
