import { expect } from 'chai'
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import Agents from 'dsh-agent'
import SystemPrompt from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'

const REPO = fileURLToPath(new URL('../../../', import.meta.url))

interface Manifest {
  name: string
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

/** Every workspace manifest, by package name. */
const manifests = new Map<string, Manifest>(['packages', 'plugins'].flatMap((group) => readdirSync(join(REPO, group))
  .map((name) => join(REPO, group, name, 'package.json'))
  .filter((file) => existsSync(file))
  .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Manifest)
  .map((manifest) => [manifest.name, manifest] as const)))

/** What npm installs with `name`: its dependencies and required peers, and theirs, as package names. */
function installs(name: string, seen = new Set<string>()): Set<string> {
  const manifest = manifests.get(name)
  if (!manifest) return seen
  const optional = manifest.peerDependenciesMeta ?? {}
  const next = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {}).filter((peer) => !optional[peer]?.optional)]
  for (const dependency of next) {
    if (seen.has(dependency)) continue
    seen.add(dependency)
    installs(dependency, seen)
  }
  return seen
}

describe('dsh-boot: where the agent and the YAML loader meet', () => {
  it('a harness that creates agents in code installs dsh-agent without the YAML loader (dsh-loader, yaml)', () => {
    const withAgent = installs('dsh-agent')
    expect(withAgent.has('dsh-system-prompt')).to.equal(true)
    expect([...withAgent].filter((name) => name === 'dsh-loader' || name === 'yaml' || name === 'dsh-boot')).to.deep.equal([])
  })

  it('dsh-boot brings both: the agents and the loader', () => {
    const withBoot = installs('dsh-boot')
    expect(['dsh-agent', 'dsh-loader', 'yaml'].filter((name) => withBoot.has(name))).to.deep.equal(['dsh-agent', 'dsh-loader', 'yaml'])
  })

  it('agents in code without a deployment file, as docs/embedding.md shows them, step without dsh-boot', async () => {
    // --- as in the docs ---
    const app = new Context()
    await app.plugin(SystemPrompt, { persona: 'You answer questions about {{cwd}}.' })
    await app.plugin(ToolRegistry)
    await app.plugin(Agents)
    let ctx!: Context
    const host = app.plugin({ name: 'my-harness', inject: ['systemPrompt', 'tools', 'agents'], apply: (pluginCtx: Context) => { ctx = pluginCtx } })
    await host
    const agent = await ctx.agents.create({ id: 'main', model: 'deepseek-chat', cwd: '/srv/app' })
    const request = await agent.step('Hello!')
    await host.dispose()                       // the agent goes with the plugin that created it
    // --- end ---
    expect(request.messages.map((message) => message.content)).to.deep.equal([
      'You are an AI agent powered by the DeepSeek Harness SDK.\n\nYou answer questions about /srv/app.',
      'Hello!',
    ])
    expect(app.agents.get('main')).to.equal(undefined)
  })
})
