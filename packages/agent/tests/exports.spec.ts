import { expect } from 'chai'
import AgentsDefault, { Agents } from 'dsh-agent'

describe('dsh-agent: the package root', () => {
  it('default-exports the service class, so a deployment row can name the package alone (R-VOCAB-10)', () => {
    expect(AgentsDefault).to.equal(Agents)
  })
})
