import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import z from 'schemastery'
import { DeploymentError, loadDeployment } from 'dsh-loader'
import { bootApp, rejection } from 'dsh-testing'

// schemastery's object keeps keys it does not declare and hands them on (a misspelt key loads without
// effect), and copying a `__proto__` key replaces the copy's prototype. The loader reports both.
const PLUGIN = `
import z from 'schemastery'
export const name = 'nested'
export const Config = z.object({
  sandbox: z.object({ mode: z.union(['strict', 'loose']).default('strict'), roots: z.array(z.object({ path: z.string() })).default([]) }).default({}),
  limits: z.dict(z.object({ max: z.number() })).default({}),
  extra: z.intersect([z.object({ a: z.number().default(1) }), z.object({ b: z.number().default(2) })]).default({}),
  either: z.union([z.object({ kind: z.const('x'), x: z.number() }), z.object({ kind: z.const('y'), y: z.number() })]).default({ kind: 'x', x: 0 }),
  free: z.any(),
})
export function apply() {}
`

describe('dsh-loader: config keys the schema does not declare', () => {
  // Next to this file, so the plugin resolves schemastery from the workspace; made only when the tests run.
  let folder: string
  before(() => {
    folder = mkdtempSync(join(fileURLToPath(new URL('.', import.meta.url)), '.config-keys-'))
    writeFileSync(join(folder, 'nested.mjs'), PLUGIN)
  })
  after(() => rmSync(folder, { recursive: true, force: true }))

  /** Loads a deployment of the nested plugin with `config` (YAML lines under `config:`). */
  async function load(config: string[], options: Parameters<typeof loadDeployment>[2] = {}) {
    const file = join(folder, 'deployment.yml')
    writeFileSync(file, ['plugins:', '  - name: ./nested.mjs', '    config:', ...config.map((line) => `      ${line}`), ''].join('\n'))
    const { host } = await bootApp()
    return { file, run: () => loadDeployment(host, file, { env: {}, ...options }) }
  }

  async function problems(config: string[]) {
    const { run } = await load(config)
    const error = await rejection(run)
    expect(error, String(error?.stack)).to.be.instanceOf(DeploymentError)
    return (error as DeploymentError).problems.map((p) => ({ line: p.line, key: p.key, message: p.message }))
  }

  it('loads when every key is declared (through objects, arrays, dicts, intersections, the matching union branch and any)', async () => {
    const { run } = await load([
      'sandbox: { mode: loose, roots: [{ path: /srv }] }', 'limits: { cpu: { max: 2 }, anything: { max: 1 } }',
      'extra: { a: 3, b: 4 }', 'either: { kind: y, y: 1 }', 'free: { whatever: [1, { deep: true }] }',
    ])
    const deployment = await run()
    expect(deployment.entries.map((e) => e.id)).to.deep.equal(['./nested.mjs'])
    await deployment.dispose()
  })

  it('reports an undeclared key at the top of a config, with the keys allowed there', async () => {
    expect(await problems(['sandbox: {}', 'colour: red'])).to.deep.equal([
      { line: 5, key: 'plugins[0].config.colour', message: 'unknown config key "colour" (allowed: either, extra, free, limits, sandbox)' },
    ])
  })

  it('reports undeclared keys inside nested objects, array items, dict values, intersections and union branches', async () => {
    expect(await problems([
      'sandbox: { mode: strict, colour: red, roots: [{ path: /a }, { pth: /b }] }',
      'limits: { cpu: { max: 2, mx: 3 } }',
      'extra: { a: 1, c: 3 }',
      'either: { kind: y, y: 1, x: 2 }',
    ])).to.deep.equal([
      { line: 4, key: 'plugins[0].config.sandbox.colour', message: 'unknown config key "sandbox.colour" (allowed there: mode, roots)' },
      { line: 4, key: 'plugins[0].config.sandbox.roots[1].pth', message: 'unknown config key "sandbox.roots[1].pth" (allowed there: path)' },
      { line: 5, key: 'plugins[0].config.limits.cpu.mx', message: 'unknown config key "limits.cpu.mx" (allowed there: max)' },
      { line: 6, key: 'plugins[0].config.extra.c', message: 'unknown config key "extra.c" (allowed there: a, b)' },
      { line: 7, key: 'plugins[0].config.either.x', message: 'unknown config key "either.x" (allowed there: kind, y)' },
    ])
  })

  it('reports a __proto__ key anywhere, even where any key is allowed, and pollutes nothing', async () => {
    const found = await problems(['free: { __proto__: { polluted: yes } }', 'sandbox: { __proto__: { mode: loose } }'])
    expect(found.map((p) => p.key)).to.deep.equal(['plugins[0].config.free.__proto__', 'plugins[0].config.sandbox.__proto__'])
    expect(found[0].message).to.equal('the key "__proto__" is not allowed (copying it into an object would replace the object\'s prototype)')
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined)
  })

  it('a constructor.prototype path is an undeclared key, and Object.prototype stays clean', async () => {
    expect((await problems(['constructor: { prototype: { polluted: yes } }']))[0]).to.include({ key: 'plugins[0].config.constructor' })
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined)
  })

  it('reports undeclared keys of a declared top-level section the same way', async () => {
    const file = join(folder, 'sections.yml')
    writeFileSync(file, 'plugins: []\nagents:\n  - id: a\n    modle: x\n')
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, file, { env: {}, sections: { agents: z.array(z.object({ id: z.string(), model: z.string().default('m') })) } }))
    expect((error as DeploymentError).problems.map((p) => [p.line, p.key, p.message])).to.deep.equal([
      [4, 'agents[0].modle', 'unknown key "[0].modle" in "agents" (allowed there: id, model)'],
    ])
  })
})
