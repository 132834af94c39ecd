/**
 * The runnable example behind the README's first command (until the `dsh-prompt` CLI exists): a Cordis
 * app with the `systemPrompt` service and two plugins, one contributing global sections, one giving a
 * single agent scope its own persona. It assembles for that agent and for the deployment, and prints
 * the system prompt and the runtime-context snapshot exactly as a request would carry them.
 */
import { Context } from 'cordis'
import { createScope } from 'dsh-scope'
import SystemPrompt, { PERSONA_SECTION, renderContextSnapshot, renderPrompt } from 'dsh-system-prompt'

/** A global plugin: a work-mode policy at its named placement, a variable and a runtime context. */
const PlanPolicy = {
  name: 'plan-policy',
  inject: ['systemPrompt'],
  apply(ctx: Context) {
    ctx.systemPrompt.variable('cwd', () => '/srv/project')
    ctx.systemPrompt.section({
      name: 'plan:policy',
      order: ctx.systemPrompt.getSectionOrder('plan:policy'),
      text: 'Plan before you edit: list the files you will touch, then work through them one at a time.',
    })
    ctx.systemPrompt.context({
      name: 'sandbox:policy',
      order: ctx.systemPrompt.getContextOrder('sandbox:policy'),
      text: 'Sandbox: workspace-write. Writable root: {{cwd}}.',
    })
  },
}

/** An agent-scoped plugin: one agent gets its own persona; every other scope keeps the deployment's. */
const ReviewerAgent = {
  name: 'reviewer-agent',
  inject: ['systemPrompt'],
  apply(ctx: Context) {
    const agent = createScope(ctx, { id: 'reviewer' }, { label: 'agent:reviewer' })
    agent.ctx.systemPrompt.section({
      name: PERSONA_SECTION,
      order: ctx.systemPrompt.getSectionOrder(PERSONA_SECTION),
      text: 'You review changes for correctness. Working folder: {{cwd}}.',
    })
    reviewer.key = agent.key
  },
}
const reviewer: { key?: object } = {}

const app = new Context()
await app.plugin(SystemPrompt, { persona: 'You are a careful coding assistant.' })
await app.plugin(PlanPolicy)
await app.plugin(ReviewerAgent)

for (const [title, scope] of [['agent "reviewer"', reviewer.key], ['the deployment (no scope)', undefined]] as const) {
  const assembly = await app.systemPrompt.assemble({ scope })
  console.log(`=== system prompt for ${title} ===`)
  console.log(renderPrompt(assembly))
  console.log(`=== runtime-context snapshot for ${title} ===`)
  console.log(renderContextSnapshot(assembly))
  console.log()
}
