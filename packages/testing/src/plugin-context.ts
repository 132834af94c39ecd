/**
 * Loading a bare plugin to get a real plugin context: what tests register through, create agents from,
 * or dispose to prove that nothing outlives the context that made it.
 * @module
 */
import type { Context } from 'cordis'
import { pluginNotApplied } from './errors.js'

/** A loaded plugin: its context and the disposer of its fiber. */
export interface LoadedPlugin {
  /** The plugin's context (it injects what the plugin was loaded with). */
  ctx: Context
  /** Disposes the plugin's fiber; resolves once everything it registered is gone. */
  dispose(): Promise<void>
}

/**
 * Loads an empty plugin named `name` under `parent`, injecting `inject`, and resolves once it is active.
 * Throws when the plugin was not applied (a service in `inject` is not loaded).
 */
export async function loadPlugin(parent: Context, name: string, inject: readonly string[] = []): Promise<LoadedPlugin> {
  let captured: Context | undefined
  const fiber = await parent.plugin({ name, inject: [...inject], apply(ctx: Context) { captured = ctx } })
  if (captured === undefined) throw pluginNotApplied(name, inject)
  return { ctx: captured, dispose: async () => { await fiber.dispose() } }
}

/** Loads a plugin like {@link loadPlugin} and resolves to its context (for tests that never dispose it). */
export async function pluginContext(parent: Context, name: string, inject: readonly string[] = []): Promise<Context> {
  return (await loadPlugin(parent, name, inject)).ctx
}
