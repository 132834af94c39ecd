import { expect } from 'chai'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { cli, EXAMPLE, fixture, lines, runBeforeAll } from './helpers.js'

describe('dsh-prompt diff', function () {
  this.timeout(60000)
  const r = runBeforeAll({
    agents: () => cli(['diff', EXAMPLE.coding, '--agent', 'main', '--agent', 'reviewer', '--json']),
    agentsText: () => cli(['diff', EXAMPLE.coding, '--agent', 'main', '--agent', 'reviewer']),
    same: () => cli(['diff', EXAMPLE.coding, EXAMPLE.coding]),
    files: () => cli(['diff', EXAMPLE.minimal, fixture('minimal-changed.yml')]),
    filesJson: () => cli(['diff', EXAMPLE.minimal, fixture('minimal-changed.yml'), '--json']),
    oneFile: () => cli(['diff', EXAMPLE.coding, '--agent', 'main']),
    broken: () => cli(['diff', EXAMPLE.minimal, fixture('unknown-plugin.yml')]),
  })

  it('exits 0 and says the request prefix is byte-identical when nothing differs', () => {
    const { code, stdout, stderr } = r.same
    expect(code).to.equal(0)
    expect(stderr).to.equal('')
    expect(stdout).to.match(/\nsystem prompt: identical \([\d,]+ bytes\)\n/)
    expect(stdout).to.match(/\ntools: identical \([\d,]+ bytes\)\n/)
    expect(stdout).to.include('\nruntime context: identical (580 bytes)\n')
    expect(lines(stdout).at(-1)).to.equal('request prefix: byte-identical (system prompt, tools and runtime context)')
  })

  it('exits 1 for two agents of one file, with the first differing byte, the section on each side and its owner', () => {
    const doc = JSON.parse(r.agents.stdout)
    expect(r.agents.code).to.equal(1)
    expect(doc.identical).to.equal(false)
    expect([doc.a.agent, doc.b.agent]).to.deep.equal(['main', 'reviewer'])
    const system = doc.parts.system
    // The identity line and its blank line (58 bytes) plus "You " are shared; then "a" (coding agent) and "r" (review).
    expect(system.firstByte).to.equal(62)
    expect(system.at).to.deep.equal([
      { where: 'in', name: 'deployment:persona', owner: 'dsh-system-prompt', layer: 'global' },
      { where: 'in', name: 'deployment:persona', owner: 'preset:reviewer', layer: 'preset:reviewer' },
    ])
    expect(system.patch).to.include('\n-## write\n')
    expect(doc.parts.tools.identical).to.equal(false)
    expect(doc.parts.tools.at.map((at: { name: string }) => at.name)).to.deep.equal(['edit', 'glob'])
    expect(doc.parts.snapshot).to.deep.include({ identical: true, firstByte: null, patch: null })
  })

  it('prints each differing part with its offsets, where it falls, and a unified diff', () => {
    const out = lines(r.agentsText.stdout)
    const start = out.findIndex((line) => line.startsWith('system prompt: differs'))
    expect(out[start]).to.match(/^system prompt: differs from byte 62 \(token 14\); A [\d,]+ bytes, B [\d,]+ bytes$/)
    expect(out.slice(start + 1, start + 5)).to.deep.equal([
      '  A: section "deployment:persona" (dsh-system-prompt, global)',
      '  B: section "deployment:persona" (preset:reviewer)',
      '--- a/examples/coding-agent/deployment.yml (agent main)',
      '+++ b/examples/coding-agent/deployment.yml (agent reviewer)',
    ])
    expect(out.at(-1)).to.equal('request prefix: differs in system prompt, tools; a provider\'s cached prefix is reused only up to the first differing byte')
  })

  it('compares two files: the token offset is where the o200k_base tokens of the two system prompts first differ', () => {
    const doc = JSON.parse(r.filesJson.stdout)
    const a = 'You are an AI agent powered by the DeepSeek Harness SDK.\n\nYou are a helpful assistant. You are running on deepseek-chat.'
    const b = a + ' Keep answers short.'
    const [ta, tb] = [encode(a), encode(b)]
    let token = 0
    while (token < ta.length && ta[token] === tb[token]) token++
    expect(r.filesJson.code).to.equal(1)
    expect(doc.parts.system).to.deep.include({ firstByte: Buffer.byteLength(a), firstToken: token, bytes: [120, 140] })
    expect(doc.parts.system.at).to.deep.equal([{ where: 'end' }, { where: 'in', name: 'deployment:persona', owner: 'dsh-system-prompt', layer: 'global' }])
    expect(r.files.stdout).to.include([
      '@@ -1,3 +1,3 @@',
      ' You are an AI agent powered by the DeepSeek Harness SDK.',
      ' ',
      '-You are a helpful assistant. You are running on deepseek-chat.',
      '+You are a helpful assistant. You are running on deepseek-chat. Keep answers short.',
    ].join('\n'))
    expect(r.files.stdout).to.include('  A: the end of the text (the other side goes on)\n')
  })

  it('refuses one file without two --agent options as a usage error (exit 2)', () => {
    expect(r.oneFile.code).to.equal(2)
    expect(r.oneFile.stderr).to.equal('error: diff compares two deployment files, or one deployment file with two --agent options (got 1 file and 1 --agent option)\n')
  })

  it('exits 2 (trouble, as diff(1)) when a deployment cannot be loaded', () => {
    expect(r.broken.code).to.equal(2)
    expect(r.broken.stdout).to.equal('')
    expect(r.broken.stderr).to.match(/^packages\/cli\/tests\/fixtures\/unknown-plugin\.yml:4:11: plugins\[2\] \(id "dsh-plugin-nope"\): unknown plugin "dsh-plugin-nope"/)
  })
})
