import { expect } from 'chai'
import AgentsDefault, { Agents } from 'dsh-agent'

describe('dsh-agent: the package root', () => {
  it('§2 default-exports the service class, so a deployment row can name the package alone', () => {
    expect(AgentsDefault).to.equal(Agents)
  })
})
