// Written for the published change event: it vetoes any section whose name starts with `secret:` by
// throwing from its `system-prompt/change` listener.
import type { Context } from 'cordis'

export const name = 'secret-guard'

export function apply(ctx: Context) {
  ctx.on('system-prompt/change', (event) => {
    if (event.action === 'register' && event.kind === 'section' && event.name?.startsWith('secret:')) {
      throw new Error(`secrets stay out of the prompt (${event.name})`)
    }
  })
}
