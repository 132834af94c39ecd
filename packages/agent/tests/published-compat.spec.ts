import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { bootDeployment, type BootedDeployment } from 'dsh-boot'
import { renderAssembly } from 'dsh-system-prompt'
import { thrown } from 'dsh-testing'
import * as sectionSnapshot from './published/section-snapshot.js'

// Issue 24: patterns of plugins written for the published packages, each a plugin file of its own
// under tests/published, mounted unchanged through the YAML loader (bootDeployment).
const file = (name: string) => fileURLToPath(new URL(`./published/${name}.yml`, import.meta.url))

/** Boots `name`'s deployment with the log captured line by line. */
async function boot(name: string): Promise<{ booted: BootedDeployment; log: string[] }> {
  const log: string[] = []
  const target = new Writable({ write(chunk, _encoding, done) { log.push(...String(chunk).split('\n').filter(Boolean)); done() } })
  const booted = await bootDeployment(file(name), { logLevel: 'warn', logTarget: target, color: false })
  return { booted, log }
}

describe('dsh: plugins written for the published packages, mounted through the YAML loader', () => {
  let booted: BootedDeployment | undefined
  afterEach(async () => {
    await booted?.dispose()
    booted = undefined
  })

  it('warns, naming the plugin once, of a section placed by the published package\'s old tool-guidance band (100-199)', async () => {
    const run = await boot('legacy-guidance')
    booted = run.booted
    const warnings = run.log.filter((line) => line.includes('old'))
    expect(warnings).to.have.length(1)
    expect(warnings[0]).to.include('plugin "legacy-guidance" placed section "tool:legacy" at order 150, the published package\'s old tool guidance (100-199) band')
  })

  it('lets a system-prompt/change listener veto a registration, as published: the registering plugin gets PROMPT_CHANGE_VETOED', async () => {
    ({ booted } = await boot('secret-guard'))
    const error = thrown(() => booted!.ctx.systemPrompt.section({ name: 'secret:key', order: 800, text: 'The key is 42.' }))
    expect((error as { code?: string }).code).to.equal('PROMPT_CHANGE_VETOED')
    expect(error.message).to.include('secrets stay out of the prompt (secret:key)')
    const step = await booted.agents[0].stepDetailed('Hi.')
    expect(step.rendered.sections.map((section) => section.name)).to.not.include('secret:key')
  })

  it('sees a variable registered during the assembly: the first step renders a {{variable}} registered lazily by a text provider', async () => {
    ({ booted } = await boot('lazy-variable'))
    const step = await booted.agents[0].stepDetailed('Hi.')
    expect(step.assembly.variables.branch).to.equal('main')
    expect(step.system).to.include('You are on branch main.')
  })

  it('compares assemblies with published literals through publishedAssembly(): dsh\'s extra entry fields (owner, scope) stay out', async () => {
    sectionSnapshot.seen.length = 0
    ;({ booted } = await boot('section-snapshot'))
    const step = await booted.agents[0].stepDetailed('Hi.')
    expect(step.assembly.sections[0]).to.include({ owner: 'dsh-system-prompt' })
    expect(sectionSnapshot.seen.at(-1)).to.deep.equal({
      sections: [{ name: 'deployment:persona', text: 'You work in the shop.' }, { name: 'deployment:persona-suffix', text: '' }],
      contexts: [],
      tools: [],
      variables: { cwd: undefined, model: 'm', provider: undefined },
    })
    expect(renderAssembly(step.assembly).system).to.equal('You work in the shop.')
  })
})
