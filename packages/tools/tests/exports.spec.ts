import { expect } from 'chai'
import ToolRegistryDefault, { ToolRegistry } from 'dsh-tools'

describe('dsh-tools: the package root', () => {
  it('§2 default-exports the service class, so a deployment row can name the package alone', () => {
    expect(ToolRegistryDefault).to.equal(ToolRegistry)
  })
})
