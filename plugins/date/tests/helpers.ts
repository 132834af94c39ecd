import { expect } from 'chai'
import { Context } from 'cordis'
import Agents from 'dsh-agent'
import SystemPrompt, { renderPrompt, type AssembleContext } from 'dsh-system-prompt'

/**
 * A real app with the prompt (no identity line, `persona` as given) and the agents service. The default
 * persona shows the date, as a deployment would reference it.
 */
export async function boot(persona = 'Today is {{date}}.'): Promise<Context> {
  const app = new Context()
  await app.plugin(SystemPrompt, { includeHarnessIdentity: false, persona })
  await app.plugin(Agents)
  return app
}

/** A plugin context injecting the services agents and tests need (agents are created from it). */
export async function host(app: Context, name = 'host'): Promise<Context> {
  let captured: Context | undefined
  await app.plugin({ name, inject: ['systemPrompt', 'agents'], apply(ctx: Context) { captured = ctx } })
  expect(captured, `plugin ${name} was not applied`).to.not.equal(undefined)
  return captured!
}

/** Assembles and renders the system prompt. */
export async function prompt(app: Context, context?: AssembleContext): Promise<string> {
  return renderPrompt(await app.systemPrompt.assemble(context))
}

/** Awaits `promise`, fails the test if it resolves, and returns the rejection reason. */
export async function rejection(promise: PromiseLike<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    expect(error).to.be.instanceOf(Error)
    return error as Error
  }
  expect.fail('expected a rejection')
}
