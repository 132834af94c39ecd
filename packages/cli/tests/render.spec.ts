import { expect } from 'chai'
import { ANSI, cli, EXAMPLE, fixture, lines, runBeforeAll } from './helpers.js'

const HEADING = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'

describe('dsh-prompt render', function () {
  this.timeout(60000)
  const r = runBeforeAll({
    main: () => cli(['render', EXAMPLE.coding]),
    reviewer: () => cli(['render', EXAMPLE.coding, '--agent', 'reviewer']),
    request: () => cli(['render', EXAMPLE.coding, '--request', '--step-input', 'Fix the failing parser test.']),
    json: () => cli(['render', EXAMPLE.coding, '--json']),
    cwd: () => cli(['render', EXAMPLE.coding, '--json'], { env: { DSH_CWD: '/srv/app' } }),
    forced: () => cli(['render', EXAMPLE.minimal], { env: { FORCE_COLOR: '1' } }),
    forcedOff: () => cli(['render', EXAMPLE.minimal, '--no-color'], { env: { FORCE_COLOR: '1' } }),
    // NO_COLOR wins over FORCE_COLOR: no escapes on stdout nor in the log lines.
    verbose: () => cli(['render', EXAMPLE.minimal, '--verbose'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } }),
    oda: () => cli(['render', EXAMPLE.oda, '--json']),
    noAgents: () => cli(['render', fixture('no-agents.yml')]),
    noAgentsRequest: () => cli(['render', fixture('no-agents.yml'), '--request']),
    unknownAgent: () => cli(['render', EXAMPLE.coding, '--agent', 'nope']),
  })

  it('prints a header naming the file and the first agent, then the system prompt, the runtime context and the tools', () => {
    const { code, stdout, stderr } = r.main
    expect(code).to.equal(0)
    expect(stderr).to.equal('')
    const out = lines(stdout)
    expect(out[0]).to.equal('# examples/coding-agent/deployment.yml: agent "main" (model deepseek-chat, provider deepseek, cwd /workspace)')
    expect(out[2]).to.match(/^== system prompt: 10 sections, [\d,]+ bytes ==$/)
    expect(out[3]).to.equal('You are an AI agent powered by the DeepSeek Harness SDK.')
    expect(stdout).to.include('You are the coding agent of this repository. You work in /workspace and make complete, minimal, verified changes.')
    expect(stdout).to.match(/\n== runtime context: 2 contexts, 580 bytes ==\nCurrent runtime context\. This snapshot supersedes/)
    expect(stdout).to.match(/\n== tools: 6 tools, [\d,]+ bytes of JSON ==\n\[\n\{"type":"function","function":\{"name":"bash",/)
  })

  it('prints each tool as the exact JSON the request carries, in toolOrder order', () => {
    const toolLines = lines(r.main.stdout).filter((line) => line.startsWith('{"type":"function"'))
    const tools = toolLines.map((line) => JSON.parse(line.replace(/,$/, '')))
    const request = JSON.parse(r.request.stdout)
    expect(tools.map((tool) => tool.function.name)).to.deep.equal(['bash', 'read', 'edit', 'glob', 'grep', 'write'])
    expect(tools).to.deep.equal(request.tools)
  })

  it('renders the agent picked with --agent, with its preset persona and its restricted tools', () => {
    const { code, stdout } = r.reviewer
    expect(code).to.equal(0)
    expect(lines(stdout)[0]).to.equal('# examples/coding-agent/deployment.yml: agent "reviewer" (model deepseek-chat, provider deepseek, preset reviewer, cwd /workspace)')
    expect(stdout).to.include('You review changes; you do not make them.')
    expect(stdout).to.not.include('You are the coding agent of this repository.')
    expect(stdout).to.not.include('## write')
    expect(stdout).to.match(/== tools: 4 tools,/)
  })

  it('prints the whole chat-completions request body with --request, the step input as the user message', () => {
    const { code, stdout, stderr } = r.request
    expect(code).to.equal(0)
    expect(stderr).to.equal('')
    const request = JSON.parse(stdout)
    expect(Object.keys(request)).to.deep.equal(['model', 'messages', 'tools'])
    expect(request.model).to.equal('deepseek-chat')
    expect(request.messages.map((m: { role: string }) => m.role)).to.deep.equal(['system', 'user', 'user'])
    expect(request.messages[0].content).to.match(/^You are an AI agent powered by the DeepSeek Harness SDK\.\n\nYou are the coding agent/)
    expect(request.messages[1].content).to.equal('Fix the failing parser test.')
    expect(request.messages[2].content.startsWith(HEADING + '\n\nSandbox: workspace-write.')).to.equal(true)
  })

  it('prints one JSON document with --json: the texts, each section with owner, layer and bytes, and the request', () => {
    const doc = JSON.parse(r.json.stdout)
    expect(doc.ok).to.equal(true)
    expect(doc.command).to.equal('render')
    expect(doc.target).to.deep.equal({ agent: 'main', model: 'deepseek-chat', provider: 'deepseek', cwd: '/workspace', preset: null, parent: null })
    expect(doc.sections[0]).to.deep.equal({ name: 'harness:identity', owner: 'dsh-system-prompt', layer: 'global', bytes: 56 })
    expect(doc.sections.map((s: { name: string }) => s.name).at(-1)).to.equal('deployment:persona-suffix')
    expect(doc.contexts.map((s: { name: string; owner: string }) => `${s.name}/${s.owner}`)).to.deep.equal(['sandbox:policy/dsh-plugin-policies', 'approval:policy/dsh-plugin-policies'])
    expect(doc.system).to.equal(doc.request.messages[0].content)
    expect(doc.snapshot).to.equal(doc.request.messages[1].content)
  })

  it('substitutes ${DSH_CWD:-/workspace} from the environment', () => {
    const doc = JSON.parse(r.cwd.stdout)
    expect(doc.target.cwd).to.equal('/srv/app')
    expect(doc.system).to.include('You work in /srv/app and')
    expect(doc.snapshot).to.include('write only inside `/srv/app` and `/tmp`')
  })

  it('writes no colour codes when stdout is not a terminal, and honours FORCE_COLOR, --no-color and NO_COLOR', () => {
    expect(r.main.stdout).to.not.match(ANSI)
    expect(r.forced.stdout).to.match(ANSI)
    expect(r.forcedOff.stdout).to.not.match(ANSI)
    expect(r.verbose.stdout + r.verbose.stderr).to.not.match(ANSI)
    expect(r.forcedOff.stdout.replace(/\x1b\[[0-9;]*m/g, '')).to.equal(r.forced.stdout.replace(/\x1b\[[0-9;]*m/g, ''))
  })

  it('shows the agent\'s section=<name> bytes=<n> debug lines on stderr with --verbose', () => {
    expect(r.verbose.code).to.equal(0)
    expect(lines(r.verbose.stderr)).to.deep.equal([
      '[D] dsh-agent agent=assistant section=harness:identity bytes=56',
      '[D] dsh-agent agent=assistant section=deployment:persona bytes=62',
      '[D] dsh-agent agent=assistant total sections=2 bytes=120',
    ])
    expect(r.verbose.stdout).to.equal(r.forcedOff.stdout)
  })

  it('renders the seed-000 defaults: no identity line, the persona prefix first and its suffix last, a runtime context', () => {
    const doc = JSON.parse(r.oda.stdout)
    expect(r.oda.code).to.equal(0)
    expect(doc.sections[0].name).to.equal('deployment:persona')
    expect(doc.system.startsWith('You are Oda, the data assistant of this DataMind workspace.')).to.equal(true)
    expect(doc.system.endsWith('say so instead of guessing.')).to.equal(true)
    expect(doc.snapshot.startsWith(HEADING + '\n\nSandbox: read-only.')).to.equal(true)
    expect(doc.request.tools.map((t: { function: { name: string } }) => t.function.name)).to.deep.equal(['glob', 'grep', 'read'])
  })

  it('says when a request has no runtime-context message and no tools', () => {
    // examples/minimal has neither (the --no-color run).
    expect(r.forcedOff.stdout).to.include('== runtime context: 0 contexts, 0 bytes ==\n(none: no runtime context has text, so the request carries no runtime-context message)')
    expect(r.forcedOff.stdout).to.include('== tools: 0 tools, 0 bytes of JSON ==\n(none: the request carries no tools field)')
  })

  it('renders the deployment-level assembly of a file without agents, and says so in the header', () => {
    expect(r.noAgents.code).to.equal(0)
    expect(lines(r.noAgents.stdout)[0]).to.equal('# packages/cli/tests/fixtures/no-agents.yml: no agents declared: the deployment-level assembly (global layer only, no scope)')
    expect(r.noAgents.stdout).to.include('You answer questions about the build.')
  })

  it('refuses --request without an agent as a usage error (exit 2)', () => {
    expect(r.noAgentsRequest.code).to.equal(2)
    expect(r.noAgentsRequest.stdout).to.equal('')
    expect(r.noAgentsRequest.stderr).to.equal('error: --request needs an agent: packages/cli/tests/fixtures/no-agents.yml declares none, and a request needs an agent\'s model (add an agents: section)\n')
  })

  it('refuses an agent id the file does not declare, listing the ones it does (exit 2)', () => {
    expect(r.unknownAgent.code).to.equal(2)
    expect(r.unknownAgent.stderr).to.equal('error: agent "nope" is not declared in examples/coding-agent/deployment.yml; declared agents: main, reviewer\n')
  })
})
