import { expect } from 'chai'
import type { Agent, WireFormat } from 'dsh-agent'
import type { CacheReport } from 'dsh-wire'
import { bootApp } from 'dsh-testing'
import { readFileSync, writeFileSync } from 'node:fs'

// Native prompt updates (issue 23, item 1): under `append`, a new prompt version goes in as a
// mid-conversation system message where the provider takes one (OpenAI Chat and Responses; Anthropic's
// listed models), as a user message with the marker line elsewhere, and either way the prefix before it
// is unchanged: the report sees the whole previous request reused.

/** Three steps of one agent: a first request, a changed persona (a new version), one more turn. */
async function threeSteps(model: string, format: WireFormat, wire?: { promptUpdates: Record<string, 'system-message' | 'marker'> }) {
  const { host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, tools: true, agents: true })
  let persona = 'You are a careful coder.'
  host.systemPrompt.section({ name: 'persona', order: 0, text: () => persona })
  const agent: Agent = await host.agents.create({ id: 'a', model, ...(wire ? { wire } : {}) })
  const options = { format, ...(format === 'anthropic' ? { breakpoints: { minTokens: 0 } } : {}) } as { format: WireFormat }
  const steps = [await agent.stepDetailed('Fix the cart.', options)]
  agent.record({ role: 'assistant', content: 'Done.' })
  persona = 'You are a careful coder. Write tests first.'
  steps.push(await agent.stepDetailed('Add a test.', options))
  agent.record({ role: 'assistant', content: 'Added.' })
  steps.push(await agent.stepDetailed('Thanks.', options))
  return steps
}

/** Every step after the first reuses the whole previous request (its cache stream), byte for byte. */
function expectFullReuse(reports: CacheReport[]): void {
  for (let i = 1; i < reports.length; i++) expect(reports[i].reusableBytes, `step ${i + 1}`).to.equal(reports[i - 1].requestBytes)
}

describe('dsh-agent: native prompt updates under append', () => {
  const NATIVE: [WireFormat, string][] = [['anthropic', 'claude-opus-4-8'], ['openai-chat', 'gpt-5.1'], ['openai-responses', 'gpt-5.1']]

  it('sends a new version as a mid-conversation system message in each native path, pinned byte for byte, the prefix reused whole', async () => {
    const bodies: Record<string, unknown[]> = {}
    for (const [format, model] of NATIVE) {
      const steps = await threeSteps(model, format)
      bodies[format] = steps.map((step) => step.request)
      expect(steps.map((step) => step.report.promptUpdate), format).to.deep.equal([undefined, 'system-message', undefined])
      expectFullReuse(steps.map((step) => step.report))
    }
    const file = new URL('./golden/native-updates.json', import.meta.url)
    const text = `${JSON.stringify(bodies, null, 2)}\n`
    if (process.env.DSH_UPDATE_GOLDEN === '1') writeFileSync(file, text)
    expect(text).to.equal(readFileSync(file, 'utf8'))
  })

  it('anthropic: a model the table does not list (Claude Sonnet 5) gets the marker line, and the report says so', async () => {
    const steps = await threeSteps('claude-sonnet-5', 'anthropic')
    const update = ((steps[1].request as { messages: unknown }).messages as { role: string; content: { text: string }[] }[]).at(-2)!
    expect(update.role).to.equal('user')
    expect(update.content[0].text).to.match(/^\[system prompt updated/)
    expect(steps[1].report.promptUpdate).to.equal('marker')
    expectFullReuse(steps.map((step) => step.report))
  })

  it('a deployment override of the table wins for the models it names, and only in a format that decides per model', async () => {
    const forced = await threeSteps('claude-sonnet-5', 'anthropic', { promptUpdates: { 'claude-sonnet-5': 'system-message' } })
    expect(((forced[1].request as { messages: unknown }).messages as { role: string }[]).at(-2)!.role).to.equal('system')
    expect(forced[1].report.promptUpdate).to.equal('system-message')
    const gemini = await threeSteps('gemini-3-pro', 'gemini', { promptUpdates: { gemini: 'system-message' } })
    expect(gemini[1].report.promptUpdate).to.equal('marker')
  })

  it('refuses a wire.promptUpdates value that is no lowering with AGENT_INVALID_WIRE, naming the key', async () => {
    const { host } = await bootApp({ systemPrompt: {}, agents: true })
    const error = await host.agents.create({ id: 'a', model: 'm', wire: { promptUpdates: { 'claude-x': 'native' as 'marker' } } }).then(() => undefined, (caught: unknown) => caught)
    expect(error).to.deep.include({ code: 'AGENT_INVALID_WIRE' })
    expect((error as { details: unknown }).details).to.deep.equal({ id: 'a', key: 'promptUpdates.claude-x', reason: 'expected "system-message" or "marker", received "native"' })
  })
})
