import { expect } from 'chai'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { cli, EXAMPLE, fixture, lines, runBeforeAll } from './helpers.js'

describe('dsh-prompt explain', function () {
  this.timeout(60000)
  const r = runBeforeAll({
    reviewer: () => cli(['explain', EXAMPLE.coding, '--agent', 'reviewer']),
    json: () => cli(['explain', EXAMPLE.coding, '--agent', 'reviewer', '--json']),
    request: () => cli(['render', EXAMPLE.coding, '--agent', 'reviewer', '--request']),
    noAgents: () => cli(['explain', fixture('no-agents.yml'), '--json']),
    broken: () => cli(['explain', fixture('bad-config.yml')]),
    edited: () => cli(['explain', fixture('editing-listener.yml')]),
    editedJson: () => cli(['explain', fixture('editing-listener.yml'), '--json']),
    raw: () => cli(['explain', fixture('raw-tool-provider.yml')]),
    appendAnthropic: () => cli(['explain', fixture('tool-append-deployment.yml'), '--format', 'anthropic']),
    appendGemini: () => cli(['explain', fixture('tool-append-deployment.yml'), '--format', 'gemini', '--json']),
  })

  it('with --format, says how a tool added mid-conversation would enter the agent\'s next request: the append path and its header, or declared now and why (R-TOOL-13)', () => {
    expect(r.appendAnthropic.code, r.appendAnthropic.stderr).to.equal(0)
    expect(lines(r.appendAnthropic.stdout)).to.include('an added tool: through the append path, no break (a system message of tool_addition blocks '
      + '(platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages#define-tools-in-a-message-beta); header anthropic-beta: inline-tools-2026-09-15)')
    expect(JSON.parse(r.appendGemini.stdout).toolAppend).to.deep.equal({ fallback: 'gemini has no append path for an added tool (generateContent takes function declarations only in the request\'s tools)' })
  })

  it('names the owner and layer of a tool registered through the raw provider API beside the tools service (issue 24)', () => {
    const out = lines(r.raw.stdout)
    const tools = out.slice(out.indexOf('Tools') + 2, out.indexOf('Tools') + 4).map((line) => line.split(/\s{2,}/).slice(0, 4))
    expect(tools).to.deep.equal([['1', 'bash', 'dsh-plugin-shell', 'global'], ['2', 'lookup', './raw-tool-provider.mjs', 'global']])
  })

  it('names the tokenizer encoding and prints a table of the sections with order, owner, layer, bytes, tokens and shadows', () => {
    const { code, stdout, stderr } = r.reviewer
    expect(code).to.equal(0)
    expect(stderr).to.equal('')
    const out = lines(stdout)
    expect(out[1]).to.equal('tokens: o200k_base (gpt-tokenizer); bytes: UTF-8')
    expect(out).to.include('System prompt')
    const header = out[out.indexOf('System prompt') + 1]
    expect(header.split(/\s+/)).to.deep.equal(['#', 'order', 'section', 'owner', 'layer', 'bytes', 'tokens', 'shadows'])
    const persona = out.find((line) => /^2\s+0\s+deployment:persona\s/.test(line))
    expect(persona?.split(/\s{2,}/)).to.deep.equal(['2', '0', 'deployment:persona', 'preset:reviewer', 'preset:reviewer', '438', '95', 'dsh-system-prompt (global)'])
    expect(out.find((line) => line.includes('deployment:persona-suffix'))?.split(/\s{2,}/).slice(0, 6)).to.deep.equal(['8', 'last', 'deployment:persona-suffix', 'dsh-system-prompt', 'global', '20'])
  })

  it('shows which listener rewrote a section and which removed one (R-WF-8 provenance)', () => {
    expect(r.edited.code).to.equal(0)
    const out = lines(r.edited.stdout)
    expect(out.find((line) => line.includes('notes:kept'))).to.match(/notes:kept\s+\.\/editing-listener\.mjs, rewritten by \.\/editing-listener\.mjs\s+global/)
    expect(out).to.include('removed by a system-prompt/assemble listener: notes:dropped (./editing-listener.mjs, global) removed by ./editing-listener.mjs')
    const json = JSON.parse(r.editedJson.stdout)
    expect(json.sections.find((s: { name: string }) => s.name === 'notes:kept').changedBy).to.equal("rewritten by ./editing-listener.mjs")
    expect(json.droppedSections.filter((d: { reason: string }) => d.reason === 'removed')).to.deep.equal([
      { name: "notes:dropped", owner: "./editing-listener.mjs", layer: "global", reason: "removed", by: "./editing-listener.mjs" },
    ])
  })

  it('lists the guidance of the tools the preset denies as dropped because the tool is hidden, not as empty', () => {
    expect(lines(r.reviewer.stdout)).to.include.members([
      'dropped as empty after interpolation: (none)',
      'dropped because their tool is hidden from this agent: tool:write (dsh-plugin-filesystem, global), tool:edit (dsh-plugin-filesystem, global)',
    ])
  })

  it('prints the tools with owner, layer, and the bytes and tokens of their JSON as sent, and the totals', () => {
    const out = lines(r.reviewer.stdout)
    const start = out.indexOf('Tools')
    expect(out.slice(start + 2, start + 6).map((line) => line.split(/\s{2,}/).slice(0, 4))).to.deep.equal([
      ['1', 'bash', 'dsh-plugin-shell', 'global'], ['2', 'read', 'dsh-plugin-filesystem', 'global'],
      ['3', 'glob', 'dsh-plugin-filesystem', 'global'], ['4', 'grep', 'dsh-plugin-filesystem', 'global'],
    ])
    expect(out[start + 6]).to.match(/^total: 4 tools, [\d,]+ bytes of JSON, [\d,]+ tokens$/)
    expect(out.some((line) => /^Request total: [\d,]+ bytes, [\d,]+ tokens \(o200k_base\) in system prompt \+ runtime context \+ tools$/.test(line))).to.equal(true)
  })

  it('counts tokens with the o200k_base BPE encoding, section by section and for the tools as sent', () => {
    const doc = JSON.parse(r.json.stdout)
    const request = JSON.parse(r.request.stdout)
    expect(doc.encoding).to.equal('o200k_base')
    expect(doc.sections[0]).to.deep.include({ name: 'harness:identity', bytes: 56, tokens: encode('You are an AI agent powered by the DeepSeek Harness SDK.').length })
    expect(doc.totals.system).to.deep.include({ bytes: Buffer.byteLength(request.messages[0].content), tokens: encode(request.messages[0].content).length })
    expect(doc.tools.map((t: { name: string; tokens: number }) => t.tokens)).to.deep.equal(request.tools.map((t: object) => encode(JSON.stringify(t)).length))
    expect(doc.totals.tools.tokens).to.equal(encode(JSON.stringify(request.tools)).length)
  })

  it('shows the agent\'s tool-change policy, per kind, in text and in --json (issue 21)', () => {
    expect(lines(r.reviewer.stdout)).to.include('tool changes: removed inert, added append-path, edited immediate, reordered keep (docs/sessions.md)')
    expect(JSON.parse(r.json.stdout).toolChange).to.deep.equal({ removed: 'inert', added: 'append-path', edited: 'immediate', reordered: 'keep' })
    expect(JSON.parse(r.noAgents.stdout)).to.not.have.property('toolChange')
  })

  it('reports the variables with owner and value, and the runtime context with its owners', () => {
    const doc = JSON.parse(r.json.stdout)
    expect(doc.variables.map((v: { name: string; owner: string; value: string | null }) => [v.name, v.owner, v.value])).to.deep.equal([
      ['cwd', 'dsh-agent', '/workspace'], ['date', 'dsh-plugin-date', doc.variables[1].value], ['model', 'dsh-agent', 'deepseek-chat'], ['provider', 'dsh-agent', 'deepseek'],
    ])
    expect(doc.variables[1].value).to.match(/^\d{4}-\d{2}-\d{2}$/)
    expect(doc.runtimeContext).to.equal('on')
    expect(doc.contexts.map((c: { name: string; order: number }) => [c.name, c.order])).to.deep.equal([['sandbox:policy', 110], ['approval:policy', 115]])
  })

  it('explains the deployment-level assembly of a file without agents', () => {
    const doc = JSON.parse(r.noAgents.stdout)
    expect(r.noAgents.code).to.equal(0)
    expect(doc.agent).to.equal(null)
    expect(doc.sections.map((s: { name: string }) => s.name)).to.deep.equal(['harness:identity', 'deployment:persona'])
    expect(doc.droppedSections).to.deep.equal([{ name: 'deployment:persona-suffix', owner: 'dsh-system-prompt', layer: 'global', reason: 'empty' }])
  })

  it('exits 1 on a broken deployment, with every problem on stderr and nothing on stdout', () => {
    expect(r.broken.code).to.equal(1)
    expect(r.broken.stdout).to.equal('')
    expect(lines(r.broken.stderr)).to.deep.equal([
      'packages/cli/tests/fixtures/bad-config.yml:4:16: plugins[0] (id "dsh-system-prompt"): invalid config: $.persona expected string but got 42',
      'packages/cli/tests/fixtures/bad-config.yml:8:25: plugins[2] (id "dsh-plugin-policies"): invalid config: $.approval.mode expected "untrusted" | "on-request" | "on-failure" | "never" but got "sometimes"',
      'error: packages/cli/tests/fixtures/bad-config.yml could not be loaded: 2 problems',
    ])
  })
})
