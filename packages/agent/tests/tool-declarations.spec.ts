import { expect } from 'chai'
import fc from 'fast-check'
import type { CacheReport } from 'dsh-wire'
import { tool } from 'dsh-testing'
import { DEFAULT_TOOL_CHANGE, ToolDeclarations } from '../src/tool-changes.js'

/** A report with no break (what `commit` reads of it). */
const REPORT = { format: 'openai-chat', requestTokens: 100, reusableTokens: 100, breaks: [] } as unknown as CacheReport

/** The names a plan of `declarations` declares for `live`, committed. */
function step(declarations: ToolDeclarations, live: ReturnType<typeof tool>[]): string[] {
  const plan = declarations.plan(live, () => 'owner', 'no append path')
  plan.commit()
  plan.report({ ...REPORT })
  return plan.declared.map((declared) => declared.name)
}

describe('dsh-agent: what each tool-change policy declares (tool-changes.ts)', () => {
  const [a, b, c] = [tool('a'), tool('b'), tool('c')]

  it('reordered: keep declares the previous order; immediate declares the new one, inert tools after the live ones', () => {
    const kept = new ToolDeclarations(DEFAULT_TOOL_CHANGE)
    step(kept, [a, b, c])
    expect(step(kept, [c, a, b])).to.deep.equal(['a', 'b', 'c'])
    const moved = new ToolDeclarations({ ...DEFAULT_TOOL_CHANGE, reordered: 'immediate' })
    step(moved, [a, b, c])
    expect(step(moved, [b, a])).to.deep.equal(['b', 'a', 'c'])
  })

  it('removed: immediate stops declaring the tool while the others keep their order', () => {
    const declarations = new ToolDeclarations({ ...DEFAULT_TOOL_CHANGE, removed: 'immediate' })
    step(declarations, [a, b, c])
    expect(step(declarations, [a, c])).to.deep.equal(['a', 'c'])
    expect(declarations.unavailable.size).to.equal(0)
  })

  it('a removed tool that comes back with the same definition is live again, in its place, and no longer unavailable', () => {
    const declarations = new ToolDeclarations(DEFAULT_TOOL_CHANGE)
    step(declarations, [a, b, c])
    expect(step(declarations, [a, c])).to.deep.equal(['a', 'b', 'c'])
    expect([...declarations.unavailable.keys()]).to.deep.equal(['b'])
    expect(step(declarations, [a, tool('b'), c])).to.deep.equal(['a', 'b', 'c'])
    expect(declarations.unavailable.size).to.equal(0)
  })
})

describe('dsh-agent: the unchanged-tools shortcut of ToolDeclarations agrees with the full pass (model test)', () => {
  /**
   * The reference is the same class kept on its full pass: a told key that no note ever uses stops the
   * shortcut (it only runs when nothing was told), and is put back after an epoch clears it.
   */
  const FULL_PASS = 'model-test: never a note'
  const fullPass = (declarations: ToolDeclarations) => (declarations as unknown as { told: Set<string> }).told.add(FULL_PASS)

  it('over random sequences of tool sets, policies, epochs and append paths open or closed, both declare, report, note, append and refuse the same', () => {
    const pool = ['a', 'b', 'c']
    const policies = [DEFAULT_TOOL_CHANGE, { ...DEFAULT_TOOL_CHANGE, added: 'epoch' as const, edited: 'epoch' as const }, { removed: 'immediate', added: 'immediate', edited: 'immediate', reordered: 'immediate' } as const]
    const live = fc.array(fc.record({ name: fc.constantFrom(...pool), edit: fc.nat(2), fresh: fc.boolean() }), { maxLength: 5 })
      .map((rows) => rows.filter((row, i) => rows.findIndex((other) => other.name === row.name) === i))
    const step = fc.tuple(live, fc.boolean())
    fc.assert(fc.property(fc.constantFrom(...policies), fc.array(fc.oneof(step, fc.constant('epoch' as const)), { minLength: 1, maxLength: 16 }), (policy, steps) => {
      const fast = new ToolDeclarations(policy)
      const reference = new ToolDeclarations(policy)
      fullPass(reference)
      // One tool object per name and edit: the same object again unless `fresh` re-registers it.
      const made = new Map<string, ReturnType<typeof tool>>()
      const toolOf = (row: { name: string; edit: number; fresh: boolean }) => {
        const key = `${row.name}:${row.edit}`
        if (row.fresh || !made.has(key)) made.set(key, { ...tool(row.name), description: `${row.name} v${row.edit}` })
        return made.get(key)!
      }
      for (const item of steps) {
        if (item === 'epoch') { fast.openEpoch(); reference.openEpoch(); continue }
        const tools = item[0].map(toolOf)
        // An append path open for this request (R-TOOL-13), or closed (another format): both get the same.
        const path = () => (item[1] ? { via: 'the path' } : { fallback: 'none' })
        const [a, b] = [fast.plan(tools, (name) => `owner-${name}`, path), reference.plan(tools, (name) => `owner-${name}`, path)]
        const [ra, rb] = [{ ...REPORT }, { ...REPORT }]
        a.commit()
        a.report(ra)
        b.commit()
        b.report(rb)
        fullPass(reference)
        expect(JSON.stringify(a.declared)).to.equal(JSON.stringify(b.declared))
        expect(a.changes).to.deep.equal(b.changes)
        expect(a.note).to.equal(b.note)
        expect(JSON.stringify(a.additions)).to.equal(JSON.stringify(b.additions))
        expect((ra as { toolChanges?: unknown }).toolChanges).to.deep.equal((rb as { toolChanges?: unknown }).toolChanges)
        expect([...fast.unavailable]).to.deep.equal([...reference.unavailable])
      }
    }), { numRuns: 500 })
  })
})
