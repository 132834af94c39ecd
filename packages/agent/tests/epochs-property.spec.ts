import { expect } from 'chai'
import fc from 'fast-check'
import { exportLedger, type ReanchorKind, type WireFormat } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'

const FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const
const PERSONA = 'Work carefully and say what you did. '.repeat(30)

/** One action of a random session. */
type Action =
  | { kind: 'turn'; input: string; viaTool: boolean; format: WireFormat }
  | { kind: 'change'; section: 'rules' | 'plan' | 'welcome' | 'clock' }
  | { kind: 'compact'; turns: number; reanchor: ReanchorKind }

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('turn' as const), input: fc.string({ minLength: 1, maxLength: 30 }), viaTool: fc.boolean(), format: fc.constantFrom(...FORMATS) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('change' as const), section: fc.constantFrom('rules' as const, 'plan' as const, 'welcome' as const, 'clock' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), turns: fc.integer({ min: 0, max: 2 }), reanchor: fc.constantFrom<ReanchorKind>('stable-opening', 'new-opening') }) },
)

/** The text a body carries for `text` (JSON-escaped). */
const inBody = (text: string) => JSON.stringify(text).slice(1, -1)

describe('dsh-agent: epochs over random sessions (issue 21, property)', () => {
  it('every verbatim section is in the first request after a compaction and never in the text handed to the summarizer; export and restore across the epochs give the next request byte for byte in every format', async function () {
    this.timeout(240_000)
    await fc.assert(fc.asyncProperty(fc.array(action, { minLength: 3, maxLength: 14 }), fc.constantFrom('append' as const, 'replace' as const), async (actions, promptChange) => {
      const { host } = await bootApp({ systemPrompt: { persona: `Persona. ${PERSONA}` }, tools: true, agents: true })
      host.tools.register(tool('read'))
      const version = { rules: 1, plan: 1, welcome: 1, clock: 1 }
      const rules = () => `Rules r${version.rules}: review every change before it lands.`
      const plan = () => `Plan p${version.plan}: finish the parser, then the printer.`
      const welcome = () => `Welcome w${version.welcome}: notes for the first day.`
      host.systemPrompt.section({ name: 'rules', order: 10, text: rules })
      host.systemPrompt.section({ name: 'plan', order: 20, text: plan, compaction: 'summary' })
      host.systemPrompt.section({ name: 'welcome', order: 30, text: welcome, compaction: 'drop' })
      host.systemPrompt.context({ name: 'clock', order: 10, text: () => `Tick ${version.clock}.` })
      const agent = await host.agents.create({ id: 'main', model: 'claude-sonnet-4-5', promptChange })
      let calls = 0
      let format: WireFormat = 'anthropic'
      for (const step of actions) {
        if (step.kind === 'change') version[step.section]++
        else if (step.kind === 'turn') {
          format = step.format
          await agent.step(step.input, { format })
          if (step.viaTool) {
            const id = `call_${++calls}`
            agent.record({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read', arguments: '{}' } }] })
            agent.record({ role: 'tool', tool_call_id: id, content: `read ${calls}` })
          }
          agent.record({ role: 'assistant', content: `reply to ${step.input}` }, { usage: { inputTokens: 100, cachedReadTokens: 50, cacheWriteTokens: null, outputTokens: 5 } })
        } else {
          const turns = agent.conversation.filter((item) => item.source === 'user').length
          if (turns <= step.turns + 1) continue
          const source = await agent.compactionSource({ keep: { turns: step.turns } })
          expect(source.text).to.not.contain(rules())
          expect(source.sections.verbatim).to.include('rules')
          if (source.sections.summary.includes('plan')) expect(source.text).to.contain(plan())
          expect(source.text).to.not.contain(welcome())
          const planned = await agent.planCompaction({ summary: `summary of ${turns} turns`, keep: { turns: step.turns } })
          const available = planned.offered.find((offer) => offer.kind === step.reanchor)!.available
          const epoch = planned.apply(available ? step.reanchor : 'new-opening')
          const first = await agent.stepDetailed('after the compaction', { format })
          // Every verbatim section is in the first request after it. What left is out of the newest version;
          // under new-opening it is nowhere in the request (a kept opening still holds its old text, amended).
          expect(first.body).to.contain(inBody(rules()))
          const newest = agent.conversation.filter((item) => item.source === 'system-prompt').at(-1)!.content!
          expect(newest).to.not.contain(plan()).and.not.contain(welcome())
          if (epoch.reanchor === 'new-opening') expect(first.body).to.not.contain(inBody(plan())).and.not.contain(inBody(welcome()))
          agent.record({ role: 'assistant', content: 'ok' })
        }
      }
      const ledger = exportLedger(agent)
      const live: string[] = []
      for (const each of FORMATS) live.push((await agent.stepDetailed('next', { format: each })).body)
      await agent.dispose()
      const restored = await host.agents.restore(ledger)
      expect(exportLedger(restored)).to.equal(ledger)
      for (const [i, each] of FORMATS.entries()) expect((await restored.stepDetailed('next', { format: each })).body).to.equal(live[i])
    }), { numRuns: 30 })
  })
})
