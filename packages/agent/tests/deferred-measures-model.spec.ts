import { expect } from 'chai'
import fc from 'fast-check'
import { MAX_PENDING_MEASURES, type Agent, type StepResult } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'
import type { WireFormat } from 'dsh-wire'

// Deferred measurement (R-CACHE-10) checked against eager measurement on random programs: two agents of
// one host run the same program; one reads each step's report and budget as the step returns (the plain
// path), the other reads them at random moments, late, or never until the end. Every figure must agree,
// whatever waited: recorded usages, tool changes between steps, forks (which measure at once), and runs
// of unread steps long enough to cross MAX_PENDING_MEASURES (the queue runs there).

type Op =
  | { op: 'step'; format: WireFormat; input: string }
  | { op: 'burst'; steps: number }
  | { op: 'record'; usage: boolean }
  | { op: 'read'; back: number }
  | { op: 'tool' }
  | { op: 'fork' }

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant<'step'>('step'), format: fc.constantFrom<WireFormat>('openai-chat', 'anthropic'), input: fc.constantFrom('One.', 'Two more words.', 'A longer question about the repository layout.') }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant<'burst'>('burst'), steps: fc.oneof(fc.integer({ min: 2, max: 8 }), fc.integer({ min: MAX_PENDING_MEASURES - 2, max: MAX_PENDING_MEASURES + 40 })) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant<'record'>('record'), usage: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant<'read'>('read'), back: fc.nat(6) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant<'tool'>('tool') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant<'fork'>('fork') }) },
)

interface Run { agent: Agent; steps: StepResult<WireFormat>[]; forks: unknown[] }

const figures = (step: StepResult<WireFormat>) => ({ report: step.report, budget: step.budget })

describe('dsh-agent: deferred measurement agrees with eager measurement (R-CACHE-10, model test)', () => {
  it('random programs: every report and budget read late (or in a burst past the bound) equals the one read at its step', async function () {
    this.timeout(600_000)
    let bursts = 0
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (program) => {
      const { app, host } = await bootApp({ systemPrompt: { persona: 'Persona for {{model}}.' }, tools: true, agents: true })
      host.tools.register(tool('read', { guidance: 'Read before you edit.' }))
      const make = async (id: string): Promise<Run> => ({ agent: await host.agents.create({ id, model: 'claude-sonnet-4', provider: 'anthropic' }), steps: [], forks: [] })
      const eager = await make('eager')
      const late = await make('late')
      let tools = 0
      let turn = 0
      const step = async (format: WireFormat, input: string) => {
        for (const run of [eager, late]) {
          const result = await run.agent.stepDetailed(`${input} (${turn})`, { format })
          if (run === eager) figures(result)
          run.steps.push(result)
        }
        turn++
      }
      for (const o of program) {
        if (o.op === 'step') await step(o.format, o.input)
        else if (o.op === 'burst') {
          if (o.steps > MAX_PENDING_MEASURES) bursts++
          for (let i = 0; i < o.steps; i++) await step('openai-chat', 'Burst.')
        } else if (o.op === 'record') {
          if (eager.steps.length === 0) continue
          for (const run of [eager, late]) {
            run.agent.record({ role: 'assistant', content: `Reply ${turn}.` }, o.usage ? { usage: { inputTokens: 40 + turn, cachedReadTokens: turn, cacheWriteTokens: null, outputTokens: 3 } } : {})
          }
        } else if (o.op === 'read') {
          const at = late.steps.length - 1 - o.back
          if (at >= 0) figures(late.steps[at])
        } else if (o.op === 'tool') {
          host.tools.register(tool(`extra${tools++}`, { guidance: { text: 'Extra guidance.', order: 1500 } }))
        } else if (eager.steps.length > 0) {
          for (const run of [eager, late]) run.forks.push((await run.agent.fork({ kind: 'compact', instruction: 'Summarise.' })).report)
        }
      }
      const lateFigures = [...late.steps].reverse().map(figures).reverse()
      expect(lateFigures).to.deep.equal(eager.steps.map(figures))
      expect(late.forks).to.deep.equal(eager.forks)
    }), { numRuns: 30, seed: 2412 })
    expect(bursts, 'programs whose burst crossed MAX_PENDING_MEASURES').to.be.greaterThan(0)
  })
})
