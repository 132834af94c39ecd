import { spawn } from 'node:child_process'
import { Writable } from 'node:stream'
import { expect } from 'chai'
import { Context } from 'cordis'
import { LoggerBridge, loadDeployment } from 'dsh-loader'
import { bootApp, pluginContext, rejection } from 'dsh-testing'
import { Capture, REPO_ROOT, fixture } from './helpers.js'

/** A root context with the bridge writing into a capture. */
async function bridged(config: Record<string, unknown> = {}): Promise<{ app: Context; out: Capture }> {
  const app = new Context()
  const out = new Capture()
  await app.plugin(LoggerBridge, { target: out, ...config })
  return { app, out }
}

describe('dsh-loader: LoggerBridge', () => {
  it('a plugin\'s ctx.logger(...).info/.warn/.debug reach the bridge at level debug', async () => {
    const { app, out } = await bridged({ level: 'debug' })
    await app.plugin((await import('./fixtures/plugins/chatty.js')) as any)
    expect(out.lines).to.deep.equal(['[I] chatty info from chatty', '[W] chatty warn from chatty', '[D] chatty debug from chatty'])
  })

  it('a log message holding terminal controls is written escaped: no OSC, CR or bidi override reaches the stream', async () => {
    const { app, out } = await bridged()
    app.logger('plugin\u001b]0;T\u0007').info('title \u001b]0;OWNED\u0007 erase\r%s', 'rtl \u202e end')
    expect(out.lines).to.deep.equal(['[I] plugin\\e]0;T\\u0007 title \\e]0;OWNED\\u0007 erase\\rrtl \\u202e end'])
  })

  it('the default level (info) hides debug lines', async () => {
    const { app, out } = await bridged()
    await app.plugin((await import('./fixtures/plugins/chatty.js')) as any)
    expect(out.lines).to.deep.equal(['[I] chatty info from chatty', '[W] chatty warn from chatty'])
  })

  it('levels per logger name override the default level', async () => {
    const { app, out } = await bridged({ level: 'debug', levels: { chatty: 'warn' } })
    await app.plugin((await import('./fixtures/plugins/chatty.js')) as any)
    app.logger('other').debug('still shown')
    expect(out.lines).to.deep.equal(['[W] chatty warn from chatty', '[D] other still shown'])
  })

  it('shows the log output of plugins a deployment loads', async () => {
    const { app, out } = await bridged({ level: 'debug' })
    const host = await pluginContext(app, 'host')
    const deployment = await loadDeployment(host, fixture('chatty.yml'), { env: {} })
    expect(out.lines).to.include.members(['[I] chatty info from chatty', '[W] chatty warn from chatty', '[D] chatty debug from chatty'])
    await deployment.dispose()
  })

  it('prints errors as one line without a stack trace (a broken deployment prints no stack)', async () => {
    const { app, out } = await bridged()
    const host = await pluginContext(app, 'host')
    const error = await rejection(() => loadDeployment(host, fixture('apply-throws.yml'), { env: {} }))
    expect(error.message).to.contain('apply failed: boom while applying')
    expect(out.text).to.contain('Error: boom while applying')
    expect(out.text).to.not.match(/^\s+at /m)
    app.logger('x').error(new TypeError('bad thing'))
    expect(out.lines.at(-1)).to.equal('[E] x TypeError: bad thing')
  })

  it('prints the stack when asked to', async () => {
    const { app, out } = await bridged({ stack: true })
    app.logger('x').error(new Error('with stack'))
    expect(out.text).to.match(/^\[E\] x Error: with stack\n {8}at /)
  })

  it('colours only on a TTY unless told otherwise', async () => {
    const plain = await bridged()
    plain.app.logger('x').warn('hello')
    expect(plain.out.text).to.equal('[W] x hello\n')
    const coloured = await bridged({ colors: true })
    coloured.app.logger('x').warn('hello')
    expect(coloured.out.text).to.contain('\x1b[').and.to.contain('hello')
  })

  it('indents continuation lines and can prefix a timestamp', async () => {
    const { app, out } = await bridged({ timestamp: true })
    app.logger('x').info('one\ntwo')
    expect(out.text).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[I\] x one\n {24}two\n$/)
  })

  it('installs no process-wide handlers', async () => {
    const before = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]
    await bridged()
    expect([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]).to.deep.equal(before)
  })

  it('stops writing once the target fails (EPIPE), without throwing into the logging plugin', async () => {
    let writes = 0
    const broken = new Writable({
      write(_chunk, _encoding, callback) {
        writes++
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))
      },
    })
    const app = new Context()
    await app.plugin(LoggerBridge, { target: broken })
    app.logger('x').info('first')
    await new Promise((resolve) => setImmediate(resolve))
    for (let i = 0; i < 100; i++) app.logger('x').info('more %d', i)
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).to.equal(1)
  })

  it('writes nothing once unloaded', async () => {
    const app = new Context()
    const out = new Capture()
    const fiber = app.plugin(LoggerBridge, { target: out })
    await fiber
    await fiber.dispose()
    app.logger('x').info('after')
    expect(out.text).to.equal('')
  })

  it('refuses a target that is not a writable stream', async () => {
    const error = await rejection(async () => { await new Context().plugin(LoggerBridge, { target: 'stderr' as any }) })
    expect(error.message).to.contain('LoggerBridge target must be a writable stream, found a string "stderr"')
  })

  it('a process logging a flood into a closed stdout neither crashes nor spins', async function () {
    this.timeout(30000)
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx/esm', fixture('flood.ts')], {
      cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout.destroy()
    let stderr = ''
    child.stderr.on('data', (chunk) => { stderr += chunk })
    // The kill after 20 s only catches a child that spins or hangs; no assertion on how long it took.
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(null) }, 20000)
      child.on('exit', (exitCode) => { clearTimeout(timer); resolve(exitCode) })
    })
    expect(code, `the child did not exit by itself (stderr: ${stderr})`).to.equal(0)
    expect(stderr).to.equal('done handlers=0\n')
  })
})
