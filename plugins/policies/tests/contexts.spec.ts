import { readFile } from 'node:fs/promises'
import { expect } from 'chai'
import type { Context } from 'cordis'
import Policies, { APPROVAL_MODES, APPROVAL_TEXTS, approvalText, sandboxText, type ConfigInput } from 'dsh-plugin-policies'
import { RUNTIME_CONTEXT_HEADING, RUNTIME_CONTEXT_NONE } from 'dsh-system-prompt'
import { bootApp, promptText, rejection, snapshotText } from 'dsh-testing'

const NO_SECTIONS: ConfigInput = { plan: { enabled: false }, team: { enabled: false } }
const NETWORK_OFF = 'Network: off. Commands that need the network (installing packages, downloads, git fetch or push) will fail; do not retry them, say what you need instead.'
const NETWORK_ON = 'Network: on. Commands may reach the network.'

describe('dsh-plugin-policies: sandbox:policy and approval:policy', () => {
  let app: Context
  let host: Context
  beforeEach(async () => {
    ({ app, host } = await bootApp({ systemPrompt: { includeHarnessIdentity: false }, agents: true }))
  })

  describe('sandbox text', () => {
    it('read-only says writes are refused', () => {
      expect(sandboxText({ mode: 'read-only', writableRoots: [], network: false })).to.equal(
        'Sandbox: read-only. You can read files and run commands that only look; anything that writes to disk is refused.\n' + NETWORK_OFF)
    })

    it('workspace-write without roots names the working folder', () => {
      expect(sandboxText({ mode: 'workspace-write', writableRoots: [], network: true })).to.equal(
        'Sandbox: workspace-write. You can read files anywhere but write only inside the working folder.\n' + NETWORK_ON)
    })

    it('workspace-write lists one, two or three roots in prose', () => {
      const line = (roots: string[]) => sandboxText({ mode: 'workspace-write', writableRoots: roots, network: false }).split('\n')[0]
      expect(line(['/srv/app'])).to.equal('Sandbox: workspace-write. You can read files anywhere but write only inside `/srv/app`.')
      expect(line(['/srv/app', '/tmp'])).to.equal('Sandbox: workspace-write. You can read files anywhere but write only inside `/srv/app` and `/tmp`.')
      expect(line(['/a', '/b', '/c'])).to.equal('Sandbox: workspace-write. You can read files anywhere but write only inside `/a`, `/b` and `/c`.')
    })

    it('full-access says nothing limits the model and asks for care', () => {
      expect(sandboxText({ mode: 'full-access', writableRoots: [], network: true })).to.equal(
        'Sandbox: full-access. Nothing limits what you read, write or run, so every change is real at once; take particular care with anything you cannot undo.\n' + NETWORK_ON)
    })
  })

  describe('approval text', () => {
    it('has one sentence for each mode, telling the model what it means for it', () => {
      expect(Object.keys(APPROVAL_TEXTS)).to.deep.equal([...APPROVAL_MODES])
      for (const mode of APPROVAL_MODES) {
        const text = approvalText(mode)
        expect(text.startsWith(`Approval: ${mode}. `), mode).to.equal(true)
        expect(text.slice(`Approval: ${mode}. `.length).match(/\. /g), `${mode} is one sentence`).to.equal(null)
      }
      expect(approvalText('on-request')).to.equal('Approval: on-request. Commands run inside the sandbox without asking; when one needs more than the sandbox allows, such as writing elsewhere or using the network, request approval for that command and say in one sentence why it is needed.')
      expect(approvalText('never')).to.equal('Approval: never. Nobody is asked to approve anything and nothing runs outside the sandbox; when something is blocked, find another way within it or report what is blocked, and do not ask the user to run it for you.')
    })
  })

  describe('in the assembly', () => {
    it('registers both contexts at their named placements and puts them in the snapshot, not the system prompt', async () => {
      await app.plugin(Policies, { ...NO_SECTIONS, sandbox: { mode: 'workspace-write', writableRoots: ['/srv/app', '/tmp'] }, approval: { mode: 'on-request' } })
      const assembly = await app.systemPrompt.assemble()
      expect(assembly.contexts.map((c) => [c.name, c.order, c.owner])).to.deep.equal([
        ['sandbox:policy', app.systemPrompt.getContextOrder('sandbox:policy'), 'dsh-plugin-policies'],
        ['approval:policy', app.systemPrompt.getContextOrder('approval:policy'), 'dsh-plugin-policies'],
      ])
      expect(await snapshotText(app)).to.equal([
        RUNTIME_CONTEXT_HEADING,
        '',
        'Sandbox: workspace-write. You can read files anywhere but write only inside `/srv/app` and `/tmp`.',
        NETWORK_OFF,
        '',
        approvalText('on-request'),
      ].join('\n'))
      expect(await promptText(app)).to.equal('')
    })

    it('the network flag turns the network line on', async () => {
      await app.plugin(Policies, { ...NO_SECTIONS, sandbox: { mode: 'read-only', network: true } })
      expect((await snapshotText(app)).endsWith('\n' + NETWORK_ON)).to.equal(true)
    })

    it('each part can be registered alone', async () => {
      await app.plugin(Policies, { ...NO_SECTIONS, approval: { mode: 'never' } })
      expect(await snapshotText(app)).to.equal(RUNTIME_CONTEXT_HEADING + '\n\n' + approvalText('never'))
    })

    it('enabled: false keeps a configured context out', async () => {
      await app.plugin(Policies, { ...NO_SECTIONS, sandbox: { mode: 'read-only', enabled: false }, approval: { mode: 'never' } })
      expect((await app.systemPrompt.assemble()).contexts.map((c) => c.name)).to.deep.equal(['approval:policy'])
    })

    it('a text override replaces the generated text', async () => {
      await app.plugin(Policies, { ...NO_SECTIONS, sandbox: { text: 'Sandbox: a disposable VM; nothing you do persists after this session.' } })
      expect(await snapshotText(app)).to.equal(RUNTIME_CONTEXT_HEADING + '\n\nSandbox: a disposable VM; nothing you do persists after this session.')
    })

    it('a {{cwd}} writable root is filled with the agent\'s working folder', async () => {
      await app.plugin(Policies, { ...NO_SECTIONS, sandbox: { mode: 'workspace-write', writableRoots: ['{{cwd}}', '/tmp'] } })
      const agent = await host.agents.create({ id: 'coder', model: 'm', cwd: '/home/ana/shop' })
      expect(await snapshotText(app, { scope: agent, agent })).to.include('write only inside `/home/ana/shop` and `/tmp`.')
    })

    it('disposing the plugin removes both contexts', async () => {
      const fiber = app.plugin(Policies, { sandbox: { mode: 'read-only' }, approval: { mode: 'untrusted' } })
      await fiber
      await fiber.dispose()
      expect((await app.systemPrompt.assemble()).contexts).to.deep.equal([])
    })
  })

  describe('configuration errors', () => {
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['writable roots in read-only mode', { sandbox: { mode: 'read-only', writableRoots: ['/srv'] } }, 'sandbox.writableRoots only applies when sandbox.mode is "workspace-write" (it is "read-only")'],
      ['writable roots without a mode', { sandbox: { writableRoots: ['/srv'] } }, 'sandbox.writableRoots only applies when sandbox.mode is "workspace-write" (sandbox.mode is not set)'],
      ['a relative writable root', { sandbox: { mode: 'workspace-write', writableRoots: ['/srv', 'build'] } }, 'sandbox.writableRoots[1] "build" is not an absolute path (write /srv/app, C:\\work, or a variable such as {{cwd}})'],
      ['a repeated writable root', { sandbox: { mode: 'workspace-write', writableRoots: ['/tmp', '/tmp'] } }, 'sandbox.writableRoots lists "/tmp" more than once'],
      ['an unknown sandbox mode', { sandbox: { mode: 'rw' } }, '$.sandbox.mode expected "read-only" | "workspace-write" | "full-access" but got "rw" (at sandbox.mode)'],
      ['an unknown approval mode', { approval: { mode: 'sometimes' } }, '$.approval.mode expected "untrusted" | "on-request" | "on-failure" | "never" but got "sometimes" (at approval.mode)'],
      ['a blank approval text', { approval: { text: '' } }, 'approval.text must not be empty (set approval.enabled: false to leave it out)'],
    ]
    for (const [what, config, message] of refusals) {
      it(`refuses ${what} with a message naming the key, and registers nothing`, async () => {
        const error = await rejection(app.plugin(Policies, config as ConfigInput))
        expect(error.message).to.equal('invalid config:\n  - ' + message)
        const assembly = await app.systemPrompt.assemble()
        expect(assembly.contexts).to.deep.equal([])
        expect(assembly.sections.filter((s) => s.name.endsWith(':policy'))).to.deep.equal([])
      })
    }
  })

  describe('through agents', () => {
    it('a config change reaches the next request as a new snapshot; the system prompt is not re-sent', async () => {
      const fiber = app.plugin(Policies, { sandbox: { mode: 'workspace-write' }, approval: { mode: 'on-request' } })
      await fiber
      const agent = await host.agents.create({ id: 'coder', model: 'm' })
      const first = await agent.step('Fix the failing test.')
      expect(first.messages.map((m) => m.role)).to.deep.equal(['system', 'user', 'user'])
      await fiber.update({ sandbox: { mode: 'read-only' }, approval: { mode: 'on-request' } })
      const second = await agent.step('Now only look.')
      expect(second.messages.slice(0, first.messages.length)).to.deep.equal(first.messages)
      expect(second.messages.slice(first.messages.length)).to.deep.equal([
        { role: 'user', content: 'Now only look.' },
        { role: 'user', content: RUNTIME_CONTEXT_HEADING + '\n\n' + sandboxText({ mode: 'read-only', writableRoots: [], network: false }) + '\n\n' + approvalText('on-request') },
      ])
      expect(agent.conversation.filter((e) => e.source === 'system-prompt')).to.have.length(1)
    })

    it('an unchanged config adds no snapshot; removing the plugin sends the none message once', async () => {
      const fiber = app.plugin(Policies, { ...NO_SECTIONS, sandbox: { mode: 'read-only' } })
      await fiber
      const agent = await host.agents.create({ id: 'coder', model: 'm' })
      await agent.step('one')
      const second = await agent.step('two')
      expect(second.messages.filter((m) => typeof m.content === 'string' && m.content.startsWith(RUNTIME_CONTEXT_HEADING))).to.have.length(1)
      await fiber.dispose()
      const third = await agent.step('three')
      expect(third.messages.at(-1)).to.deep.equal({ role: 'user', content: RUNTIME_CONTEXT_NONE })
      const fourth = await agent.step('four')
      expect(fourth.messages.at(-1)).to.deep.equal({ role: 'user', content: 'four' })
    })

    it('loaded through a preset, the policies shadow the deployment\'s for that preset\'s agents only', async () => {
      await app.plugin(Policies, { ...NO_SECTIONS, sandbox: { mode: 'workspace-write' } })
      const preset = host.agents.definePreset('reviewer')
      await preset.ctx.plugin(Policies, { ...NO_SECTIONS, sandbox: { mode: 'read-only' }, approval: { mode: 'never' } })
      const reviewer = await host.agents.create({ id: 'rev', model: 'm', preset: 'reviewer' })
      const coder = await host.agents.create({ id: 'dev', model: 'm' })
      expect(await snapshotText(app, { scope: reviewer, agent: reviewer })).to.equal(
        RUNTIME_CONTEXT_HEADING + '\n\n' + sandboxText({ mode: 'read-only', writableRoots: [], network: false }) + '\n\n' + approvalText('never'))
      expect(await snapshotText(app, { scope: coder, agent: coder })).to.equal(
        RUNTIME_CONTEXT_HEADING + '\n\n' + sandboxText({ mode: 'workspace-write', writableRoots: [], network: false }))
    })
  })

  it('the README shows the snapshot a configured deployment sends, with its byte count', async () => {
    await app.plugin(Policies, { ...NO_SECTIONS, sandbox: { mode: 'workspace-write', writableRoots: ['/srv/app', '/tmp'] }, approval: { mode: 'on-request' } })
    const text = await snapshotText(app)
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
    expect(readme).to.include('```text\n' + text + '\n```')
    expect(readme).to.include(`${Buffer.byteLength(text)} bytes`)
  })
})
