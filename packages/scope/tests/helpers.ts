// Events used by these tests, declared once so `ctx.on` and `ctx.emit` type-check with plain listeners.
// The shared helpers (bootApp, loadPlugin, pluginContext, thrown, tick) come from `dsh-testing`.
declare module 'cordis' {
  interface Events {
    'test/scoped'(...args: any[]): any
    'test/plain'(...args: any[]): any
    'test/admission'(...args: any[]): any
  }
}

export {}
