import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_TIMEOUTS, DeploymentError, loadDeployment, MAX_YAML_DEPTH, type Problem, type RowActivity } from 'dsh-loader'
import { bootApp, rejection } from 'dsh-testing'

/** Plugins that never settle, each written as its own module (one file per test: a module is imported once). */
// Object plugins: Cordis takes a function-declaration `apply` for a class and does not await what it returns.
const PLUGINS = {
  apply: `export default { name: 'stuck-apply', apply() { return new Promise(() => {}) } }\n`,
  // The interval keeps the event loop alive, as a plugin polling something would.
  applyTimer: `export default { name: 'stuck-timer', apply(ctx) { globalThis.dshStuckTimer = setInterval(() => {}, 50); return new Promise(() => {}) } }\n`,
  topLevel: `await new Promise(() => {})\nexport default { apply() {} }\n`,
  dispose: `export default { name: 'stuck-dispose', apply(ctx) { ctx.effect(() => () => new Promise(() => {})) } }\n`,
  fine: `export default { name: 'fine', apply() {} }\n`,
}

describe('dsh-loader: bounded waits (issue 11 item 1)', () => {
  let dir: string
  let count = 0
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-waits-')) })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  /** A deployment with one row per plugin source, each in a fresh module file. */
  function deployment(...sources: Array<[id: string, source: string]>): string {
    const rows = sources.map(([id, source]) => {
      const module = join(dir, `plugin-${count++}.mjs`)
      writeFileSync(module, source)
      return `  - name: ${JSON.stringify(module)}\n    id: ${id}\n`
    })
    const file = join(dir, 'deployment.yml')
    writeFileSync(file, `plugins:\n${rows.join('')}`)
    return file
  }

  async function problems(file: string, timeouts: { import?: number; apply?: number; dispose?: number }): Promise<Problem[]> {
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, file, { env: {}, timeouts }))
    expect(DeploymentError.is(error), String(error)).to.equal(true)
    return [...(error as DeploymentError).problems]
  }

  it('documents its defaults: import 10 s, apply 10 s, dispose 5 s', () => {
    expect(DEFAULT_TIMEOUTS).to.deep.equal({ import: 10_000, apply: 10_000, dispose: 5_000 })
  })

  it('fails a row whose apply returns a promise that never settles, naming the row, the wait and the bound', async () => {
    const file = deployment(['fine', PLUGINS.fine], ['stuck', PLUGINS.apply])
    const [problem, ...rest] = await problems(file, { apply: 100 })
    expect(rest).to.deep.equal([])
    expect(problem).to.include({ code: 'LOADER_APPLY_TIMEOUT', entry: 'plugins[1] (id "stuck")', id: 'stuck', line: 4 })
    expect(problem.message).to.equal('apply did not finish within 100 ms (it returned a promise that never settles?; raise it with --timeout <ms>, or timeouts.apply when loading)')
  })

  it('fails such a row the same way while the plugin keeps the event loop alive with a timer', async () => {
    const file = deployment(['stuck', PLUGINS.applyTimer])
    try {
      const [problem] = await problems(file, { apply: 100 })
      expect(problem).to.include({ code: 'LOADER_APPLY_TIMEOUT', entry: 'plugins[0] (id "stuck")' })
    } finally {
      clearInterval((globalThis as { dshStuckTimer?: NodeJS.Timeout }).dshStuckTimer)
    }
  })

  it('fails a row whose module awaits at top level forever, naming the module and the import wait', async () => {
    const file = deployment(['waits', PLUGINS.topLevel])
    const [problem] = await problems(file, { import: 100 })
    expect(problem).to.include({ code: 'LOADER_IMPORT_TIMEOUT', entry: 'plugins[0] (id "waits")', line: 2 })
    expect(problem.message).to.match(/^cannot load plugin ".*plugin-\d+\.mjs" from .*plugin-\d+\.mjs: importing it did not finish within 100 ms \(a top-level await that never settles\?; raise it with --timeout <ms>, or timeouts.import when loading\)$/)
  })

  it('rejects deployment.dispose() with the row whose disposer never settles, after unloading the others', async () => {
    const file = deployment(['fine', PLUGINS.fine], ['sticky', PLUGINS.dispose])
    const { host } = await bootApp()
    const loaded = await loadDeployment(host, file, { env: {}, timeouts: { dispose: 100 } })
    const error = await rejection(() => loaded.dispose())
    expect(DeploymentError.is(error)).to.equal(true)
    const [problem, ...rest] = (error as DeploymentError).problems
    expect(rest).to.deep.equal([])
    expect(problem).to.include({ code: 'LOADER_DISPOSE_TIMEOUT', entry: 'plugins[1] (id "sticky")', line: 4 })
    expect(problem.message).to.equal('dispose did not finish within 100 ms (a disposer that never settles?; what it registered may stay loaded; raise it with --timeout <ms>, or timeouts.dispose when loading)')
    expect(loaded.entry('fine')!.state).to.equal(4)
  })

  it('adds the row that would not unload to the problems of a failed load', async () => {
    const file = deployment(['sticky', PLUGINS.dispose], ['stuck', PLUGINS.apply])
    const codes = (await problems(file, { apply: 100, dispose: 100 })).map((p) => [p.code, p.id])
    expect(codes).to.deep.equal([['LOADER_APPLY_TIMEOUT', 'stuck'], ['LOADER_DISPOSE_TIMEOUT', 'sticky']])
  })

  it('refuses a timeout that is not a positive number of milliseconds', async () => {
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, deployment(['fine', PLUGINS.fine]), { timeouts: { apply: 0 } }))
    expect(error).to.include({ code: 'LOADER_INVALID_TIMEOUT', message: 'timeouts.apply must be a positive number of milliseconds, received 0' })
  })

  it('tells onRow which row it imports and mounts, in order', async () => {
    const file = deployment(['a', PLUGINS.fine], ['b', PLUGINS.fine])
    const seen: string[] = []
    const { host } = await bootApp()
    const loaded = await loadDeployment(host, file, { env: {}, onRow: (row: RowActivity) => seen.push(`${row.phase} ${row.entry} line ${row.line}`) })
    await loaded.dispose()
    expect(seen).to.deep.equal(['import plugins[0] (id "a") line 2', 'import plugins[1] (id "b") line 4', 'apply plugins[0] (id "a") line 2', 'apply plugins[1] (id "b") line 4'])
  })
})

describe('dsh-loader: YAML nested too deep (issue 11 item 10)', () => {
  let dir: string
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-deep-')) })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  async function only(text: string): Promise<Problem> {
    const file = join(dir, 'deployment.yml')
    writeFileSync(file, text)
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, file, { env: {} }))
    expect(DeploymentError.is(error), String(error)).to.equal(true)
    const list = (error as DeploymentError).problems
    expect(list).to.have.length(1)
    return list[0]
  }
  const message = `the deployment nests mappings and lists more than ${MAX_YAML_DEPTH} levels deep, which is more than the loader reads (a real deployment needs a handful; flatten the structure)`

  it(`refuses a config nested ${MAX_YAML_DEPTH + 44} levels (800 would overflow the stack) with one problem at the first level too deep`, async () => {
    const depth = MAX_YAML_DEPTH + 44
    const problem = await only(`plugins:\n  - name: dsh-system-prompt\n    config: { x: ${'['.repeat(depth)}${']'.repeat(depth)} }\n`)
    // The top mapping is level 1, plugins' list 2, the row 3, the config 4, then one level per "[".
    expect(problem).to.include({ code: 'LOADER_YAML_TOO_DEEP', message, line: 3, column: 18 + (MAX_YAML_DEPTH - 4) })
  })

  it('refuses a file nested thousands of levels, where the YAML parser itself runs out of stack, with the same one problem', async () => {
    const problem = await only(`plugins: ${'['.repeat(5000)}${']'.repeat(5000)}\n`)
    expect(problem.code).to.equal('LOADER_YAML_TOO_DEEP')
    expect(problem.message).to.equal(message)
    expect(problem.line).to.equal(1)
  })

  it(`still reads a config nested exactly ${MAX_YAML_DEPTH} levels`, async () => {
    const inner = MAX_YAML_DEPTH - 4
    const file = join(dir, 'deployment.yml')
    writeFileSync(file, `plugins:\n  - name: dsh-system-prompt\n    config: { x: ${'['.repeat(inner)}${']'.repeat(inner)} }\n`)
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, file, { env: {} }))
    // It loads as far as the plugin's own schema, which refuses x: the depth check let it through.
    expect((error as DeploymentError).problems.map((p) => p.code)).to.not.include('LOADER_YAML_TOO_DEEP')
  })
})
