// Written for the published package: it registers its `{{branch}}` variable the first time its
// section's text is asked for (lazily, during the first assembly), and that assembly renders it.
import type { Context } from 'cordis'

export const name = 'lazy-variable'
export const inject = ['systemPrompt']

export function apply(ctx: Context) {
  let registered = false
  ctx.systemPrompt.section({
    name: 'git:branch',
    order: 700,
    text: () => {
      if (!registered) {
        registered = true
        ctx.systemPrompt.variable('branch', () => 'main')
      }
      return 'You are on branch {{branch}}.'
    },
  })
}
