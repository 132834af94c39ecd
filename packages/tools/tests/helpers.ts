import type { Context } from 'cordis'
import type { ScopeKey } from 'dsh-scope'
import type { SystemPrompt } from 'dsh-system-prompt'
import type { ToolRegistry } from 'dsh-tools'

// The helpers every package shares (bootApp, pluginContext, scope, tool, objectSchema, promptText,
// recordChanges, rejection, thrown) come from `dsh-testing`; these read the two services of this package.

/** The names of the tools an assembly for `key` offers. */
export async function toolNames(app: Context, key?: ScopeKey): Promise<string[]> {
  return (await app.systemPrompt.assemble({ scope: key })).tools.map((t) => t.name)
}

/** Both services' bookkeeping, to prove a failed call left nothing behind. */
export function stats(app: Context): { tools: ReturnType<ToolRegistry['stats']>; prompt: ReturnType<SystemPrompt['stats']> } {
  return { tools: app.tools.stats(), prompt: app.systemPrompt.stats() }
}
