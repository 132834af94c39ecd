import { expect } from 'chai'
import { Context } from 'cordis'
import { SystemPrompt, type Config as PromptConfig } from 'dsh-system-prompt'
import { ToolRegistry, type ToolDefinition } from 'dsh-tools'
import { Agents, type ChatMessage, type Config as AgentsConfig } from 'dsh-agent'

/** The default identity line (SPEC §3.1), as the model reads it. */
export const IDENTITY = 'You are an AI agent powered by the DeepSeek Harness SDK.'
/** The first line of every runtime-context snapshot (SPEC §6). */
export const HEADING = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'
/** The message recorded once when the runtime context empties (SPEC §6). */
export const NONE = 'Current runtime context: none. Earlier runtime-context snapshots no longer apply.'

/** A fresh app with `systemPrompt`, `tools` and `agents` loaded with the given configs. */
export async function boot(prompt: Partial<PromptConfig> = {}, agents: Partial<AgentsConfig> = {}): Promise<Context> {
  const app = new Context()
  await app.plugin(SystemPrompt, prompt)
  await app.plugin(ToolRegistry)
  await app.plugin(Agents, agents)
  return app
}

/** A loaded plugin injecting all three services: its context and the disposer of its fiber. */
export interface Host {
  ctx: Context
  dispose(): Promise<void>
}

/** Loads a plugin that injects `systemPrompt`, `tools` and `agents` (agents are created through it). */
export async function host(app: Context, name = 'host'): Promise<Host> {
  let captured: Context | undefined
  const fiber = app.plugin({ name, inject: ['systemPrompt', 'tools', 'agents'], apply(ctx: Context) { captured = ctx } })
  await fiber
  expect(captured, `plugin ${name} was not applied`).to.not.equal(undefined)
  return { ctx: captured!, dispose: async () => { await (fiber as unknown as { dispose(): unknown }).dispose() } }
}

/** A tool definition with a one-string-property schema. */
export function tool(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    ...extra,
  }
}

/** The bookkeeping of the services and of the agents, to compare against a baseline. */
export function stats(app: Context) {
  return {
    prompt: app.systemPrompt.stats(),
    tools: app.tools.stats(),
    agents: app.agents.list().map((agent) => agent.id),
    presets: app.agents.presetIds(),
  }
}

/** Asserts that `next` starts with `previous`, byte for byte (compared as JSON text). */
export function expectPrefix(previous: readonly ChatMessage[], next: readonly ChatMessage[]): void {
  expect(next.length).to.be.at.least(previous.length)
  expect(JSON.stringify(next.slice(0, previous.length))).to.equal(JSON.stringify(previous))
}

/** Every debug message the `dsh-agent` logger emits from now on, as its text. */
export function captureAgentDebug(app: Context): string[] {
  const lines: string[] = []
  app.logger.exporter({
    levels: { default: 3 },
    export(message) {
      if (message.name === 'dsh-agent' && message.type === 'debug') lines.push(String(message.args[0]))
    },
  })
  return lines
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
  let value: unknown
  try {
    value = await promise
  } catch (error) {
    expect(error).to.be.instanceOf(Error)
    return error as Error
  }
  expect.fail(`expected a rejection, got ${JSON.stringify(value)?.slice(0, 200)}`)
}
