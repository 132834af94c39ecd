import { expect } from 'chai'
import { loadDeployment, DeploymentError, type Problem } from 'dsh-loader'
import { bootApp, rejection } from 'dsh-testing'
import { FIXTURES_SHOWN, LOADER_SHOWN, fixture, shown } from './helpers.js'

/** Loads a fixture that must fail; returns the error after checking that nothing stayed mounted. */
async function failure(name: string, env: Record<string, string> = {}): Promise<DeploymentError> {
  const { app, host } = await bootApp()
  const before = [...app.registry.keys()]
  const error = await rejection(() => loadDeployment(host, fixture(name), { env }))
  expect(error, String(error?.stack)).to.be.instanceOf(DeploymentError)
  expect([...app.registry.keys()], 'plugins left registered after a failed load').to.deep.equal(before)
  expect(host.fiber.getEffects().map((effect) => effect.label)).to.deep.equal([])
  return error as DeploymentError
}

/** The expected message: one `file:line:column: text` line per problem. */
function lines(name: string, ...problems: string[]): string {
  return problems.map((problem) => `${shown(name)}:${problem}`).join('\n')
}

describe('dsh-loader: problems are reported with file, line and column', () => {
  it('a YAML syntax error (from the yaml package), and nothing else is attempted', async () => {
    const error = await failure('syntax.yml')
    expect(error.message).to.equal(lines('syntax.yml', '4:3: YAML syntax error: Flow map in block collection must be sufficiently indented and end with a }'))
    expect(error.problems).to.deep.equal([{
      file: shown('syntax.yml'), line: 4, column: 3, code: 'LOADER_YAML_SYNTAX', message: 'YAML syntax error: Flow map in block collection must be sufficiently indented and end with a }',
    } satisfies Problem])
  })

  it('an unknown plugin names what was tried (a package, a relative file)', async () => {
    const error = await failure('unknown-plugin.yml')
    expect(error.message).to.equal(lines('unknown-plugin.yml',
      `2:11: plugins[0] (id "dsh-no-such-plugin"): unknown plugin "dsh-no-such-plugin": no package of that name found from ${FIXTURES_SHOWN} or from ${LOADER_SHOWN}`,
      `3:11: plugins[1] (id "missing-file"): unknown plugin "./plugins/missing.ts": no file ${shown('plugins/missing.ts')}`,
    ))
  })

  it('a module that exports no plugin lists what it does export', async () => {
    const error = await failure('no-plugin.yml')
    expect(error.message).to.equal(lines('no-plugin.yml',
      '2:11: plugins[0] (id "./plugins/no-plugin.ts"): module "./plugins/no-plugin.ts" exports no plugin (expected a default export that is a function, a class or an object with apply(), or an apply() export; found exports answer, question)',
    ))
  })

  it('an invalid config is checked by the plugin\'s schema before mounting (dsh-system-prompt toolOrder)', async () => {
    const error = await failure('bad-tool-order.yml')
    expect(error.message).to.equal(lines('bad-tool-order.yml', '5:7: plugins[0] (id "prompt"): invalid config: toolOrder lists "a" more than once'))
    expect(error.message).to.contain('toolOrder lists "a" more than once')
  })

  it('a mistyped config value is reported at the value, with schemastery\'s message', async () => {
    const error = await failure('mistyped.yml')
    expect(error.message).to.equal(lines('mistyped.yml', '5:16: plugins[0] (id "prompt"): invalid config: $.persona expected string but got 42'))
    expect(error.problems[0].key).to.equal('plugins[0].config.persona')
  })

  it('a service never provided names the missing service, and the provider that did load is unloaded', async () => {
    const error = await failure('missing-service.yml')
    expect(error.message).to.equal(lines('missing-service.yml',
      '3:5: plugins[1] (id "needy"): service "frobnicator" is never provided (this plugin injects it; no active plugin provides it)',
    ))
  })

  it('an apply that throws is reported, and the entries mounted before it are unloaded', async () => {
    const error = await failure('apply-throws.yml')
    expect(error.message).to.equal(lines('apply-throws.yml', '5:5: plugins[2] (id "thrower"): apply failed: boom while applying'))
  })

  it('duplicate ids (explicit, and defaulted to the name)', async () => {
    const error = await failure('duplicate-ids.yml')
    expect(error.message).to.equal(lines('duplicate-ids.yml',
      '5:9: plugins[1] (id "twin"): duplicate id "twin": plugins[0] (id "twin") (line 2) already uses it (ids must be unique in the file; set a distinct "id:")',
      '8:11: plugins[3] (id "./plugins/echo.js"): duplicate id "./plugins/echo.js": plugins[2] (id "./plugins/echo.js") (line 7) already uses it (ids must be unique in the file; set a distinct "id:")',
    ))
  })

  it('unknown row keys and unknown top-level keys', async () => {
    const error = await failure('unknown-keys.yml')
    expect(error.message).to.equal(lines('unknown-keys.yml',
      '4:5: plugins[0] (id "echo"): unknown key "confg" (allowed: name, id, config, disabled)',
      '6:1: unknown top-level key "agnets" (allowed: plugins)',
    ))
  })

  it('wrong types in rows', async () => {
    const error = await failure('wrong-types.yml')
    expect(error.message).to.equal(lines('wrong-types.yml',
      '2:11: plugins[0]: "name" must be a string, found a number (42)',
      '4:9: plugins[1]: "id" must be a string, found a list',
      '7:15: plugins[2] (id "flag"): "disabled" must be true or false, found a string "yes"',
      '8:5: plugins[3]: a row must be a mapping with a "name:" key, found a string "just a string"',
    ))
  })

  it('several problems in one file are all reported in one error, in file order', async () => {
    const error = await failure('several.yml')
    expect(error.problems).to.have.length(6)
    expect(error.message).to.equal(lines('several.yml',
      `3:11: plugins[0] (id "dsh-no-such-plugin"): unknown plugin "dsh-no-such-plugin": no package of that name found from ${FIXTURES_SHOWN} or from ${LOADER_SHOWN}`,
      '6:7: plugins[1] (id "dsh-system-prompt"): invalid config: toolOrder lists "a" more than once',
      '10:13: plugins[2] (id "echo"): config.root: environment variable "DSH_TEST_UNSET" is not set (write ${DSH_TEST_UNSET:-default} to give a default)',
      '11:5: plugins[2] (id "echo"): unknown key "enabled" (allowed: name, id, config, disabled)',
      '12:11: plugins[3]: "name" must be a string, found a number (42)',
      '13:1: unknown top-level key "agents" (allowed: plugins)',
    ))
  })

  it('an empty file, a missing file and @cordisjs/plugin-logger as a row', async () => {
    expect((await failure('empty.yml')).message).to.equal(`${shown('empty.yml')}: the deployment is empty (expected a top-level "plugins:" list)`)
    expect((await failure('nope.yml')).message).to.equal(`${shown('nope.yml')}: cannot read the deployment file: no such file`)
    expect((await failure('plugin-logger.yml')).message).to.match(new RegExp(`^${shown('plugin-logger.yml')}:2:11: plugins\\[0\\] \\(id "@cordisjs/plugin-logger"\\): plugin "@cordisjs/plugin-logger" is not supported here: `))
  })
})
