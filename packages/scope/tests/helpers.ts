import { Context } from 'cordis'

/** Loads a plugin that injects `inject` and resolves to its context once it is active. */
export async function pluginContext(parent: Context, name: string, inject: string[] = []): Promise<Context> {
  let captured: Context | undefined
  await parent.plugin({ name, inject, apply(ctx: Context) { captured = ctx } })
  return captured!
}
