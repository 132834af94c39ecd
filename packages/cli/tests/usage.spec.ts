import { expect } from 'chai'
import { cli, EXAMPLE, lines, type Run, runBeforeAll } from './helpers.js'

const HINT = '(run "dsh-prompt --help" or "dsh-prompt <command> --help" for usage)'

describe('dsh-prompt usage', function () {
  this.timeout(60000)
  const r: Record<string, Run> = runBeforeAll({
    none: () => cli([]),
    help: () => cli(['--help']),
    version: () => cli(['--version']),
    renderHelp: () => cli(['render', '--help']),
    explainHelp: () => cli(['explain', '--help']),
    diffHelp: () => cli(['diff', '--help']),
    checkHelp: () => cli(['check', '--help']),
    unknownCommand: () => cli(['show', EXAMPLE.minimal]),
    unknownOption: () => cli(['render', EXAMPLE.minimal, '--agnet', 'x']),
    missingFileJson: () => cli(['render', '--json']),
    extra: () => cli(['render', EXAMPLE.minimal, 'extra.yml']),
    logLevel: () => cli(['render', EXAMPLE.minimal, '--log-level', 'loud']),
    noFile: () => cli(['render', 'examples/nowhere.yml']),
  })

  it('prints the commands and the exit statuses with --help (exit 0)', () => {
    expect(r.help.code).to.equal(0)
    expect(r.help.stdout).to.match(/^Usage: dsh-prompt \[options\] \[command\]/)
    for (const command of ['render', 'explain', 'diff', 'check']) expect(r.help.stdout).to.match(new RegExp(`\\n  ${command} \\[options\\]`))
    expect(r.help.stdout).to.include('Exit status: 0 ok, 1 the deployment (or the check) is wrong, 2 usage error.')
  })

  it('gives every command a --help listing --json and its own options', () => {
    const expected: Record<string, string[]> = {
      renderHelp: ['--agent <id>', '--step-input <text>', '--request'],
      explainHelp: ['--agent <id>'],
      diffHelp: ['--agent <id>'],
      checkHelp: ['--render-gap <ms>'],
    }
    for (const [name, options] of Object.entries(expected)) {
      expect(r[name].code, name).to.equal(0)
      for (const option of [...options, '--json', '--no-color', '--verbose', '--log-level <level>', '--stack']) expect(r[name].stdout, name).to.include(option)
    }
  })

  it('prints the version', () => {
    expect(r.version.code).to.equal(0)
    expect(r.version.stdout).to.equal('0.1.0\n')
  })

  it('exits 2 with the help on stderr when no command is given', () => {
    expect(r.none.code).to.equal(2)
    expect(r.none.stdout).to.equal('')
    expect(r.none.stderr).to.match(/^Usage: dsh-prompt/)
  })

  it('exits 2 on an unknown command, an unknown option, an extra file argument and a bad --log-level', () => {
    const cases: Array<[Run, string]> = [
      [r.unknownCommand, "error: unknown command 'show'"],
      [r.unknownOption, "error: unknown option '--agnet'\n(Did you mean --agent?)"],
      [r.extra, "error: too many arguments for 'render'. Expected 1 argument but got 2."],
      [r.logLevel, "error: option '--log-level <level>' argument 'loud' is invalid. Allowed choices are silent, error, warn, info, debug."],
    ]
    for (const [run, message] of cases) {
      expect(run.code, message).to.equal(2)
      expect(run.stdout, message).to.equal('')
      expect(run.stderr, message).to.equal(`${message}\n${HINT}\n`)
    }
  })

  it('prints a usage error as one JSON document with --json, and the message on stderr', () => {
    expect(r.missingFileJson.code).to.equal(2)
    expect(r.missingFileJson.stderr).to.equal(`error: missing required argument 'deployment'\n${HINT}\n`)
    expect(JSON.parse(r.missingFileJson.stdout)).to.deep.equal({ ok: false, exitCode: 2, error: { kind: 'usage', code: 'CLI_USAGE', message: "missing required argument 'deployment'" } })
  })

  it('exits 1 for a deployment file that does not exist', () => {
    expect(r.noFile.code).to.equal(1)
    expect(lines(r.noFile.stderr)).to.deep.equal([
      'examples/nowhere.yml: cannot read the deployment file: no such file',
      'error: examples/nowhere.yml could not be loaded: 1 problem',
    ])
  })
})
