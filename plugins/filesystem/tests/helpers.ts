import { expect } from 'chai'
import { Context } from 'cordis'
import Agents from 'dsh-agent'
import SystemPrompt from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'

/** A real app with the prompt (no identity line), the tool registry and the agents service. */
export async function boot(): Promise<Context> {
  const app = new Context()
  await app.plugin(SystemPrompt, { includeHarnessIdentity: false })
  await app.plugin(ToolRegistry)
  await app.plugin(Agents)
  return app
}

/** A plugin context injecting the services agents and tests need (agents are created from it). */
export async function host(app: Context, name = 'host'): Promise<Context> {
  let captured: Context | undefined
  await app.plugin({ name, inject: ['systemPrompt', 'tools', 'agents'], apply(ctx: Context) { captured = ctx } })
  expect(captured, `plugin ${name} was not applied`).to.not.equal(undefined)
  return captured!
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

/** The names of the assembly's sections that a plugin registered (the persona pieces left out). */
export function ownSections(sections: ReadonlyArray<{ name: string }>): string[] {
  return sections.map((s) => s.name).filter((n) => !n.startsWith('deployment:persona'))
}
