import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { loadDeployment, pluginOf, resolvePluginModule } from 'dsh-loader'
import { bootApp } from 'dsh-testing'
import { fixture } from './helpers.js'

describe('dsh-loader: resolving and recognising plugins', () => {
  let dir: string

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-loader-'))
  })

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it('resolves a package from the deployment file\'s folder first', async () => {
    mkdirSync(join(dir, 'node_modules/local-plugin'), { recursive: true })
    writeFileSync(join(dir, 'node_modules/local-plugin/package.json'), JSON.stringify({ name: 'local-plugin', type: 'module', exports: './index.js' }))
    writeFileSync(join(dir, 'node_modules/local-plugin/index.js'), 'export const name = "local"\nexport function apply(ctx) { ctx.provide("localThing", 1) }\n')
    writeFileSync(join(dir, 'deploy.yml'), 'plugins:\n  - name: local-plugin\n')
    const resolved = resolvePluginModule('local-plugin', join(dir, 'deploy.yml'))
    expect(resolved).to.deep.equal({ ok: true, path: join(dir, 'node_modules/local-plugin/index.js') })
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, join(dir, 'deploy.yml'), { env: {} })
    expect(deployment.entries.map((entry) => entry.state)).to.deep.equal([2])
    await deployment.dispose()
  })

  it('then from the loader package (a deployment outside the workspace still finds dsh-system-prompt)', async () => {
    writeFileSync(join(dir, 'deploy.yml'), 'plugins:\n  - name: dsh-system-prompt\n')
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, join(dir, 'deploy.yml'), { env: {} })
    expect(deployment.entries[0].path).to.match(/packages\/system-prompt\/src\/index\.ts$/)
    expect(host.get('systemPrompt')).to.not.equal(undefined)
    await deployment.dispose()
  })

  it('resolves a relative path against the deployment file, not the working directory', () => {
    expect(resolvePluginModule('./plugins/echo.js', fixture('env.yml'))).to.deep.equal({ ok: true, path: fixture('plugins/echo.js') })
  })

  it('a module that throws while loading is a problem, not a crash', async () => {
    writeFileSync(join(dir, 'broken.js'), 'throw new Error("broken at import")\n')
    writeFileSync(join(dir, 'deploy.yml'), 'plugins:\n  - name: ./broken.js\n')
    const { host } = await bootApp()
    const error = await loadDeployment(host, join(dir, 'deploy.yml'), { env: {} }).then(() => undefined, (e) => e)
    expect(error.message).to.equal(`${join(dir, 'deploy.yml')}:2:11: plugins[0] (id "./broken.js"): cannot load plugin "./broken.js" from ${join(dir, 'broken.js')}: broken at import`)
  })

  it('recognises a default-exported function, class or object with apply(), or an apply() export', () => {
    const fn = () => {}
    class Service {}
    const object = { apply() {} }
    expect(pluginOf({ default: fn })).to.equal(fn)
    expect(pluginOf({ default: Service })).to.equal(Service)
    expect(pluginOf({ default: object })).to.equal(object)
    const namespace = { apply() {}, name: 'ns', default: { data: 1 } }
    expect(pluginOf(namespace)).to.equal(namespace)
    expect(pluginOf({ default: { data: 1 }, answer: 42 })).to.equal(undefined)
  })
})
