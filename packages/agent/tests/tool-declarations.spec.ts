import { expect } from 'chai'
import type { CacheReport } from 'dsh-wire'
import { tool } from 'dsh-testing'
import { DEFAULT_TOOL_CHANGE, ToolDeclarations } from '../src/tool-changes.js'

/** A report with no break (what `commit` reads of it). */
const REPORT = { format: 'openai-chat', requestTokens: 100, reusableTokens: 100, breaks: [] } as unknown as CacheReport

/** The names a plan of `declarations` declares for `live`, committed. */
function step(declarations: ToolDeclarations, live: ReturnType<typeof tool>[]): string[] {
  const plan = declarations.plan(live, () => 'owner', 'no append path')
  plan.commit({ ...REPORT })
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
