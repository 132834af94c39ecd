import { expect } from 'chai'
import type { StepOptions, WireFormat } from 'dsh-agent'
import { bootApp } from 'dsh-testing'
import { readFileSync, writeFileSync } from 'node:fs'
import { runSixTurns } from './scenario.js'

// Golden request bodies: every request of the six-turn conversation (scenario.ts: a tool call and its
// result at turn 1, prompt changes at turns 3 and 4, under append for `coder` and replace for `mirror`)
// and of an empty render, in every wire format. Regenerate with DSH_UPDATE_GOLDEN=1 after a deliberate
// change, and read the diff: it is the change in what each provider receives.

const FORMATS: { format: WireFormat; options: StepOptions<WireFormat> }[] = [
  { format: 'openai-chat', options: {} },
  { format: 'openai-responses', options: { format: 'openai-responses' } },
  // Breakpoints at every candidate (the scenario's prompt is far below a real minimum).
  { format: 'anthropic', options: { format: 'anthropic', breakpoints: { minTokens: 0 } } },
  { format: 'gemini', options: { format: 'gemini' } },
]

/** One prompt section whose text the test sets: rendered, emptied, rendered again (as empty-render.spec.ts). */
async function emptyRender(options: StepOptions<WireFormat>): Promise<unknown[]> {
  const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, agents: true })
  let instruction = 'Answer in English.'
  host.systemPrompt.section({ name: 'language', order: 10, text: () => instruction })
  const agent = await host.agents.create({ id: 'a', model: 'deepseek-chat' })
  const bodies: unknown[] = [await agent.step('One.', options)]
  instruction = ''
  bodies.push(await agent.step('Two.', options))
  instruction = 'Answer in French.'
  bodies.push(await agent.step('Three.', options))
  return bodies
}

describe('dsh-agent: golden request bodies of every wire format', () => {
  for (const { format, options } of FORMATS) {
    it(`${format}: the six turns under append and replace, and an empty render, pinned byte for byte`, async () => {
      const run = await runSixTurns(options)
      const bodies = { coder: run.coder, mirror: run.mirror, emptyRender: await emptyRender(options) }
      const file = new URL(`./golden/${format}.json`, import.meta.url)
      const text = `${JSON.stringify(bodies, null, 2)}\n`
      if (process.env.DSH_UPDATE_GOLDEN === '1') writeFileSync(file, text)
      expect(text).to.equal(readFileSync(file, 'utf8'))
    })
  }

  it('the openai-chat golden file is what the conversation specs assert message by message', async () => {
    const golden = JSON.parse(readFileSync(new URL('./golden/openai-chat.json', import.meta.url), 'utf8'))
    expect(golden.coder).to.deep.equal((await runSixTurns()).coder)
  })
})
