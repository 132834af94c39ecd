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

  describe('a folder row', () => {
    const plugin = 'export default { name: "folder-plugin", apply() {} }\n'
    const write = (files: Record<string, string>) => {
      for (const [name, text] of Object.entries(files)) {
        mkdirSync(join(dir, name, '..'), { recursive: true })
        writeFileSync(join(dir, name), text)
      }
      return join(dir, 'deploy.yml')
    }

    it('resolves through its package.json: exports (by the package\'s own name), else main', () => {
      const file = write({ 'a/package.json': JSON.stringify({ name: 'folder-a', type: 'module', exports: { '.': { import: './lib/plugin.js' } } }), 'a/lib/plugin.js': plugin,
        'b/package.json': JSON.stringify({ main: 'entry.mjs' }), 'b/entry.mjs': plugin, 'c/index.js': plugin })
      expect(resolvePluginModule('./a', file)).to.deep.equal({ ok: true, path: join(dir, 'a/lib/plugin.js') })
      expect(resolvePluginModule('./b', file)).to.deep.equal({ ok: true, path: join(dir, 'b/entry.mjs') })
      expect(resolvePluginModule('./c', file)).to.deep.equal({ ok: true, path: join(dir, 'c/index.js') })
    })

    it('without package.json or index file, says what is missing', () => {
      const file = write({ 'empty/notes.txt': 'no plugin here' })
      expect(resolvePluginModule('./empty', file)).to.deep.include({
        ok: false,
        code: 'LOADER_FOLDER_NO_ENTRY',
        message: `cannot resolve plugin "./empty": the folder ${join(dir, 'empty')} has no package.json and none of index.js, index.mjs, index.cjs, index.ts (add a package.json whose "exports" or "main" names the plugin's file, or name the file itself in the row, such as "./empty/plugin.js")`,
      })
      const named = write({ 'bare/package.json': JSON.stringify({ name: 'bare' }) })
      expect(resolvePluginModule('./bare/', named)).to.deep.include({ code: 'LOADER_FOLDER_NO_ENTRY' })
      expect((resolvePluginModule('./bare/', named) as { message: string }).message).to.match(/: \S+bare\/package\.json names no entry \("exports" or "main"\) and the folder has none of /)
    })

    it('names the entry its package.json points at when that file is not there', () => {
      const file = write({ 'unbuilt/package.json': JSON.stringify({ name: 'unbuilt', type: 'module', exports: './lib/index.js' }), 'old/package.json': JSON.stringify({ main: 'lib/main.js' }) })
      expect(resolvePluginModule('./unbuilt', file)).to.deep.include({
        code: 'LOADER_FOLDER_BAD_ENTRY',
        message: `cannot resolve plugin "./unbuilt": ${join(dir, 'unbuilt/package.json')} names "./lib/index.js" in "exports", but there is no such file (build the plugin first, or point "exports" at the plugin's file)`,
      })
      expect(resolvePluginModule('./old', file)).to.deep.include({ code: 'LOADER_FOLDER_BAD_ENTRY', details: { name: './old', manifest: join(dir, 'old/package.json'), field: 'main', entry: 'lib/main.js' } })
    })

    it('a folder row loads its plugin like a file row', async () => {
      const file = write({ 'rules/package.json': JSON.stringify({ name: 'rules', type: 'module', exports: './rules.js' }), 'rules/rules.js': plugin, 'deploy.yml': 'plugins:\n  - name: ./rules\n' })
      const { host } = await bootApp()
      const deployment = await loadDeployment(host, file, { env: {} })
      expect(deployment.entries.map((entry) => [entry.path, entry.state])).to.deep.equal([[join(dir, 'rules/rules.js'), 2]])
      await deployment.dispose()
    })
  })
})
