// Written for the published agent shape: it reads `agent.session.header.cwd`, `agent.session.id` and
// `agent.options.model` / `.provider` from the assembly's agent.
import type { Context } from 'cordis'

export const name = 'workspace-notes'
export const inject = ['systemPrompt']

export function apply(ctx: Context) {
  ctx.systemPrompt.variable('workspace', (context) => context.agent?.session.header.cwd)
  ctx.systemPrompt.variable('session_id', (context) => context.agent?.session.id)
  ctx.systemPrompt.variable('route', (context) => context.agent && `${context.agent.options.model} via ${context.agent.options.provider}`)
  ctx.systemPrompt.section({ name: 'workspace-notes', order: 500, text: 'Workspace {{workspace}}, session {{session_id}}, {{route}}.' })
}
