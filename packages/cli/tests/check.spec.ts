import { expect } from 'chai'
import { ANSI, cli, EXAMPLE, fixture, lines, runBeforeAll } from './helpers.js'

const F = (name: string) => fixture(`${name}.yml`)

describe('dsh-prompt check', function () {
  this.timeout(90000)
  const r = runBeforeAll({
    coding: () => cli(['check', EXAMPLE.coding]),
    oda: () => cli(['check', EXAMPLE.oda]),
    minimal: () => cli(['check', EXAMPLE.minimal, '--json']),
    yaml: () => cli(['check', F('yaml-syntax')]),
    plugin: () => cli(['check', F('unknown-plugin')]),
    config: () => cli(['check', F('bad-config'), '--json']),
    variable: () => cli(['check', F('unknown-variable')]),
    toolOrder: () => cli(['check', F('bad-tool-order')]),
    complete: () => cli(['check', F('two-complete')]),
    // Coloured on purpose: the message is asserted without the escapes, and the escapes are asserted too.
    clock: () => cli(['check', F('clock')], { env: { FORCE_COLOR: '1' } }),
    close: () => cli(['check', F('close-sections')]),
    declared: () => cli(['check', F('declared-clock'), '--json']),
    order: () => cli(['check', F('volatile-order')]),
    small: () => cli(['check', EXAMPLE.minimal, '--max-file-size', '50']),
    badSize: () => cli(['check', EXAMPLE.minimal, '--max-file-size', 'big']),
    fewTokens: () => cli(['check', EXAMPLE.minimal, '--max-yaml-tokens', '10']),
    manyTokens: () => cli(['check', EXAMPLE.minimal, '--max-yaml-tokens', '100000', '--max-quoted-chars', '1']),
    badTokens: () => cli(['check', EXAMPLE.minimal, '--max-yaml-tokens', '1e3']),
    orderJson: () => cli(['check', F('volatile-order'), '--json']),
    agents: () => cli(['check', F('agent-problems')]),
    shape: () => cli(['check', F('agents-shape')]),
    service: () => cli(['check', F('no-agent-service')]),
    presets: () => cli(['check', F('preset-problems')]),
    gap: () => cli(['check', EXAMPLE.minimal, '--render-gap', 'soon']),
    providers: () => cli(['check', F('failing-providers')]),
    applies: () => cli(['check', F('failing-applies')]),
  })

  it('reports every failing provider of an assembly at once, each at its plugin\'s row (issue 24)', () => {
    const file = 'packages/cli/tests/fixtures/failing-providers.yml'
    expect([r.providers.code, r.providers.stderr]).to.deep.equal([1, ''])
    expect(lines(r.providers.stdout)).to.deep.equal([
      `${file}:4:5: agent "main": prompt section "first" text provider of plugin "first-thrower" failed: first provider failed`,
      `${file}:5:5: agent "main": prompt context "second" text provider of plugin "second-thrower" failed: second provider failed`,
      `${file}:5:5: agent "main": prompt variable "count" provider of plugin "second-thrower" returned a number (3); expected a string or undefined`,
      `3 problems in ${file}`,
    ])
  })

  it('prints nothing but its report: a plugin whose apply throws is a finding, with no log line on stderr (issue 24)', () => {
    const file = 'packages/cli/tests/fixtures/failing-applies.yml'
    expect([r.applies.code, r.applies.stderr]).to.deep.equal([1, ''])
    expect(lines(r.applies.stdout)).to.deep.equal([
      `${file}:3:5: plugins[1] (id "apply-thrower"): apply failed: apply failed`,
      `${file}:5:5: plugins[2] (id "apply-thrower-again"): apply failed: apply failed`,
      `2 problems in ${file}`,
    ])
  })

  it('passes every example with exit 0 and a one-line ok summary', () => {
    expect([r.coding.code, r.oda.code, r.minimal.code]).to.deep.equal([0, 0, 0])
    expect(r.coding.stdout).to.equal('ok: examples/coding-agent/deployment.yml: 8 plugins; 2 agents (main, reviewer) assembled, rendered twice and checked: no problem found\n')
    expect(r.oda.stdout).to.equal('ok: examples/oda-defaults/deployment.yml: 5 plugins; 1 agent (oda) assembled, rendered twice and checked: no problem found\n')
    expect(r.coding.stderr + r.oda.stderr + r.minimal.stderr).to.equal('')
  })

  it('prints one JSON document with --json', () => {
    expect(JSON.parse(r.minimal.stdout)).to.deep.equal({
      ok: true, command: 'check', file: 'examples/minimal/deployment.yml', problems: [], checked: { plugins: 2, disabled: 0, agents: ['assistant'] },
    })
  })

  it('reports a YAML syntax error with line and column', () => {
    expect(r.yaml.code).to.equal(1)
    expect(lines(r.yaml.stdout)[0]).to.equal('packages/cli/tests/fixtures/yaml-syntax.yml:5:1: YAML syntax error: Missing closing "quote')
    expect(lines(r.yaml.stdout).at(-1)).to.equal('2 problems in packages/cli/tests/fixtures/yaml-syntax.yml')
  })

  it('reports an unknown plugin naming the row and where it looked', () => {
    expect(r.plugin.code).to.equal(1)
    expect(lines(r.plugin.stdout)).to.deep.equal([
      'packages/cli/tests/fixtures/unknown-plugin.yml:4:11: plugins[2] (id "dsh-plugin-nope"): unknown plugin "dsh-plugin-nope": no package of that name found from packages/cli/tests/fixtures or from packages/loader',
      '1 problem in packages/cli/tests/fixtures/unknown-plugin.yml',
    ])
  })

  it('reports every invalid config at once, as JSON problems with file, line, column, entry and key', () => {
    const doc = JSON.parse(r.config.stdout)
    expect(r.config.code).to.equal(1)
    expect(doc.ok).to.equal(false)
    expect(doc.problems).to.deep.equal([
      {
        file: 'packages/cli/tests/fixtures/bad-config.yml', message: 'invalid config: $.persona expected string but got 42', line: 4, column: 16,
        entry: 'plugins[0] (id "dsh-system-prompt")', id: 'dsh-system-prompt', key: 'plugins[0].config.persona', kind: 'load', code: 'LOADER_INVALID_CONFIG', where: [],
      },
      {
        file: 'packages/cli/tests/fixtures/bad-config.yml', message: 'invalid config: $.approval.mode expected "untrusted" | "on-request" | "on-failure" | "never" but got "sometimes"',
        line: 8, column: 25, entry: 'plugins[2] (id "dsh-plugin-policies")', id: 'dsh-plugin-policies', key: 'plugins[2].config.approval.mode', kind: 'load', code: 'LOADER_INVALID_CONFIG', where: [],
      },
    ])
  })

  it('reports an unknown variable for every agent and a valueless one for the agent without a value, at the persona in the file', () => {
    expect(r.variable.code).to.equal(1)
    expect(lines(r.variable.stdout)).to.deep.equal([
      'packages/cli/tests/fixtures/unknown-variable.yml:4:16: agents "main", "helper": section "deployment:persona" (dsh-system-prompt, global): unknown prompt variable "{{team}}" at line 1, column 26; registered variables: cwd, model, provider',
      'packages/cli/tests/fixtures/unknown-variable.yml:4:16: agent "helper": section "deployment:persona" (dsh-system-prompt, global): prompt variable "{{cwd}}" has no value for this assembly at line 1, column 47; set cwd: on the agent in agents:',
      '2 problems in packages/cli/tests/fixtures/unknown-variable.yml',
    ])
  })

  it('reports a toolOrder naming an unregistered tool against the dsh-system-prompt row, at the unregistered name in config.toolOrder', () => {
    expect(r.toolOrder.code).to.equal(1)
    expect(lines(r.toolOrder.stdout)[0]).to.equal('packages/cli/tests/fixtures/bad-tool-order.yml:4:25: plugins[0] (id "dsh-system-prompt"): toolOrder lists unregistered tool "shell"; known tools: bash')
  })

  it('reports two complete sections with the plugin that registered each', () => {
    expect(r.complete.code).to.equal(1)
    expect(lines(r.complete.stdout)[0]).to.equal('packages/cli/tests/fixtures/two-complete.yml:4:5: agent "main": multiple complete prompt sections are active: "house:rules", "legal:notice" ("house:rules" from ./complete-sections.mjs, global; "legal:notice" from ./complete-sections.mjs, global)')
  })

  it('refuses a deployment file over --max-file-size before reading it, and refuses a size that is not a number of bytes', () => {
    expect(r.small.code).to.equal(1)
    expect(r.small.stdout).to.match(/^examples\/minimal\/deployment\.yml: cannot read the deployment file: it is \d+ bytes, more than the limit of 50 bytes \(raise it with --max-file-size <bytes>, or maxFileBytes when loading\)\n/)
    expect(r.badSize.code).to.equal(2)
    expect(r.badSize.stderr).to.include('--max-file-size must be a whole number of bytes (at least 1), received "big"')
  })

  it('--max-yaml-tokens and --max-quoted-chars set the loader\'s YAML limits, and refuse a value that is not a whole number', () => {
    expect(r.fewTokens.code).to.equal(1)
    expect(r.fewTokens.stdout).to.match(/more than (the limit of )?10 /)
    expect(r.manyTokens.code, r.manyTokens.stdout).to.equal(0)
    expect(r.badTokens.code).to.equal(2)
    expect(r.badTokens.stderr).to.include('--max-yaml-tokens must be a whole number (at least 1), received "1e3"')
  })

  it('warns, without failing, when a more volatile section renders before a less volatile one, naming both and the bytes at risk (R-CACHE-9)', () => {
    expect(r.order.code).to.equal(0)
    expect(lines(r.order.stdout)).to.deep.equal([
      'packages/cli/tests/fixtures/volatile-order.yml:5:5: warning: agent "main": section "notes:today" (./volatile-order.mjs, global, daily) renders before the less volatile section "notes:rules" (static): each change of it sends the 44 bytes of system prompt after it again, uncached (give it a later order, or a band: \'last\')',
      'ok: packages/cli/tests/fixtures/volatile-order.yml: 3 plugins; 1 agent (main) assembled, rendered twice and checked: no problem found (1 warning)',
    ])
    const json = JSON.parse(r.orderJson.stdout)
    expect([json.ok, json.problems, json.warnings.map((w: { code: string; kind: string; line: number }) => [w.code, w.kind, w.line])])
      .to.deep.equal([true, [], [['CLI_VOLATILE_BEFORE_STABLE', 'volatility', 5]]])
  })

  it('accepts parts declared volatile, by themselves or through a variable, and still refuses an undeclared one (R-CACHE-8)', () => {
    expect(r.declared.code).to.equal(1)
    const problems = JSON.parse(r.declared.stdout).problems as { kind: string; message: string }[]
    expect(problems.map((p) => [p.kind, p.message.split(' (')[0]])).to.deep.equal([['unstable', 'section "clock:undeclared"']])
  })

  it('reports a section whose text differs between two renders in a row (a clock)', () => {
    expect(r.clock.code).to.equal(1)
    expect(lines(r.clock.stdout.replace(/\x1b\[[0-9;]*m/g, ''))[0]).to.match(/^packages\/cli\/tests\/fixtures\/clock\.yml:4:5: agent "main": section "clock:now" \(\.\/clock\.mjs, global\) renders differently on two renders in a row \(from byte \d+\): a clock or random value changes the system prompt on every request and defeats the provider's prefix cache$/)
  })

  it('reports first-party sections closer than ten apart', () => {
    expect(r.close.code).to.equal(1)
    expect(lines(r.close.stdout)[0]).to.equal('packages/cli/tests/fixtures/close-sections.yml:3:5: the deployment: first-party sections "plan:policy" (order 500) and "team:policy" (order 505) are closer than ten apart (keep first-party placements ten apart)')
  })

  it('reports an agent that cannot be created and still checks the others', () => {
    expect(r.agents.code).to.equal(1)
    expect(lines(r.agents.stdout)).to.deep.equal([
      'packages/cli/tests/fixtures/agent-problems.yml:4:16: agent "helper": section "deployment:persona" (dsh-system-prompt, global): prompt variable "{{cwd}}" has no value for this assembly at line 1, column 13; set cwd: on the agent in agents:',
      'packages/cli/tests/fixtures/agent-problems.yml:12:49: agent "critic" could not be created: unknown preset "critic"; known presets: reviewer',
      '2 problems in packages/cli/tests/fixtures/agent-problems.yml',
    ])
  })

  it('reports every problem of the agents: list at once', () => {
    expect(lines(r.shape.stdout)).to.deep.equal([
      'packages/cli/tests/fixtures/agents-shape.yml:5:48: invalid "agents": $[0].presett is not a key of an agent (allowed: id, model, provider, cwd, preset, parent, start, promptChange, profile, toolChange, wire)',
      'packages/cli/tests/fixtures/agents-shape.yml:6:48: invalid "agents": $[1].parent "later" is not an agent listed before "child" (list parents before their children)',
      'packages/cli/tests/fixtures/agents-shape.yml:7:5: invalid "agents": $[2].model missing required value',
      'packages/cli/tests/fixtures/agents-shape.yml:8:11: invalid "agents": $[3].id "main" is already the id of agents[0] (agent ids are unique in the file)',
      '4 problems in packages/cli/tests/fixtures/agents-shape.yml',
    ])
  })

  it('reports agents declared without the agents service', () => {
    expect(lines(r.service.stdout)[0]).to.equal('packages/cli/tests/fixtures/no-agent-service.yml:4:3: agents are declared but no plugin provides the agents service: add a row "- name: dsh-agent" under plugins:')
  })

  it('reports a preset naming an unknown template and a restriction naming no registered tool, without repeating the warning on stderr', () => {
    expect(r.presets.code).to.equal(1)
    expect(r.presets.stderr).to.equal('')
    expect(lines(r.presets.stdout)).to.deep.equal([
      'packages/cli/tests/fixtures/preset-problems.yml:9:11: preset "reviewer" references unknown persona template "reviewr"; known templates: coder, planner, reviewer; falling back to the deployment persona',
      'packages/cli/tests/fixtures/preset-problems.yml:9:11: preset "reviewer" restricts a tool that no plugin registers: "wirte" (such a name restricts nothing)',
      '2 problems in packages/cli/tests/fixtures/preset-problems.yml',
    ])
  })

  it('never prints a stack trace, and colours only when forced', () => {
    for (const run of Object.values(r)) {
      expect(run.stdout + run.stderr).to.not.match(/\n\s+at .+:\d+:\d+\)?\n/)
      if (run !== r.clock) expect(run.stdout + run.stderr).to.not.match(ANSI)
    }
    expect(r.clock.stdout).to.match(ANSI)
  })

  it('refuses a --render-gap that is not a number of milliseconds (exit 2)', () => {
    expect(r.gap.code).to.equal(2)
    expect(r.gap.stderr).to.equal('error: --render-gap must be a whole number of milliseconds from 0 to 10000, received "soon"\n')
  })
})
