import { expect } from 'chai'
import { AgentsSection, validateAgents } from '../src/agents-section.js'

describe('the agents: section', () => {
  it('accepts the declared keys and returns the rows in file order', () => {
    const rows = [
      { id: 'main', model: 'm', provider: 'p', cwd: '/w', promptChange: 'replace' },
      { id: 'sub', model: 'm', parent: 'main', preset: 'reviewer' },
    ]
    expect(validateAgents(rows)).to.deep.equal({ value: rows })
  })

  it('takes an agent\'s tool-change policy, by name or per kind, and refuses a choice its kind does not have (issue 21)', () => {
    const rows = [{ id: 'main', model: 'm', toolChange: 'epoch' }, { id: 'sub', model: 'm', toolChange: { removed: 'immediate', added: 'epoch' } }]
    expect(validateAgents(rows)).to.deep.equal({ value: rows })
    const refused = validateAgents([{ id: 'main', model: 'm', toolChange: { removed: 'vanish' } }]) as { issues: { path: unknown[] }[] }
    expect(refused.issues.map((issue) => issue.path.slice(0, 2))).to.deep.equal([[0, 'toolChange']])
  })

  it('treats an empty or absent section as no agents', () => {
    expect(validateAgents(undefined)).to.deep.equal({ value: [] })
    expect(validateAgents(null)).to.deep.equal({ value: [] })
  })

  it('reports every problem of the list at once, each with its code and path', () => {
    const result = validateAgents([
      { id: 'a', model: 'm', modle: 'x' },
      { id: 'b' },
      { id: 'a', model: 'm', parent: 'c' },
      { id: 'c', model: 'm', parent: 'c' },
      'agent',
    ])
    expect(result).to.deep.equal({
      issues: [
        { code: 'AGENT_UNKNOWN_ROW_KEY', message: '$[0].modle is not a key of an agent (allowed: id, model, provider, cwd, preset, parent, start, promptChange, profile, toolChange, wire)', path: [0, 'modle'] },
        { code: 'AGENT_INVALID_ROW', message: '$[1].model missing required value', path: [1, 'model'] },
        { code: 'AGENT_DUPLICATE_ROW_ID', message: '$[2].id "a" is already the id of agents[0] (agent ids are unique in the file)', path: [2, 'id'] },
        { code: 'AGENT_PARENT_NOT_BEFORE', message: '$[2].parent "c" is not an agent listed before "a" (list parents before their children)', path: [2, 'parent'] },
        { code: 'AGENT_OWN_PARENT', message: '$[3].parent names the agent itself ("c")', path: [3, 'parent'] },
        { code: 'AGENT_INVALID_ROW', message: '$[4] expected object but got agent', path: [4] },
      ],
    })
  })

  it('checks a profile\'s figures, and keeps a key it does not know for agents.create() to refuse by name', () => {
    expect(validateAgents([{ id: 'a', model: 'm', profile: { contextWindow: 0 } }])).to.deep.equal({
      issues: [{ code: 'AGENT_INVALID_ROW', message: '$[0].profile.contextWindow expected number >= 1 but got 0', path: [0, 'profile', 'contextWindow'] }],
    })
    expect(validateAgents([{ id: 'b', model: 'm', profile: { window: 5 } }])).to.deep.equal({ value: [{ id: 'b', model: 'm', profile: { window: 5 } }] })
  })

  it('refuses a section that is not a list', () => {
    expect(validateAgents({ main: {} })).to.deep.equal({ issues: [{ code: 'AGENT_ROWS_NOT_LIST', message: 'expected a list of agents like "- { id: main, model: deepseek-chat }"', path: [] }] })
  })

  it('is a Standard Schema the loader can call', () => {
    expect(AgentsSection['~standard'].version).to.equal(1)
    expect(AgentsSection['~standard'].validate([{ id: 'x', model: 'm' }])).to.deep.equal({ value: [{ id: 'x', model: 'm' }] })
  })
})
