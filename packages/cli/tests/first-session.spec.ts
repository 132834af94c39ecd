import { expect } from 'chai'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cli, EXAMPLE, fixture, lines, REPO, runBeforeAll } from './helpers.js'

const F = (name: string) => fixture(`${name}.yml`)

/** Copies of two deployments outside the repository (in `dir`), so the CLI shows them by their absolute paths. */
function outside(dir: string): [string, string] {
  const files: [string, string] = [join(dir, 'a.yml'), join(dir, 'b.yml')]
  copyFileSync(join(REPO, EXAMPLE.minimal), files[0])
  copyFileSync(join(REPO, F('minimal-changed')), files[1])
  return files
}

// What a new user met in a first session with the CLI: each message names the culprit and the fix,
// and says what the model really receives.
describe('dsh-prompt in a first session', function () {
  this.timeout(90000)
  const dir = mkdtempSync(join(tmpdir(), 'dsh-first-session-'))
  after(() => rmSync(dir, { recursive: true, force: true }))
  const r = runBeforeAll({
    clockContext: () => cli(['check', F('clock-context')]),
    allow: () => cli(['check', F('preset-allow')]),
    emptyCwd: () => cli(['check', F('empty-cwd')], { env: { DSH_TEST_ROOT: '' } }),
    noCwd: () => cli(['render', F('no-cwd')]),
    complete: () => cli(['explain', F('complete-preset')]),
    completeJson: () => cli(['explain', F('complete-preset'), '--json']),
    twoAgents: () => cli(['render', EXAMPLE.coding, '--agent', 'main', '--agent', 'reviewer']),
    yamlRender: () => cli(['render', F('yaml-syntax')]),
    yamlCheck: () => cli(['check', F('yaml-syntax')]),
    checkHelp: () => cli(['check', '--help']),
    renderHelp: () => cli(['render', '--help']),
    absolute: () => cli(['diff', ...outside(dir)]),
    none: () => cli([]),
    noInject: () => cli(['check', F('no-inject')]),
    barePath: () => cli(['check', F('bare-path')]),
  })

  it('check reports a changing runtime context as a new snapshot per request, not as a lost prefix cache', () => {
    expect(r.clockContext.code).to.equal(1)
    expect(lines(r.clockContext.stdout)[0]).to.match(/^packages\/cli\/tests\/fixtures\/clock-context\.yml:4:5: agent "main": context "clock:now" \(\.\/clock-context\.mjs, global\) renders differently on two renders in a row \(from byte \d+\): a clock or random value changes the runtime context on every request, so every request appends a new snapshot message to the conversation \(the cached prefix before it survives\)$/)
  })

  it('check says that a preset allowing only unregistered tools leaves its agents without any tool', () => {
    expect(r.allow.code).to.equal(1)
    expect(lines(r.allow.stdout)).to.deep.equal([
      'packages/cli/tests/fixtures/preset-allow.yml:9:11: preset "runner" allows a tool that no plugin registers: "bash" (no name of its tools.allow is registered, so its agents get no tool at all)',
      'packages/cli/tests/fixtures/preset-allow.yml:10:11: preset "reader" allows a tool that no plugin registers: "bash" (such a name allows nothing; its agents get only the registered tools of tools.allow)',
      '2 problems in packages/cli/tests/fixtures/preset-allow.yml',
    ])
  })

  it('refuses an agent cwd that a set but empty ${VAR} made empty, at the value', () => {
    expect(r.emptyCwd.code).to.equal(1)
    expect(lines(r.emptyCwd.stdout)).to.deep.equal([
      'packages/cli/tests/fixtures/empty-cwd.yml:9:10: invalid "agents": $[0].cwd is empty, so {{cwd}} would render as nothing (set a value or leave cwd out; a ${VAR} that is set but empty gives "", ${VAR:-default} falls back to the default)',
      '1 problem in packages/cli/tests/fixtures/empty-cwd.yml',
    ])
  })

  it('render of an agent without cwd whose prompt uses {{cwd}} says where to set it', () => {
    expect(r.noCwd.code).to.equal(1)
    expect(r.noCwd.stderr).to.equal('error: cannot render agent "main": prompt variable "{{cwd}}" has no value for this assembly (section "deployment:persona"); set cwd: on the agent in agents: (run "dsh-prompt check" to list every problem)\n')
  })

  it('explain names the complete section and every section it leaves out', () => {
    expect(r.complete.code).to.equal(0)
    expect(lines(r.complete.stdout)).to.include('left out by the complete section "deployment:persona", which is the whole prompt: harness:identity (dsh-system-prompt, global), plan:policy (dsh-plugin-policies, global), team:policy (dsh-plugin-policies, global), deployment:persona-suffix (dsh-system-prompt, global)')
    const doc = JSON.parse(r.completeJson.stdout)
    expect(doc.completeSection).to.equal('deployment:persona')
    expect(doc.droppedSections.map((d: { name: string; reason: string }) => `${d.name}=${d.reason}`))
      .to.deep.equal(['harness:identity=complete', 'plan:policy=complete', 'team:policy=complete', 'deployment:persona-suffix=complete'])
  })

  it('render with --agent given twice is a usage error that points at diff, instead of showing the last agent', () => {
    expect(r.twoAgents.code).to.equal(2)
    expect(r.twoAgents.stdout).to.equal('')
    expect(lines(r.twoAgents.stderr)[0]).to.equal('error: render shows one agent, but --agent was given twice (main, reviewer); to compare two agents, run "dsh-prompt diff <deployment> --agent main --agent reviewer"')
  })

  it('after several YAML syntax errors, says on stderr that the later ones often follow from the first', () => {
    const hint = '(the problems after the first YAML syntax error often follow from it: fix that one first, then run again)'
    expect(lines(r.yamlRender.stderr).slice(-2)).to.deep.equal(['error: packages/cli/tests/fixtures/yaml-syntax.yml could not be loaded: 2 problems', hint])
    expect(lines(r.yamlCheck.stdout).at(-1)).to.equal('2 problems in packages/cli/tests/fixtures/yaml-syntax.yml')
    expect(r.yamlCheck.stderr).to.equal(hint + '\n')
  })

  it('help promises section= lines and the warn default only where they hold (not for check)', () => {
    const flat = (text: string) => text.replace(/\s+/g, ' ')
    expect(flat(r.renderHelp.stdout)).to.include('-v, --verbose log at debug level on stderr (shows each agent step\'s section=<name> bytes=<n> lines)')
    expect(flat(r.renderHelp.stdout)).to.include('--log-level <level> log level on stderr; default warn (choices:')
    expect(flat(r.checkHelp.stdout)).to.include('-v, --verbose log at debug level on stderr --log-level')
    expect(flat(r.checkHelp.stdout)).to.include('--log-level <level> log level on stderr; default silent, as check reports what the log would say as findings (choices:')
  })

  it('diff of absolute paths heads the patch with a/ and b/ and no doubled slash', () => {
    expect(r.absolute.code).to.equal(1)
    const [a, b] = lines(r.absolute.stdout).slice(0, 2).map((line) => line.replace(/^# [AB]: (\/.*\.yml): .*$/, '$1'))
    expect(a).to.match(/^\/.*\/a\.yml$/)
    expect(lines(r.absolute.stdout)).to.include.members([`--- a${a} (agent assistant)`, `+++ b${b} (agent assistant)`])
  })

  it('a plugin file that reads a service it does not inject is told what to add to inject', () => {
    expect(r.noInject.code).to.equal(1)
    expect(lines(r.noInject.stdout)[0]).to.equal('packages/cli/tests/fixtures/no-inject.yml:3:5: plugins[1] (id "./no-inject.mjs"): apply failed: cannot get property "systemPrompt" without inject (add "systemPrompt" to the plugin\'s inject list, as in inject: ["systemPrompt"])')
  })

  it('a plugin file named without ./ is told how to write its path', () => {
    expect(r.barePath.code).to.equal(1)
    expect(lines(r.barePath.stdout)[0]).to.equal('packages/cli/tests/fixtures/bare-path.yml:3:11: plugins[1] (id "clock.mjs"): unknown plugin "clock.mjs": no package of that name found from packages/cli/tests/fixtures or from packages/loader (a file of your own is named by a path starting with ./, ../ or /, such as "./clock.mjs")')
  })

  it('without a command, prints the help on stderr (exit 2) without a second pointer to the help', () => {
    expect(r.none.code).to.equal(2)
    expect(r.none.stderr).to.match(/^Usage: dsh-prompt \[options\] \[command\]/)
    expect(r.none.stderr).to.not.include('(run "dsh-prompt --help"')
  })
})
