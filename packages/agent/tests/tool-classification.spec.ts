import { expect } from 'chai'
import type { Context } from 'cordis'
import fc from 'fast-check'
import { classifyTools, type ChatRequest } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'

const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo'] as const

describe('dsh-agent: classifying tool changes and the declared prefix (issue 21, item 4)', () => {
  it('classifies each tool as same, added, edited, reordered or removed against the previous declared tools', () => {
    const before = [tool('a'), tool('b'), tool('c'), tool('d')]
    const after = [tool('b'), tool('a'), tool('c', { description: 'Changed.' }), tool('e')]
    expect(classifyTools(before, after)).to.deep.equal([
      { tool: 'b', kind: 'reordered' }, { tool: 'a', kind: 'same' }, { tool: 'c', kind: 'edited' }, { tool: 'e', kind: 'added' }, { tool: 'd', kind: 'removed' },
    ])
    expect(classifyTools(before, before).every((row) => row.kind === 'same')).to.equal(true)
  })

  it('names the fewest tools moved as reordered: one tool moved to the end is the only one', () => {
    const before = NAMES.map((name) => tool(name))
    const after = [...before.slice(1), before[0]]
    expect(classifyTools(before, after).filter((row) => row.kind !== 'same')).to.deep.equal([{ tool: 'alpha', kind: 'reordered' }])
  })

  describe('over random sessions', () => {
    let harness: Context
    let made = 0
    before(async () => {
      ({ host: harness } = await bootApp({ systemPrompt: { persona: 'Persona.' }, tools: true, agents: true }))
    })

    it('under the default policy, the tools each request declares start with the previous request\'s, byte for byte, until an epoch', async () => {
      const op = fc.oneof(
        fc.record({ kind: fc.constant('toggle' as const), name: fc.constantFrom(...NAMES) }),
        fc.record({ kind: fc.constant('step' as const) }),
        fc.record({ kind: fc.constant('epoch' as const) }),
      )
      await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 24 }), async (ops) => {
        const live = new Map<string, () => void>()
        const agent = await harness.agents.create({ id: `p${made++}`, model: 'gpt-5' })
        let previous: unknown[] | undefined
        try {
          for (const step of [...ops, { kind: 'step' as const }]) {
            if (step.kind === 'toggle') {
              const off = live.get(step.name)
              if (off) { off(); live.delete(step.name) } else live.set(step.name, harness.tools.register(tool(step.name)))
            } else if (step.kind === 'epoch') {
              agent.openToolEpoch()
              previous = undefined
            } else {
              const request: ChatRequest = await agent.step()
              const tools = request.tools ?? []
              if (previous) expect(JSON.stringify(tools.slice(0, previous.length))).to.equal(JSON.stringify(previous))
              // Every live tool is declared (none under the default policy waits for an epoch).
              expect(tools.map((entry) => entry.function.name)).to.include.members([...live.keys()])
              previous = tools
            }
          }
        } finally {
          for (const off of live.values()) off()
          await agent.dispose()
        }
      }), { numRuns: 40 })
    })

    it('under the epoch policy, the declared tools never change between epochs, whatever tools come, go or change', async () => {
      const op = fc.oneof(
        fc.record({ kind: fc.constant('toggle' as const), name: fc.constantFrom(...NAMES), edition: fc.nat(2) }),
        fc.record({ kind: fc.constant('step' as const) }),
        fc.record({ kind: fc.constant('epoch' as const) }),
      )
      await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 24 }), async (ops) => {
        const live = new Map<string, () => void>()
        const agent = await harness.agents.create({ id: `p${made++}`, model: 'gpt-5', toolChange: 'epoch' })
        let previous: string | undefined
        try {
          for (const step of [...ops, { kind: 'step' as const }]) {
            if (step.kind === 'toggle') {
              live.get(step.name)?.()
              if (live.delete(step.name) && step.edition === 0) continue
              live.set(step.name, harness.tools.register(tool(step.name, { description: `Edition ${step.edition}.` })))
            } else if (step.kind === 'epoch') {
              agent.openToolEpoch()
              previous = undefined
            } else {
              const { request, report } = await agent.stepDetailed()
              const tools = JSON.stringify((request as ChatRequest).tools ?? [])
              if (previous !== undefined) expect(tools).to.equal(previous)
              if (previous !== undefined) expect(report.breaks).to.deep.equal([])
              previous = tools
            }
          }
        } finally {
          for (const off of live.values()) off()
          await agent.dispose()
        }
      }), { numRuns: 40 })
    })

    it('an epoch declares exactly the live tools, in the live order', async () => {
      const agent = await harness.agents.create({ id: `p${made++}`, model: 'gpt-5' })
      const offB = harness.tools.register(tool('bravo'))
      await agent.step()
      offB()
      const offA = harness.tools.register(tool('alpha'))
      expect((await agent.step()).tools!.map((entry) => entry.function.name)).to.deep.equal(['bravo', 'alpha'])
      agent.openToolEpoch()
      expect((await agent.step()).tools!.map((entry) => entry.function.name)).to.deep.equal(['alpha'])
      offA()
    })
  })
})
