import { expect } from 'chai'
import { createHash } from 'node:crypto'
import type { Context } from 'cordis'
import type { Agent, ChatRequestMessage } from 'dsh-agent'
import { bootApp, type BootedApp } from 'dsh-testing'

// The helpers every package shares (bootApp, loadPlugin, tool, captureLogs, rejection, thrown) come from
// `dsh-testing`; these are about agents and the requests they send.

/** The default identity line (R-SP-7), as the model reads it. */
export const IDENTITY = 'You are an AI agent powered by the DeepSeek Harness SDK.'
/** The first line of every runtime-context snapshot (R-RC-1). */
export const HEADING = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'
/** The message recorded once when the runtime context empties (R-RC-3). */
export const NONE = 'Current runtime context: none. Earlier runtime-context snapshots no longer apply.'

/**
 * The three services with a prompt of one line (the persona `Be brief.`, no identity line), and agent
 * `a` (model `deepseek-chat`) created through the host: the setup of the step and record specs.
 */
export async function briefAgent(): Promise<BootedApp & { agent: Agent }> {
  const booted = await bootApp({ systemPrompt: { includeHarnessIdentity: false, persona: 'Be brief.' }, tools: true, agents: true })
  return { ...booted, agent: await booted.host.agents.create({ id: 'a', model: 'deepseek-chat' }) }
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
export function expectPrefix(previous: readonly ChatRequestMessage[], next: readonly ChatRequestMessage[]): void {
  expect(next.length).to.be.at.least(previous.length)
  expect(JSON.stringify(next.slice(0, previous.length))).to.equal(JSON.stringify(previous))
}

/** A ledger line's hash: SHA-256 of the previous line's hash and the line's fields as JSON. */
export const sha = (previous: string, fields: object) => createHash('sha256').update(previous + JSON.stringify(fields)).digest('hex')

/** Lines rebuilt from their fields with a chain that is valid again (a careful forger's, or a hand-written, ledger). */
export function rechain(objects: Array<Record<string, unknown>>): string {
  let previous = ''
  return objects.map(({ hash: _, ...fields }) => {
    previous = sha(previous, fields)
    return JSON.stringify({ ...fields, hash: previous }) + '\n'
  }).join('')
}
