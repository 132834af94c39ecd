import { expect } from 'chai'
import { Context } from 'cordis'
import Agents from 'dsh-agent'
import SystemPrompt, { renderContextSnapshot, renderPrompt, type AssembleContext } from 'dsh-system-prompt'

/** A real app with the prompt (no identity line) and the agents service. */
export async function boot(): Promise<Context> {
  const app = new Context()
  await app.plugin(SystemPrompt, { includeHarnessIdentity: false })
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

/** Assembles and renders the runtime-context snapshot. */
export async function snapshot(app: Context, context?: AssembleContext): Promise<string> {
  return renderContextSnapshot(await app.systemPrompt.assemble(context))
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
