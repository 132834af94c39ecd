import { expect } from 'chai'
import { Context } from 'cordis'
import { createScope, type ScopeHandle, type ScopeKey } from 'dsh-scope'
import { renderPrompt, SystemPrompt, type Config as PromptConfig } from 'dsh-system-prompt'
import { ToolRegistry, type ToolChangeEvent, type ToolDefinition } from 'dsh-tools'

/** A fresh app with `systemPrompt` (no identity line, unless `config` says otherwise) and `tools` loaded. */
export async function boot(config: Partial<PromptConfig> = {}): Promise<Context> {
  const app = new Context()
  await app.plugin(SystemPrompt, { includeHarnessIdentity: false, ...config })
  await app.plugin(ToolRegistry)
  return app
}

/** Loads a plugin injecting `systemPrompt` and `tools`, and resolves to its context once it is active. */
export async function pluginContext(parent: Context, name: string): Promise<Context> {
  let captured: Context | undefined
  await parent.plugin({ name, inject: ['systemPrompt', 'tools'], apply(ctx: Context) { captured = ctx } })
  expect(captured, `plugin ${name} was not applied`).to.not.equal(undefined)
  return captured!
}

/** A scope minted from `host` (a plugin context injecting the services), keyed by a fresh object. */
export function scope(host: Context, label: string, parent?: ScopeKey): ScopeHandle {
  return createScope(host, { label }, { label, parent })
}

/** A JSON Schema object with one required string property. */
export function objectSchema(property = 'path'): Record<string, unknown> {
  return { type: 'object', properties: { [property]: { type: 'string' } }, required: [property] }
}

/** A complete tool definition named `name`. */
export function tool(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, description: `The ${name} tool.`, parameters: objectSchema(), ...extra }
}

/** The names of the tools an assembly for `key` offers. */
export async function toolNames(app: Context, key?: ScopeKey): Promise<string[]> {
  return (await app.systemPrompt.assemble({ scope: key })).tools.map((t) => t.name)
}

/** The system prompt an assembly for `key` renders. */
export async function render(app: Context, key?: ScopeKey): Promise<string> {
  return renderPrompt(await app.systemPrompt.assemble({ scope: key }))
}

/** Both services' bookkeeping, to prove a failed call left nothing behind. */
export function stats(app: Context): { tools: ReturnType<ToolRegistry['stats']>; prompt: ReturnType<SystemPrompt['stats']> } {
  return { tools: app.tools.stats(), prompt: app.systemPrompt.stats() }
}

/** Records every `tools/change` event of `app` from now on, as `kind action name`. */
export function recordToolChanges(app: Context): string[] {
  const events: string[] = []
  app.on('tools/change', (event: ToolChangeEvent) => {
    events.push(`${event.kind} ${event.action}${event.name === undefined ? '' : ' ' + event.name}`)
  })
  return events
}

/** Calls `fn`, fails the test if it returns, and returns the thrown error. */
export function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (error) {
    expect(error).to.be.instanceOf(Error)
    return error as Error
  }
  expect.fail('expected a throw')
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
