import { expect } from 'chai'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cacheStream } from 'dsh-wire'
import { cli, EXAMPLE, fixture, lines, runBeforeAll } from './helpers.js'

const A = fixture('stream-a.yml')
const B = fixture('stream-b.yml')
const FORMATS = 'openai-chat, openai-responses, anthropic, gemini'

describe('dsh-prompt explain --format, diff --format and explain --html: the request in its provider\'s hash order (R-WIRE, R-CACHE)', function () {
  this.timeout(60000)
  const folder = mkdtempSync(join(tmpdir(), 'dsh-stream-'))
  after(() => rmSync(folder, { recursive: true, force: true }))
  const r = runBeforeAll({
    anthropicJson: () => cli(['explain', EXAMPLE.coding, '--format', 'anthropic', '--json']),
    anthropicText: () => cli(['explain', EXAMPLE.coding, '--format', 'anthropic']),
    anthropicBody: () => cli(['render', EXAMPLE.coding, '--request', '--format', 'anthropic']),
    plainJson: () => cli(['explain', EXAMPLE.coding, '--json']),
    plainText: () => cli(['explain', EXAMPLE.coding]),
    unknown: () => cli(['explain', EXAMPLE.coding, '--format', 'cohere', '--json']),
    diffUnknown: () => cli(['diff', A, B, '--format', 'cohere']),
    noAgent: () => cli(['explain', fixture('no-agents.yml'), '--format', 'gemini', '--json']),
    diffNoAgent: () => cli(['diff', fixture('no-agents.yml'), fixture('no-agents.yml'), '--format', 'gemini']),
    diffAnthropic: () => cli(['diff', A, B, '--format', 'anthropic']),
    diffAnthropicJson: () => cli(['diff', A, B, '--format', 'anthropic', '--json']),
    diffOpenai: () => cli(['diff', A, B, '--format', 'openai-chat', '--json']),
    diffPlain: () => cli(['diff', A, B]),
    diffPlainJson: () => cli(['diff', A, B, '--json']),
    diffSame: () => cli(['diff', A, A, '--format', 'gemini']),
    diffLonger: () => cli(['diff', EXAMPLE.minimal, fixture('minimal-changed.yml'), '--format', 'anthropic']),
    htmlJson: () => cli(['explain', EXAMPLE.coding, '--html', join(folder, 'page.html'), '--json']),
    htmlMissing: () => cli(['explain', EXAMPLE.coding, '--html', join(folder, 'no/such/folder/page.html'), '--json']),
  })

  it('explain --format lists the parts in the order the format hashes them, each with its byte offset, as dsh-wire\'s cache stream measures them', () => {
    expect(r.anthropicJson.code, r.anthropicJson.stderr).to.equal(0)
    const doc = JSON.parse(r.anthropicJson.stdout)
    const body = JSON.parse(r.anthropicBody.stdout)
    const stream = cacheStream('anthropic', body)
    expect(doc.format).to.equal('anthropic')
    expect(doc.stream.order).to.deep.equal(['tools', 'system', 'messages'])
    expect(doc.stream.parts.map((p: { kind: string; name: string }) => [p.kind, p.name])).to.deep.equal([
      ['model', 'deepseek-chat'], ...body.tools.map((tool: { name: string }) => ['tool', tool.name]), ['system', 'system prompt'], ['message', 'runtime context'],
    ])
    expect(doc.stream.parts.map((p: { bytes: number }) => p.bytes)).to.deep.equal(stream.parts.map((p) => p.bytes))
    expect(doc.stream.bytes).to.equal(stream.bytes)
    let offset = 0
    for (const part of doc.stream.parts) {
      expect(part.start).to.equal(offset)
      offset += part.bytes
    }
    expect(doc.stream.parts[1]).to.deep.include({ name: 'bash', owner: 'dsh-plugin-shell', layer: 'global' })
    expect(doc.stream.parts.at(-1)).to.deep.include({ owner: 'dsh-plugin-policies', layer: 'global' })
  })

  it('explain --format prints the cache stream as a table after the explanation', () => {
    const out = lines(r.anthropicText.stdout)
    const title = out.indexOf('Cache stream (anthropic): the model, then tools, then system prompt, then messages')
    expect(title).to.be.above(0)
    expect(out[title + 1].split(/\s+/)).to.deep.equal(['#', 'part', 'name', 'owner', 'layer', 'start', 'bytes'])
    expect(out[title + 2].split(/\s{2,}/)).to.deep.equal(['1', 'model', 'deepseek-chat', '-', '-', '0', '25'])
    expect(out[title + 3].split(/\s{2,}/).slice(0, 5)).to.deep.equal(['2', 'tool', 'bash', 'dsh-plugin-shell', 'global'])
    expect(out.at(-1)).to.match(/^total: 9 parts, [\d,]+ bytes of canonical JSON without cache_control; a change in a part re-sends every byte from its start$/)
    // How a prompt version appended mid-conversation is sent to this model (deepseek-chat: not in Anthropic's table).
    const update = out.indexOf('prompt updates (append): a user message that starts with the update marker line (the cached prefix before it stays)')
    expect(update).to.be.above(0).and.below(title)
  })

  it('explain without --format prints what it printed before: no format, no stream', () => {
    expect(Object.keys(JSON.parse(r.plainJson.stdout))).to.deep.equal([
      'ok', 'command', 'file', 'agent', 'encoding', 'sections', 'completeSection', 'droppedSections', 'contexts', 'droppedContexts', 'runtimeContext', 'tools', 'variables', 'totals', 'budget', 'toolChange',
    ])
    expect(r.plainText.stdout).not.to.include('Cache stream')
    // The request total, then the agent's budget line and its tool-change policy (docs/sessions.md), end the page.
    expect(lines(r.plainText.stdout).slice(-3).map((line) => line.split(':')[0])).to.deep.equal(['Request total', 'Budget', 'tool changes'])
  })

  it('an unknown --format is a usage error (exit 2) naming the formats, for explain and diff', () => {
    expect(r.unknown.code).to.equal(2)
    expect(r.unknown.stderr).to.equal(`error: --format must be one of ${FORMATS}, received "cohere"\n`)
    expect(JSON.parse(r.unknown.stdout).error).to.deep.include({ kind: 'usage', code: 'CLI_UNKNOWN_FORMAT' })
    expect(r.diffUnknown.code).to.equal(2)
    expect(r.diffUnknown.stderr).to.equal(`error: --format must be one of ${FORMATS}, received "cohere"\n`)
  })

  it('--format on a file without agents is a usage error: there is no request to order', () => {
    expect(r.noAgent.code).to.equal(2)
    expect(JSON.parse(r.noAgent.stdout).error).to.deep.equal({
      kind: 'usage', code: 'CLI_FORMAT_NEEDS_AGENT',
      message: '--format orders an agent\'s request as its provider hashes it: packages/cli/tests/fixtures/no-agents.yml declares no agent, so there is no request (add an agents: section)',
      details: { file: 'packages/cli/tests/fixtures/no-agents.yml' },
    })
    expect(r.diffNoAgent.code).to.equal(2)
    expect(r.diffNoAgent.stderr).to.match(/^error: --format orders an agent's request as its provider hashes it: packages\/cli\/tests\/fixtures\/no-agents\.yml declares no agent/)
  })

  it('diff --format anthropic reports a tool change as the first break, before a system-prompt change, and the parts in that order', () => {
    expect(r.diffAnthropic.code).to.equal(1)
    const out = lines(r.diffAnthropic.stdout)
    expect(out.slice(3, 6)).to.deep.equal([
      'cache stream (anthropic: the model, then tools, then system prompt, then messages): the same for the first 56 bytes (A 223 bytes, B 236 bytes); first break at part 2:',
      '  A: tool "lookup" (lookup-tool, global)',
      '  B: tool "lookup" (lookup-tool, global)',
    ])
    const tools = out.findIndex((line) => line.startsWith('tools: differs'))
    const system = out.findIndex((line) => line.startsWith('system prompt: differs'))
    expect(tools).to.be.above(0)
    expect(system).to.be.above(tools)
    expect(out.at(-1)).to.equal('request prefix: differs in tools, system prompt; a provider\'s cached prefix is reused only up to the first differing byte')
    const doc = JSON.parse(r.diffAnthropicJson.stdout)
    expect(doc.format).to.equal('anthropic')
    expect(doc.order).to.deep.equal(['tools', 'system', 'snapshot'])
    expect(Object.keys(doc.parts)).to.deep.equal(['tools', 'system', 'snapshot'])
    expect(doc.stream.firstBreak).to.deep.equal({
      position: 2,
      a: { kind: 'tool', name: 'lookup', owner: 'lookup-tool', layer: 'global', where: null, piece: null },
      b: { kind: 'tool', name: 'lookup', owner: 'lookup-tool', layer: 'global', where: null, piece: null },
    })
  })

  it('diff --format openai-chat reports the system-prompt change first, at the section where it starts', () => {
    const doc = JSON.parse(r.diffOpenai.stdout)
    expect(doc.order).to.deep.equal(['system', 'tools', 'snapshot'])
    const spot = { kind: 'system', name: 'system prompt', owner: null, layer: null, where: 'in', piece: { kind: 'section', name: 'deployment:persona', owner: 'dsh-system-prompt', layer: 'global' } }
    expect(doc.stream.firstBreak).to.deep.equal({ position: 2, a: spot, b: spot })
    expect(doc.stream.sharedBytes).to.be.below(doc.stream.bytes[0])
  })

  it('diff --format says where a side\'s text ends when the other goes on', () => {
    expect(r.diffLonger.code).to.equal(1)
    expect(lines(r.diffLonger.stdout).slice(4, 6)).to.deep.equal([
      '  A: system prompt, at the end of its text (the other side goes on)',
      '  B: system prompt, section "deployment:persona" (dsh-system-prompt, global)',
    ])
  })

  it('diff without --format prints what it printed before: no cache stream line, no format in the JSON', () => {
    expect(r.diffPlain.code).to.equal(1)
    expect(r.diffPlain.stdout).not.to.include('cache stream')
    const out = lines(r.diffPlain.stdout)
    expect(out[3]).to.equal('')
    expect(out[4]).to.match(/^system prompt: differs/)
    expect(Object.keys(JSON.parse(r.diffPlainJson.stdout))).to.deep.equal(['ok', 'command', 'identical', 'encoding', 'a', 'b', 'parts'])
  })

  it('diff --format of two identical requests says the streams are byte-identical (exit 0)', () => {
    expect(r.diffSame.code).to.equal(0)
    expect(lines(r.diffSame.stdout)[3]).to.match(/^cache stream \(gemini: the model, then system prompt, then tools, then messages\): byte-identical \([\d,]+ bytes\)$/)
  })

  it('explain --html --json writes the page and names it in the JSON', () => {
    expect(r.htmlJson.code, r.htmlJson.stderr).to.equal(0)
    expect(JSON.parse(r.htmlJson.stdout).html).to.equal(join(folder, 'page.html'))
    expect(readFileSync(join(folder, 'page.html'), 'utf8')).to.match(/^<!doctype html>\n/)
  })

  it('explain --html to a file that cannot be written is a usage error naming the file', () => {
    const file = join(folder, 'no/such/folder/page.html')
    expect(r.htmlMissing.code).to.equal(2)
    expect(existsSync(file)).to.equal(false)
    const { error } = JSON.parse(r.htmlMissing.stdout)
    expect(error).to.deep.include({ kind: 'usage', code: 'CLI_HTML_NOT_WRITTEN' })
    expect(error.message).to.match(new RegExp(`^cannot write the page to ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: ENOENT`))
  })
})
