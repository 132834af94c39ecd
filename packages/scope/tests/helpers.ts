import { Context } from 'cordis'
import { createScope, ownEffect } from 'dsh-scope'
import { captureLogs, loadPlugin, tick } from 'dsh-testing'

// Events used by these tests, declared once so `ctx.on` and `ctx.emit` type-check with plain listeners.
// The shared helpers (bootApp, loadPlugin, pluginContext, thrown, tick) come from `dsh-testing`.
declare module 'cordis' {
  interface Events {
    'test/scoped'(...args: any[]): any
    'test/plain'(...args: any[]): any
    'test/admission'(...args: any[]): any
  }
}

/**
 * A scope labelled `label`, whose one registration throws `error` when torn down, ends with its creating
 * plugin (so nobody awaits its disposal). Returns the log lines of the app and the unhandled rejections
 * seen until things settled.
 */
export async function scopeEndingWithCreator(label: string, error: unknown): Promise<{ lines: string[]; unhandled: unknown[] }> {
  const app = new Context()
  const logs = captureLogs(app)
  const creator = await loadPlugin(app, 'creator')
  const scope = createScope(creator.ctx, {}, { label })
  ownEffect(scope.ctx, () => { throw error })
  const unhandled: unknown[] = []
  const listener = (reason: unknown) => { unhandled.push(reason) }
  process.on('unhandledRejection', listener)
  try {
    await creator.dispose()
    await tick(10)
  } finally {
    process.off('unhandledRejection', listener)
  }
  return { lines: logs.map((log) => log.line), unhandled }
}
