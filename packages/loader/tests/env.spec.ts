import { expect } from 'chai'
import fc from 'fast-check'
import { substituteVariables } from 'dsh-loader'

describe('dsh-loader: substituteVariables', () => {
  it('substitutes a set variable, also inside longer text and several times', () => {
    expect(substituteVariables('${ROOT}/data:${ROOT}', { ROOT: '/srv' })).to.deep.equal({ ok: true, value: '/srv/data:/srv' })
  })

  it('a missing variable without default fails naming it; an empty one is a value', () => {
    expect(substituteVariables('${ROOT}/data', {})).to.deep.equal({ ok: false, missing: 'ROOT' })
    expect(substituteVariables('[${ROOT}]', { ROOT: '' })).to.deep.equal({ ok: true, value: '[]' })
  })

  it('${NAME:-default} takes the default when the variable is unset or empty', () => {
    expect(substituteVariables('${MODE:-safe}', {})).to.deep.equal({ ok: true, value: 'safe' })
    expect(substituteVariables('${MODE:-safe}', { MODE: '' })).to.deep.equal({ ok: true, value: 'safe' })
    expect(substituteVariables('${MODE:-safe}', { MODE: 'strict' })).to.deep.equal({ ok: true, value: 'strict' })
    expect(substituteVariables('${MODE:-}', {})).to.deep.equal({ ok: true, value: '' })
  })

  it('$${ is a literal ${', () => {
    expect(substituteVariables('$${HOME} costs $5', { HOME: '/h' })).to.deep.equal({ ok: true, value: '${HOME} costs $5' })
  })

  it('never scans a substituted value again', () => {
    expect(substituteVariables('${A}', { A: '${B}', B: 'no' })).to.deep.equal({ ok: true, value: '${B}' })
  })

  it('a malformed reference fails quoting it', () => {
    expect(substituteVariables('x ${} y', {})).to.deep.equal({ ok: false, malformed: '${}' })
    expect(substituteVariables('${1A}', {})).to.deep.equal({ ok: false, malformed: '${1A}' })
    expect(substituteVariables('${A:default}', {})).to.deep.equal({ ok: false, malformed: '${A:default}' })
    expect(substituteVariables('open ${A', {})).to.deep.equal({ ok: false, malformed: '${A' })
  })

  it('nested defaults work: ${A:-${B}} takes B when A is unset, and a set A wins without reading B', () => {
    expect(substituteVariables('${A:-${B}}', { B: 'b' })).to.deep.equal({ ok: true, value: 'b' })
    expect(substituteVariables('[${A:-${B:-deep}}]', {})).to.deep.equal({ ok: true, value: '[deep]' })
    expect(substituteVariables('${A:-${B}}/x', { A: 'a' })).to.deep.equal({ ok: true, value: 'a/x' })
    expect(substituteVariables('${A:-x${B}y}', { B: '-' })).to.deep.equal({ ok: true, value: 'x-y' })
    expect(substituteVariables('${A:-${B}}', {})).to.deep.equal({ ok: false, missing: 'B' })
    // A plain `{` or `}` in a default is text, as before: only `${` opens a nested reference.
    expect(substituteVariables('${A:-{x}}', {})).to.deep.equal({ ok: true, value: '{x}' })
  })

  it('a nested reference without its closing brace is malformed, not left as a literal ${', () => {
    expect(substituteVariables('${A:-${B}', {})).to.deep.equal({ ok: false, malformed: '${A:-${B}' })
  })

  it('defaults nested more than 8 levels are refused', () => {
    const nested = (depth: number) => '${A:-'.repeat(depth) + 'x' + '}'.repeat(depth)
    expect(substituteVariables(nested(8), {})).to.deep.equal({ ok: true, value: 'x' })
    expect(substituteVariables(nested(9), {})).to.deep.equal({ ok: false, tooDeep: 8 })
    expect(substituteVariables(nested(20000), {})).to.deep.equal({ ok: false, tooDeep: 8 })
  })

  it('property: text without "${" is left as it is, whatever the environment', () => {
    fc.assert(fc.property(fc.string(), fc.dictionary(fc.string(), fc.string()), (text, env) => {
      fc.pre(!text.includes('${'))
      expect(substituteVariables(text, env)).to.deep.equal({ ok: true, value: text })
    }))
  })

  it('property: escaping every "${" as "$${" gives the text back', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('$', '{', '}', 'A', ':', '-', ' ') }), (text) => {
      expect(substituteVariables(text.replaceAll('${', () => '$${'), { A: 'value' })).to.deep.equal({ ok: true, value: text })
    }))
  })
})
