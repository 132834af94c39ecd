// Written for the published package's older bands: its tool guidance at 150 (tool guidance was 100–199
// there; in dsh it is 1000–1999, and 150 renders before the policies).
import type { Context } from 'cordis'

export const name = 'legacy-guidance'
export const inject = ['systemPrompt']

export function apply(ctx: Context) {
  ctx.systemPrompt.section({ name: 'tool:legacy', order: 150, text: 'Use legacy with care.' })
  ctx.systemPrompt.section({ name: 'tool:legacy-extra', order: 151, text: 'Legacy takes one path.' })
}
