import { expect } from 'chai'
import { fileURLToPath } from 'node:url'
import { bootDeployment, type BootedDeployment } from 'dsh-boot'
import { DeploymentError } from 'dsh-loader'
import { rejection } from 'dsh-testing'

const fixture = (name: string) => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url))
const DISPOSED = 4

describe('bootDeployment: one call boots a deployment file for a harness', () => {
  let booted: BootedDeployment | undefined
  afterEach(async () => {
    await booted?.dispose()
    booted = undefined
  })

  it('hands back the services, the agents of agents: in file order, and each by id', async () => {
    booted = await bootDeployment(fixture('deployment.yml'), { logLevel: 'silent' })
    expect(booted.agents.map((agent) => [agent.id, agent.model, agent.parent?.id])).to.deep.equal([['main', 'model-a', undefined], ['helper', 'model-b', 'main']])
    expect(booted.agent('helper')).to.equal(booted.agents[1])
    expect(booted.agent('nobody')).to.equal(undefined)
    expect(booted.services.systemPrompt.config.persona).to.equal('You are {{model}}.')
    expect(booted.services.agents?.list().map((agent) => agent.id)).to.deep.equal(['main', 'helper'])
    expect(booted.services.tools?.view().visible.map((tool) => tool.name)).to.deep.equal(['echo'])
    expect(booted.problems).to.deep.equal([])
  })

  it('with check: true, refuses what each agent\'s first step would throw, every failing provider at once, at its row (issue 24)', async () => {
    // Without the option the boot renders nothing: the file loads and the first step throws.
    booted = await bootDeployment(fixture('failing-step.yml'), { logLevel: 'silent' })
    expect((await rejection(booted.agents[0].step())).message).to.equal('prompt section "first" text provider of plugin "failing-step" failed: first provider failed')
    await booted.dispose()
    booted = undefined
    const error = await rejection(bootDeployment(fixture('failing-step.yml'), { logLevel: 'silent', check: true }), DeploymentError)
    expect(error.problems.map((problem) => [problem.code, problem.line, problem.message])).to.deep.equal([
      ['PROMPT_PROVIDER_FAILED', 4, 'prompt section "first" text provider of plugin "failing-step" failed: first provider failed (in the assembly for agent "main")'],
      ['PROMPT_PROVIDER_FAILED', 4, 'prompt context "second" text provider of plugin "failing-step" failed: second provider failed (in the assembly for agent "main")'],
    ])
  })

  it('with check: true, refuses an unknown {{variable}} once for every agent it breaks, and boots a sound file as before', async () => {
    const error = await rejection(bootDeployment(fixture('unknown-variable.yml'), { logLevel: 'silent', check: true }), DeploymentError)
    expect(error.problems.map((problem) => problem.code)).to.deep.equal(['PROMPT_UNKNOWN_VARIABLE'])
    expect(error.problems[0].message).to.match(/unknown prompt variable "\{\{team\}\}".*\(in the assembly for agent "main", agent "helper"\)$/)
    booted = await bootDeployment(fixture('deployment.yml'), { logLevel: 'silent', check: true })
    expect(booted.agents.map((agent) => agent.id)).to.deep.equal(['main', 'helper'])
  })

  it('gives a step request with the system prompt first and the tools of the deployment', async () => {
    booted = await bootDeployment(fixture('deployment.yml'), { logLevel: 'silent' })
    const request = await booted.agents[0].step('hi')
    expect(request.model).to.equal('model-a')
    expect(request.messages.slice(0, 2)).to.deep.equal([{ role: 'system', content: 'You are model-a.' }, { role: 'user', content: 'hi' }])
    expect(request.tools?.map((tool) => tool.function.name)).to.deep.equal(['echo'])
  })

  it('creates agents in code, owned by the host: they see the deployment and go with dispose()', async () => {
    booted = await bootDeployment(fixture('deployment.yml'), { logLevel: 'silent' })
    const extra = await booted.createAgent({ id: 'extra', model: 'model-c', parent: 'main' })
    expect(booted.agent('extra')).to.equal(extra)
    expect(extra.parent).to.equal(booted.agents[0])
    expect((await extra.step()).messages[0]).to.deep.equal({ role: 'system', content: 'You are model-c.' })
    const error = await rejection(booted.createAgent({ id: 'extra', model: 'm' }))
    expect((error as { code?: string }).code).to.equal('AGENT_DUPLICATE_ID')
    await booted.dispose()
    expect([extra.disposed, ...booted.agents.map((agent) => agent.disposed)]).to.deep.equal([true, true, true])
  })

  it('dispose() unloads every row, the host and the agents, and a second call changes nothing', async () => {
    booted = await bootDeployment(fixture('deployment.yml'), { logLevel: 'silent' })
    const { deployment, ctx } = booted
    await booted.dispose()
    expect(deployment.entries.map((entry) => entry.state)).to.deep.equal(deployment.entries.map(() => DISPOSED))
    expect(ctx.fiber.state).to.equal(DISPOSED)
    await booted.dispose()
  })

  it('refuses createAgent() when no row provides the agents service, with a code', async () => {
    booted = await bootDeployment(fixture('no-agents-service.yml'), { logLevel: 'silent' })
    expect([booted.services.agents, booted.services.tools, booted.agents.length]).to.deep.equal([undefined, undefined, 0])
    const error = await rejection(booted.createAgent({ id: 'a', model: 'm' }))
    expect([(error as { code?: string }).code, (error as Error).message]).to.deep.equal([
      'AGENT_NO_AGENTS_SERVICE', 'agents are declared but no plugin provides the agents service: add a row "- name: dsh-agent" under plugins:',
    ])
  })

  it('throws every problem together as one DeploymentError, and leaves nothing loaded', async () => {
    const error = await rejection(bootDeployment(fixture('unknown-preset.yml'), { logLevel: 'silent' }))
    expect(DeploymentError.is(error)).to.equal(true)
    expect((error as DeploymentError).problems.map((problem) => [problem.code, problem.key, problem.message])).to.deep.equal([
      ['AGENT_UNKNOWN_PRESET', 'agents[0].preset', 'agent "main" could not be created: unknown preset "nowhere"; known presets: (none)'],
    ])
  })

  it('with lenientAgents, keeps agent problems out of the load and returns them', async () => {
    booted = await bootDeployment(fixture('unknown-preset.yml'), { logLevel: 'silent', lenientAgents: true })
    expect(booted.agents).to.deep.equal([])
    expect(booted.problems.map((problem) => [problem.code, problem.line, problem.key])).to.deep.equal([['AGENT_UNKNOWN_PRESET', 8, 'agents[0].preset']])
  })

  it('a sub-agent row says how it starts (issue 21): live shares its parent\'s routing key, fresh gets its own under it, no start is live', async () => {
    booted = await bootDeployment(fixture('subagent-starts.yml'), { logLevel: 'silent' })
    expect(booted.agents.map((agent) => [agent.id, agent.parent?.id, agent.start, agent.routingKey])).to.deep.equal([
      ['main', undefined, undefined, 'main'], ['reviewer', 'main', 'live', 'main'], ['scratch', 'main', 'fresh', 'main/scratch'], ['helper', 'reviewer', 'live', 'main'],
    ])
    // The key reaches the requests: a fresh sub-agent's prompt_cache_key is its own.
    const scratch = await booted.agent('scratch')!.stepDetailed('Hi.', { format: 'openai-responses' })
    expect((scratch.request as { prompt_cache_key?: string }).prompt_cache_key).to.equal('main/scratch')
  })

  it('refuses a row\'s start without a parent, a parent start, a parent cycle, an unknown parent or start, each at its row and key (issue 21)', async () => {
    const error = await rejection(bootDeployment(fixture('subagent-starts-bad.yml'), { logLevel: 'silent' }), DeploymentError)
    expect(error.problems.map((problem) => [problem.code, problem.line, problem.key])).to.deep.equal([
      ['AGENT_START_WITHOUT_PARENT', 7, 'agents[0].start'],
      ['AGENT_START_PARENT_ON_ROW', 8, 'agents[1].start'],
      ['AGENT_PARENT_NOT_BEFORE', 9, 'agents[2].parent'],
      ['AGENT_PARENT_NOT_BEFORE', 11, 'agents[4].parent'],
      ['AGENT_INVALID_ROW', 12, 'agents[5].start'],
    ])
    expect(error.problems[0].message).to.contain('$[0].start "fresh" needs a parent: set parent to the id of an agent listed before "main", or leave start out')
    expect(error.problems[1].message).to.contain('$[1].start "parent" cannot start "copy" from "main"\'s latest request')
  })
})

