import { execFile } from 'node:child_process'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect } from 'chai'
import { fixture, REPO_ROOT } from './helpers.js'

// These run plain Node.js (no tsx loader, no `source` condition) on the built loader, as `dsh-prompt`
// or a harness does: the mocha process itself has tsx loaded, so a `.ts` row would load there anyway.
const SCRIPT = `
import { Context } from 'cordis'
import { loadDeployment } from 'dsh-loader'
import { SystemPrompt } from 'dsh-system-prompt'
const app = new Context()
await app.plugin(SystemPrompt, { includeHarnessIdentity: false })
try {
  const deployment = await loadDeployment(app, process.env.DEPLOYMENT, { env: {}, tsx: process.env.TSX !== 'off' })
  const sections = app.systemPrompt.inspect().sections.map((section) => section.name).filter((name) => name.startsWith('house:'))
  console.log(JSON.stringify({ loaded: deployment.entries.map((e) => e.state), sections, sameClass: globalThis.typeScriptPluginSaw === SystemPrompt }))
} catch (error) {
  console.log(JSON.stringify({ problems: error.problems.map(({ code, message }) => ({ code, message })) }))
}`

async function plainNode(env: Record<string, string>): Promise<Record<string, unknown>> {
  for (const source of ['resolve.ts', 'typescript.ts', 'load.ts']) {
    const built = statSync(join(REPO_ROOT, 'packages/loader/lib/index.js')).mtimeMs
    if (statSync(join(REPO_ROOT, 'packages/loader/src', source)).mtimeMs > built) throw new Error(`packages/loader/lib is older than src/${source}: build again (yarn build)`)
  }
  const { NODE_OPTIONS: _, ...rest } = process.env
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: REPO_ROOT, env: { ...rest, ...env } })
  return JSON.parse(stdout.trim().split('\n').pop()!)
}

describe('dsh-loader: a .ts plugin path under plain Node.js', () => {
  it('loads through tsx (found next to the deployment), sharing the app\'s modules', async () => {
    expect(await plainNode({ DEPLOYMENT: fixture('typescript/deployment.yml') })).to.deep.equal({ loaded: [2], sections: ['house:rules'], sameClass: true })
  })

  it('with tsx: false, fails with a message that says how to make it load', async () => {
    const path = join(REPO_ROOT, 'packages/loader/tests/fixtures/typescript/plugin.ts').slice(REPO_ROOT.length)
    expect(await plainNode({ DEPLOYMENT: fixture('typescript/deployment.yml'), TSX: 'off' })).to.deep.equal({
      problems: [{
        code: 'LOADER_TYPESCRIPT_UNSUPPORTED',
        message: `cannot load plugin "./plugin.ts" from ${path}: Node.js cannot run TypeScript by itself and loading TypeScript through tsx is turned off (tsx: false) (to load it: start node with --import tsx/esm; or compile the plugin to JavaScript and name the .js file)`,
      }],
    })
  })
})
