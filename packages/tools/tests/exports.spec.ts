import { expect } from 'chai'
import ToolRegistryDefault, { ToolRegistry } from 'dsh-tools'

describe('dsh-tools: the package root', () => {
  it('default-exports the service class, so a deployment row can name the package alone (R-VOCAB-10)', () => {
    expect(ToolRegistryDefault).to.equal(ToolRegistry)
  })
})
