import { expect } from 'chai'
import { cli, fixture, lines, runBeforeAll } from './helpers.js'

const F = (name: string) => fixture(`${name}.yml`)

describe('dsh-prompt check never passes what render refuses', function () {
  this.timeout(90000)
  const r = runBeforeAll({
    cycle: () => cli(['check', F('unsendable-cycle')]),
    bigint: () => cli(['check', F('unsendable-bigint')]),
    toJson: () => cli(['check', F('unsendable-to-json')]),
    renderToJson: () => cli(['render', F('unsendable-to-json'), '--json']),
    renderCycle: () => cli(['render', F('unsendable-cycle'), '--json']),
    nestedSet: () => cli(['render', F('nested-default'), '--json'], { env: { DSH_TEST_ROOT: '/srv' } }),
    nestedUnset: () => cli(['check', F('nested-default')]),
    refused: () => cli(['check', F('refused-tools')]),
    refusedJson: () => cli(['check', F('refused-tools'), '--json']),
  })

  it('a cyclic tool schema fails check, naming the plugin and the tool', () => {
    expect(r.cycle.code).to.equal(1)
    expect(lines(r.cycle.stdout)[0]).to.equal('packages/cli/tests/fixtures/unsendable-cycle.yml:4:5: agent "main": tool schema "lookup" of plugin "unsendable-tool" cannot be frozen: it refers back to itself at parameters.self (a request body must be JSON)')
  })

  it('a tool schema holding a BigInt fails check, naming the plugin and the tool', () => {
    expect(r.bigint.code).to.equal(1)
    expect(lines(r.bigint.stdout)[0]).to.equal('packages/cli/tests/fixtures/unsendable-bigint.yml:4:5: agent "main": tool schema "lookup" of plugin "unsendable-tool" cannot be frozen: it holds a bigint at parameters.maximum (a request body must be JSON)')
  })

  it('a tool whose JSON fails (a throwing toJSON) fails check as render fails, naming the plugin and the tool', () => {
    expect(r.toJson.code).to.equal(1)
    expect(lines(r.toJson.stdout)[0]).to.equal('packages/cli/tests/fixtures/unsendable-to-json.yml:4:5: agent "main": tool "lookup" (unsendable, global) cannot be sent: serialising the request body fails: no JSON today')
    expect(r.renderToJson.code).to.equal(1)
    const error = JSON.parse(r.renderToJson.stdout).error
    expect([error.kind, error.code]).to.deep.equal(['render', 'CLI_RENDER_FAILED'])
    expect(error.message).to.equal('cannot render agent "main": tool "lookup" (unsendable, global) cannot be sent: serialising the request body fails: no JSON today (run "dsh-prompt check" to list every problem)')
  })

  it('render refuses the same deployments with the same named problem, not an internal error', () => {
    expect(r.renderCycle.code).to.equal(1)
    const error = JSON.parse(r.renderCycle.stdout).error
    expect(error.kind).not.to.equal('internal')
    expect(error.message).to.include('tool schema "lookup" of plugin "unsendable-tool" cannot be frozen')
  })

  it('a nested default ${A:-${B}} renders B, and fails check naming B when B is unset: no literal ${ passes', () => {
    expect(r.nestedSet.code).to.equal(0)
    expect(JSON.parse(r.nestedSet.stdout).system).to.include('You work in /srv/work.')
    expect(r.nestedUnset.code).to.equal(1)
    expect(lines(r.nestedUnset.stdout)[0]).to.equal('packages/cli/tests/fixtures/nested-default.yml:4:16: plugins[0] (id "dsh-system-prompt"): config.persona: environment variable "DSH_TEST_ROOT" is not set (write ${DSH_TEST_ROOT:-default} to give a default)')
  })

  it('tools a provider refuses (issue 20) fail check, per tool and rule, naming the formats and the plugin, a listener\'s tools too', () => {
    expect(r.refused.code).to.equal(1)
    const at = 'packages/cli/tests/fixtures/refused-tools.yml:4:5: agent "main": tool'
    const openai = 'openai-chat, openai-responses, anthropic: its name must match /^[a-zA-Z0-9_-]{1,64}$/'
    const gemini = 'gemini: its name must match /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/'
    expect(lines(r.refused.stdout)).to.deep.equal([
      `${at} "${'a'.repeat(65)}" (refused, global) cannot be sent to ${openai}`,
      `${at} "lookup" (refused, global) cannot be sent to openai-chat, openai-responses, anthropic, gemini: its parameters must be a JSON Schema of type "object", received type "string"`,
      `${at} "read file" (refused, global) cannot be sent to ${openai}`,
      `${at} "wörter" (refused, global) cannot be sent to ${openai}`,
      `${at} "ns.tool" (refused, global) cannot be sent to ${openai}`,
      `${at} "read file" (refused, global) cannot be sent to ${gemini}`,
      `${at} "wörter" (refused, global) cannot be sent to ${gemini}`,
      '7 problems in packages/cli/tests/fixtures/refused-tools.yml',
    ])
    const problems = JSON.parse(r.refusedJson.stdout).problems as Array<{ code: string; kind: string }>
    expect(problems.map((p) => [p.kind, p.code])).to.deep.equal([
      ['request', 'WIRE_INVALID_TOOL_NAME'], ['request', 'WIRE_INVALID_TOOL_PARAMETERS'], ...Array.from({ length: 5 }, () => ['request', 'WIRE_INVALID_TOOL_NAME']),
    ])
  })
})
