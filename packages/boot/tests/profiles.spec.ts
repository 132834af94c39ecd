import { expect } from 'chai'
import { fileURLToPath } from 'node:url'
import { bootDeployment } from 'dsh-boot'

describe('dsh-boot: model profiles in the deployment file (issue 21)', () => {
  const file = fileURLToPath(new URL('fixtures/profiles.yml', import.meta.url))

  it('lays an agent row\'s profile over the table (deployment over table), gives an unknown model the default, and places a bad override at its key', async () => {
    const booted = await bootDeployment(file, { logLevel: 'silent', lenientAgents: true })
    try {
      const [main, local] = booted.agents
      expect([main.profile.origin, main.profile.contextWindow, main.profile.inputCap, main.profile.outputReserve]).to.deep.equal(['deployment', 64_000, 64_000, 8_192])
      expect([local.profile.name, local.profile.origin]).to.deep.equal(['default', 'default'])
      expect((await main.stepDetailed('Hi.')).budget).to.include({ profile: 'deepseek-chat', origin: 'deployment', window: 64_000, budget: 64_000 - 8_192 })
      expect(booted.problems.map((problem) => [problem.code, problem.key, problem.line])).to.deep.equal([['AGENT_INVALID_PROFILE', 'agents[2].profile.outputReserve', 21], ['AGENT_INVALID_PROFILE', 'agents[3].profile.window', 25]])
    } finally {
      await booted.dispose()
    }
  })
})
