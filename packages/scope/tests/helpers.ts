import { Context } from 'cordis'

// Events used by these tests, declared once so `ctx.on` and `ctx.emit` type-check with plain listeners.
declare module 'cordis' {
  interface Events {
    'test/scoped'(...args: any[]): any
    'test/plain'(...args: any[]): any
    'test/admission'(...args: any[]): any
  }
}

/** Loads a plugin that injects `inject` and resolves to its context once it is active. */
export async function pluginContext(parent: Context, name: string, inject: string[] = []): Promise<Context> {
  let captured: Context | undefined
  await parent.plugin({ name, inject, apply(ctx: Context) { captured = ctx } })
  return captured!
}

/** A loaded plugin: its context and the disposer of its fiber (resolves when everything is gone). */
export interface LoadedPlugin {
  ctx: Context
  dispose(): Promise<void>
}

/** Loads a plugin like {@link pluginContext}, and keeps the way to dispose it. */
export async function loadPlugin(parent: Context, name: string, inject: string[] = []): Promise<LoadedPlugin> {
  let captured: Context | undefined
  const fiber = parent.plugin({ name, inject, apply(ctx: Context) { captured = ctx } })
  await fiber
  const disposable = fiber as unknown as { dispose(): unknown }
  return { ctx: captured!, dispose: async () => { await disposable.dispose() } }
}

/** A fresh app with one active host plugin. */
export async function appWithHost(name = 'host'): Promise<{ app: Context; host: Context }> {
  const app = new Context()
  const host = await pluginContext(app, name)
  return { app, host }
}

/** Resolves after pending microtasks and one macrotask turn. */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Returns the error `fn` throws synchronously (fails the test when it does not throw). */
export function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the call to throw')
}
