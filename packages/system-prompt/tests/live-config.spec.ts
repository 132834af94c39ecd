import { expect } from 'chai'
import { Context } from 'cordis'
import SystemPrompt, { type PromptChangeEvent } from 'dsh-system-prompt'
import { promptText } from 'dsh-testing'

/** A root app with the service mounted as a plugin, a dependent plugin, and the change events from then on. */
async function mounted(config: object) {
  const app = new Context()
  const fiber = app.plugin(SystemPrompt, config)
  await fiber
  let applied = 0
  await app.plugin({ name: 'dependent', inject: ['systemPrompt'], apply: () => { applied++ } })
  const changes: string[] = []
  app.on('system-prompt/change', (event: PromptChangeEvent) => { changes.push(`${event.action} ${event.name}`) })
  return { app, fiber, changes, applied: () => applied }
}

describe('dsh-system-prompt: a replaced config (fiber.update)', () => {
  it('a new identity, persona or suffix applies in place: one section goes and comes back, nothing restarts', async () => {
    const { app, fiber, changes, applied } = await mounted({ persona: 'You are Dee.', personaSuffix: 'Bye.' })
    const config = app.systemPrompt.config
    await fiber.update({ persona: 'You are Kay.', personaSuffix: 'Bye.', identity: 'Harness K.' })
    expect(changes).to.deep.equal(['dispose harness:identity', 'register harness:identity', 'dispose deployment:persona', 'register deployment:persona'])
    expect(applied()).to.equal(1)
    expect(app.systemPrompt.config === config, 'the same service instance').to.equal(true)
    expect(app.systemPrompt.config).to.include({ persona: 'You are Kay.', identity: 'Harness K.' })
    expect(fiber.config.persona).to.equal('You are Kay.')
    expect(await promptText(app)).to.equal('Harness K.\n\nYou are Kay.\n\nBye.')
  })

  it('the same texts change nothing; any other key restarts the service and what injects it, as Cordis does', async () => {
    const { app, fiber, changes, applied } = await mounted({ persona: 'You are Dee.' })
    await fiber.update({ persona: 'You are Dee.' })
    expect([changes, applied()]).to.deep.equal([[], 1])
    await fiber.update({ persona: 'You are Dee.', includeHarnessIdentity: false })
    expect(applied()).to.equal(2)
    expect(await promptText(app)).to.equal('You are Dee.')
  })
})
