// Written for the published lifecycle: it refreshes its state on `agent/session-start` ({ agent, source })
// and contributes an agent-scoped section from it.
import type { Context } from 'cordis'

export const name = 'workflow-state'
export const inject = ['systemPrompt']

export const heard: string[] = []

export function apply(ctx: Context) {
  ctx.on('agent/session-start', ({ agent, source }) => {
    heard.push(`${agent.id}:${source}`)
    agent.ctx.systemPrompt.section({ name: 'workflow-state', order: 600, text: `Workflow state: fresh (${source}).` })
  })
}
