import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { assertBuilt, cli, runInProcess } from './helpers.js'

const run = runInProcess

/** The one JSON document of a run's stdout (it fails the test when stdout is not exactly one). */
function document(stdout: string): { ok: boolean; exitCode?: number; error?: { kind: string; code: string; message: string } } {
  return JSON.parse(stdout)
}

/** Plugin sources; each test writes the ones it needs into fresh files (a module is imported once per process). */
const SOURCE = {
  neverApply: `export default { name: 'stuck', apply() { return new Promise(() => {}) } }\n`,
  neverListener: `export default { name: 'stuck-listener', inject: ['systemPrompt'], apply(ctx) { ctx.on('system-prompt/assemble', () => new Promise(() => {})) } }\n`,
  passingListener: `export default { name: 'pass-through', inject: ['systemPrompt'], apply(ctx) { ctx.on('system-prompt/assemble', (a, c, next) => next(a)) } }\n`,
  neverImport: `await new Promise(() => {})\nexport default { apply() {} }\n`,
  neverDispose: `export default { name: 'sticky', apply(ctx) { ctx.effect(() => () => new Promise(() => {})) } }\n`,
  chatty: `console.log('hello at import')\nexport default { name: 'chatty', inject: ['systemPrompt'], apply(ctx) {
  console.log('hello at apply')
  process.stdout.write('partial ')
  ctx.systemPrompt.section({ name: 'chatty', order: 100, text: () => { console.log('hello from a provider'); return 'Chatty text.' } })
} }\n`,
  timerThrow: `export default { name: 'late-thrower', apply() { setTimeout(() => { throw new TypeError('boom from a timer') }, 0); return new Promise((resolve) => setTimeout(resolve, 20)) } }\n`,
  rejection: `export default { name: 'late-rejecter', apply() { Promise.reject(new RangeError('nobody catches me')) } }\n`,
  exitImport: `process.exit(0)\nexport default { apply() {} }\n`,
  exitApply: `export default { name: 'quitter', apply() { process.exit(0) } }\n`,
  exitSwallowed: `export default { name: 'swallower', apply() { try { process.exit(0) } catch {} } }\n`,
  exitProvider: `export default { name: 'provider-quitter', inject: ['systemPrompt'], apply(ctx) {
  ctx.systemPrompt.section({ name: 'quits', order: 100, text: () => { process.exit(0) } })
} }\n`,
}

/**
 * The --timeout of the tests whose wait never settles. It bounds every import, apply and assembly of the
 * run, so it must also leave room for the waits that do settle on a busy machine (200 ms did not: a
 * fresh module's import sometimes took longer, and the run failed on the import, not on the wait tested).
 */
const BOUND = '1000'

describe('dsh-prompt: the CLI stays in charge of hostile plugins (issue 11 items 1-4)', function () {
  this.timeout(30000)
  let dir: string
  let count = 0
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-guard-')) })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  /** A deployment: the prompt and agents services, then one row per plugin source (id = key), and agent "main" unless `agents` is false. */
  function deployment(plugins: Array<keyof typeof SOURCE>, agents = true): string {
    const rows = plugins.map((key) => {
      const module = join(dir, `${key}-${count++}.mjs`)
      writeFileSync(module, SOURCE[key])
      return `  - name: ${JSON.stringify(module)}\n    id: ${key}\n`
    })
    const file = join(dir, 'deployment.yml')
    writeFileSync(file, `plugins:\n  - name: dsh-system-prompt\n  - name: dsh-agent\n${rows.join('')}${agents ? 'agents:\n  - { id: main, model: deepseek-chat }\n' : ''}`)
    return file
  }

  describe('bounded waits', () => {
    it('render fails an apply that never settles with the loader problem naming the row, exit 1', async () => {
      const r = await run(['render', deployment(['neverApply']), '--timeout', BOUND])
      expect(r.code).to.equal(1)
      expect(r.stdout).to.equal('')
      expect(r.stderr).to.match(new RegExp(String.raw`deployment\.yml:4:5: plugins\[2\] \(id "neverApply"\): apply did not finish within ${BOUND} ms \(it returned a promise that never settles\?; raise it with --timeout <ms>, or timeouts\.apply when loading\)\n`))
    })

    it('check --json reports a module whose top-level await never settles as one finding in one document', async () => {
      const r = await run(['check', deployment(['neverImport']), '--timeout', BOUND, '--json'])
      expect(r.code).to.equal(1)
      const doc = document(r.stdout) as unknown as { problems: Array<{ code: string; id: string }> }
      expect(doc.problems.map((p) => [p.code, p.id])).to.deep.equal([['LOADER_IMPORT_TIMEOUT', 'neverImport']])
    })

    it('render fails an assembly whose listener never settles, naming the agent and the listener\'s plugin', async () => {
      const r = await run(['render', deployment(['neverListener']), '--timeout', BOUND, '--json'])
      expect(r.code).to.equal(1)
      const { error } = document(r.stdout)
      expect(error).to.deep.include({ kind: 'render', code: 'CLI_ASSEMBLY_TIMEOUT' })
      expect(error!.message).to.match(new RegExp(String.raw`^the assembly for agent "main" \(\/.*\/deployment\.yml\) did not finish within ${BOUND} ms: the system-prompt\/assemble listener of "neverListener" has not returned \(raise the limit with --timeout <ms>\)$`))
    })

    it('with several listeners, names the one the assembly waits on', async () => {
      const r = await run(['render', deployment(['passingListener', 'neverListener']), '--timeout', BOUND, '--json'])
      expect(r.code).to.equal(1)
      expect(document(r.stdout).error!.message).to.match(new RegExp(String.raw`did not finish within ${BOUND} ms: the system-prompt\/assemble listener of "neverListener" has not returned`))
    })

    it('explain, diff and render --request are bounded the same way (diff exits 2: trouble)', async () => {
      const file = deployment(['neverListener'])
      const explain = await run(['explain', file, '--timeout', BOUND])
      const request = await run(['render', file, '--request', '--timeout', BOUND])
      const diff = await run(['diff', file, file, '--timeout', BOUND])
      expect([explain.code, request.code, diff.code]).to.deep.equal([1, 1, 2])
      for (const r of [explain, request, diff]) expect(r.stderr).to.match(new RegExp(String.raw`error: the assembly for agent "main" \(.*deployment\.yml\) did not finish within ${BOUND} ms`))
    })

    it('check places an assembly that never settles at the listener plugin\'s row', async () => {
      const r = await run(['check', deployment(['neverListener'], false), '--timeout', BOUND])
      expect(r.code).to.equal(1)
      expect(r.stdout.split('\n')[0]).to.match(new RegExp(String.raw`deployment\.yml:4:5: the deployment: the assembly for the deployment \(.*deployment\.yml\) did not finish within ${BOUND} ms: the system-prompt\/assemble listener of "neverListener" has not returned`))
    })

    it('fails the command when a row\'s disposer never settles, naming the row', async () => {
      const r = await run(['render', deployment(['neverDispose']), '--timeout', BOUND, '--json'])
      expect(r.code).to.equal(1)
      const doc = document(r.stdout) as unknown as { error: { code: string; problems: Array<{ code: string; id: string }> } }
      expect(doc.error.code).to.equal('LOADER_DEPLOYMENT_FAILED')
      expect(doc.error.problems.map((p) => [p.code, p.id])).to.deep.equal([['LOADER_DISPOSE_TIMEOUT', 'neverDispose']])
    })

    it('refuses a --timeout that is not a whole number of milliseconds (usage, exit 2)', async () => {
      const r = await run(['render', deployment([]), '--timeout', '1.5'])
      expect(r.code).to.equal(2)
      expect(r.stderr).to.include('--timeout must be a whole number of milliseconds from 1 to 2147483647, received "1.5"')
    })
  })

  describe('plugin output', () => {
    for (const args of [['check', '--json'], ['render', '--json'], ['render', '--request']]) {
      it(`${args.join(' ')} keeps stdout one JSON document while a plugin logs at import, apply and in a provider`, async () => {
        const r = await run([args[0], deployment(['chatty']), ...args.slice(1)])
        expect(r.code).to.equal(0)
        expect(() => JSON.parse(r.stdout)).not.to.throw()
        expect(r.stdout).not.to.include('hello')
        const marked = r.stderr.split('\n').filter((line) => line.startsWith('[plugin output'))
        expect(marked).to.include.members([
          '[plugin output: plugins[2] (id "chatty"), line 4] hello at import',
          '[plugin output: plugins[2] (id "chatty"), line 4] hello at apply',
          // The apply's write has no newline: the provider's line continues it, marked once.
          '[plugin output: plugins[2] (id "chatty"), line 4] partial hello from a provider',
        ])
      })
    }

    it('puts process.stdout.write back after the command', async () => {
      const write = process.stdout.write
      await run(['render', deployment(['chatty']), '--json'])
      expect(process.stdout.write).to.equal(write)
      expect(Object.hasOwn(process.stdout, 'write')).to.equal(false)
    })
  })

  describe('late failures', () => {
    it('an exception thrown in a plugin\'s timer fails the command with its description, exit 1, no stack, one JSON document', async () => {
      const r = await run(['render', deployment(['timerThrow']), '--json'])
      expect(r.code).to.equal(1)
      const { error } = document(r.stdout)
      expect(error).to.deep.include({ code: 'CLI_UNCAUGHT_EXCEPTION' })
      expect(error!.message).to.equal('an exception nobody caught was thrown by plugins[2] (id "timerThrow"), line 4 while the command ran: TypeError: boom from a timer')
      expect(r.stderr).not.to.match(/\n\s+at /)
    })

    it('an unhandled rejection fails check, naming what was rejected, and prints the stack only with --stack', async () => {
      const plain = await run(['check', deployment(['rejection'])])
      expect(plain.code).to.equal(1)
      expect(plain.stdout).to.equal('')
      expect(plain.stderr).to.include('error: a promise was rejected by plugins[2] (id "rejection"), line 4 and nobody handled it while the command ran: RangeError: nobody catches me')
      expect(plain.stderr).not.to.match(/\n\s+at /)
      const stacked = await run(['check', deployment(['rejection']), '--stack'])
      expect(stacked.stderr).to.match(/RangeError: nobody catches me\n\s+at /)
    })

    it('leaves the process\'s own handlers as they were', async () => {
      const before = [process.listeners('uncaughtException').length, process.listeners('unhandledRejection').length]
      await run(['render', deployment(['rejection'])])
      expect([process.listeners('uncaughtException').length, process.listeners('unhandledRejection').length]).to.deep.equal(before)
    })
  })

  describe('process.exit in a plugin', () => {
    const cases: Array<[keyof typeof SOURCE, string]> = [['exitImport', 'at import'], ['exitApply', 'in apply'], ['exitSwallowed', 'in apply, the throw caught'], ['exitProvider', 'in a text provider']]
    for (const [key, where] of cases) {
      it(`${where}: check, render and diff fail naming the row (diff with 2, never 0)`, async () => {
        const file = deployment([key])
        const check = await run(['check', file, '--json'])
        const render = await run(['render', file])
        const diff = await run(['diff', file, file])
        expect([check.code, render.code, diff.code]).to.deep.equal([1, 1, 2])
        const { error } = document(check.stdout)
        expect(error).to.deep.include({ code: 'CLI_PLUGIN_EXIT' })
        expect(error!.message).to.equal(`process.exit(0) was called by plugins[2] (id "${key}"), line 4 while the command ran; a plugin may not end dsh-prompt, so the command fails`)
        expect(render.stdout).to.equal('')
        // A module that failed to import fails again from Node's cache without running: then the load's problem says it.
        for (const r of [render, diff]) expect(r.stderr).to.include('process.exit(0) was called')
      })
    }

    it('puts process.exit back after the command', async () => {
      const exit = process.exit
      await run(['render', deployment(['exitApply'])])
      expect(process.exit).to.equal(exit)
    })
  })

  describe('the built binary', () => {
    before(assertBuilt)

    // No assertion on elapsed time: without the bound the process never exits (the timer keeps it alive),
    // so the kill after 60 s only catches that hang; the problem's code says the --timeout bound fired.
    it('exits 1 by itself when a plugin keeps a timer alive and its apply never settles (LOADER_APPLY_TIMEOUT)', async function () {
      this.timeout(90_000)
      const module = join(dir, 'timer.mjs')
      writeFileSync(module, `export default { name: 'ticking', apply() { setInterval(() => {}, 100); return new Promise(() => {}) } }\n`)
      const file = join(dir, 'deployment.yml')
      writeFileSync(file, `plugins:\n  - name: dsh-system-prompt\n  - name: ${JSON.stringify(module)}\n    id: ticking\n`)
      const r = await cli(['check', file, '--timeout', '1500', '--json'], { timeout: 60_000 })
      expect(r.timedOut).to.equal(false)
      expect(r.code).to.equal(1)
      const doc = JSON.parse(r.stdout) as { problems: Array<{ code: string; id: string; message: string }> }
      expect(doc.problems.map((p) => [p.code, p.id])).to.deep.equal([['LOADER_APPLY_TIMEOUT', 'ticking']])
    })

    it('exits 1 when a listener never settles and a timer keeps the process alive (default bound replaced by --timeout)', async function () {
      this.timeout(90_000)
      const module = join(dir, 'listener.mjs')
      writeFileSync(module, `export default { name: 'ticking-listener', apply(ctx) { setInterval(() => {}, 100); ctx.on('system-prompt/assemble', () => new Promise(() => {})) } }\n`)
      const file = join(dir, 'deployment.yml')
      writeFileSync(file, `plugins:\n  - name: dsh-system-prompt\n  - name: ${JSON.stringify(module)}\n    id: ticking\n`)
      const r = await cli(['render', file, '--timeout', '1500'], { timeout: 60_000 })
      expect([r.timedOut, r.code]).to.deep.equal([false, 1])
      expect(r.stderr).to.match(/error: the assembly for the deployment \(.*deployment\.yml\) did not finish within 1500 ms: the system-prompt\/assemble listener of "ticking" has not returned/)
    })
  })
})
