// Written with the published package's tests in mind: it keeps the sections of each assembly it sees
// (an audit log), compared with published literals through publishedAssembly().
import type { Context } from 'cordis'
import { publishedAssembly, type PublishedAssembly } from 'dsh-system-prompt'

export const name = 'section-snapshot'

export const seen: PublishedAssembly[] = []

export function apply(ctx: Context) {
  ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
    const result = await next(assembly)
    seen.push(publishedAssembly(result))
    return result
  })
}
