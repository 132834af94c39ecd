import { expect } from 'chai'
import { Context } from 'cordis'
import { createScope, type ScopeHandle, type ScopeKey } from 'dsh-scope'
import {
  renderContextSnapshot, renderPrompt, SystemPrompt, type AssembleContext, type Config, type PromptAssembly,
  type PromptChangeEvent,
} from 'dsh-system-prompt'

/** A deployment without the identity line, so assemblies hold only what a test registers (plus the persona pieces). */
export const BARE: Partial<Config> = { includeHarnessIdentity: false }

/** The two always-registered persona pieces (empty by default, dropped at render). */
export const PERSONA_PIECES = ['deployment:persona', 'deployment:persona-suffix']

/** A fresh app with the `systemPrompt` service loaded with `config`. */
export async function boot(config: Partial<Config> = BARE): Promise<Context> {
  const app = new Context()
  await app.plugin(SystemPrompt, config)
  return app
}

/** Loads a plugin that injects `inject` and resolves to its context once it is active. */
export async function pluginContext(parent: Context, name: string, inject: string[] = ['systemPrompt']): Promise<Context> {
  let captured: Context | undefined
  await parent.plugin({ name, inject, apply(ctx: Context) { captured = ctx } })
  expect(captured, `plugin ${name} was not applied`).to.not.equal(undefined)
  return captured!
}

/** A scope minted from `host` (a plugin context injecting `systemPrompt`), keyed by a fresh object. */
export function scope(host: Context, label: string, parent?: ScopeKey): ScopeHandle {
  return createScope(host, { label }, { label, parent })
}

/** Records every `system-prompt/change` event of `app` from now on. */
export function recordChanges(app: Context): PromptChangeEvent[] {
  const events: PromptChangeEvent[] = []
  app.on('system-prompt/change', (event) => { events.push(event) })
  return events
}

/** `kind action name` of each change event, for compact comparisons. */
export function describeChanges(events: readonly PromptChangeEvent[]): string[] {
  return events.map((e) => `${e.kind} ${e.action}${e.name === undefined ? '' : ' ' + e.name}`)
}

export const sectionNames = (assembly: PromptAssembly) => assembly.sections.map((s) => s.name)
export const contextNames = (assembly: PromptAssembly) => assembly.contexts.map((c) => c.name)
export const toolNames = (assembly: PromptAssembly) => assembly.tools.map((t) => t.name)

/** Names of the sections a test registered: the assembly's section names minus the persona pieces. */
export const ownSections = (assembly: PromptAssembly) => sectionNames(assembly).filter((n) => !PERSONA_PIECES.includes(n))

/** `name=text` of each section, in assembly order. */
export const sectionTexts = (assembly: PromptAssembly) => assembly.sections.map((s) => `${s.name}=${s.text}`)

/** Assembles through `ctx` and renders the system prompt. */
export async function render(ctx: Context, context?: AssembleContext): Promise<string> {
  return renderPrompt(await ctx.systemPrompt.assemble(context))
}

/** Assembles through `ctx` and renders the runtime-context snapshot. */
export async function snapshot(ctx: Context, context?: AssembleContext): Promise<string> {
  return renderContextSnapshot(await ctx.systemPrompt.assemble(context))
}

/** Awaits `promise`, fails the test if it resolves, and returns the rejection reason. */
export async function rejection(promise: PromiseLike<unknown>): Promise<Error> {
  let value: unknown
  try {
    value = await promise
  } catch (error) {
    expect(error).to.be.instanceOf(Error)
    return error as Error
  }
  expect.fail(`expected a rejection, got ${JSON.stringify(value)?.slice(0, 200)}`)
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

/** A counter-backed text provider: how many times the service evaluated it. */
export function counted(text: string): { (context?: AssembleContext): string; calls: number } {
  const provider = Object.assign(() => { provider.calls++; return text }, { calls: 0 })
  return provider
}
