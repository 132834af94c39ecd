import { expect } from 'chai'
import { terminalSafe } from 'dsh-loader'
import { cli, fixture, runBeforeAll } from './helpers.js'

/** What a terminal acts on: C0 (but LF), DEL, C1, line/paragraph separators, bidi marks and overrides. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

describe('dsh-prompt: strings from the deployment are escaped for the terminal', function () {
  this.timeout(90000)
  const file = fixture('hostile-strings.yml')
  const r = runBeforeAll({
    render: () => cli(['render', file]),
    explain: () => cli(['explain', file]),
    check: () => cli(['check', file]),
    diff: () => cli(['diff', file, file]),
    coloured: () => cli(['render', file], { env: { FORCE_COLOR: '1' } }),
    finding: () => cli(['check', fixture('hostile-row.yml')]),
    unknownAgent: () => cli(['render', file, '--agent', 'nope']),
  })

  for (const command of ['render', 'explain', 'check', 'diff', 'finding', 'unknownAgent'] as const) {
    it(`${command}: no control, CR or bidi override reaches stdout or stderr, and no line is forged`, () => {
      const { stdout, stderr } = r[command]
      expect(stdout + stderr).not.to.match(UNSAFE)
      for (const line of (stdout + stderr).split('\n')) expect(line).not.to.match(/^FAKE/)
    })
  }

  it('a finding and an error message are one line each, whatever the names in them hold', () => {
    expect(r.finding.code).to.equal(1)
    expect(r.finding.stdout.split('\n')[0]).to.include('section "clock:now" (clock\\nFAKE: ok: no problem found\\e[2K, global) renders differently')
    expect(r.unknownAgent.code).to.equal(2)
    expect(r.unknownAgent.stderr).to.equal('error: agent "nope" is not declared in packages/cli/tests/fixtures/hostile-strings.yml; declared agents: x\\nFAKE: ok: no problem found\n')
  })

  it('render shows each hostile fact escaped, visibly, in its header', () => {
    expect(r.render.code).to.equal(0)
    expect(r.render.stdout.split('\n')[0]).to.equal(
      '# packages/cli/tests/fixtures/hostile-strings.yml: agent "x\\nFAKE: ok: no problem found" (model deepseek-chat\\e]0;OWNED\\u0007, cwd /tmp/\\rFAKE\\u202egnp.exe)')
    expect(r.render.stdout).to.include('Persona with an escape \\e[2J and a bell \\u0007.')
  })

  it('with colours on, the colours stay and the deployment\'s escapes do not', () => {
    expect(r.coloured.stdout).to.include('\x1b[1m')
    expect(r.coloured.stdout).not.to.include('\x1b]')
    expect(r.coloured.stdout).not.to.include('\x1b[2J')
  })

  it('terminalSafe escapes what a terminal acts on and leaves other text as it is', () => {
    expect(terminalSafe('a\nb\r\tc\x1b[31m\u0085\u202e')).to.equal('a\\nb\\r\\tc\\e[31m\\u0085\\u202e')
    expect(terminalSafe('a\nb\tc\x1b[2J', 'lines')).to.equal('a\nb\tc\\e[2J')
    expect(terminalSafe('\x1b[1mbold\x1b[22m\x1b]0;t\x07', 'coloured')).to.equal('\x1b[1mbold\x1b[22m\\e]0;t\\u0007')
    expect(terminalSafe('plain: ünïcödé 🙂')).to.equal('plain: ünïcödé 🙂')
  })
})
