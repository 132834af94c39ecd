import { expect } from 'chai'
import fc from 'fast-check'
import { comparePart, firstDifferentByte, locate, pieced } from '../src/prefix.js'
import { firstDifferentToken } from '../src/tokens.js'

describe('prefix comparison', () => {
  it('finds the first differing byte of the UTF-8 encodings, for any two texts', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (shared, a, b) => {
      const left = shared + a
      const right = shared + b
      const byte = firstDifferentByte(left, right)
      const [l, r] = [Buffer.from(left), Buffer.from(right)]
      if (left === right) return byte === undefined
      return byte !== undefined && byte >= Buffer.byteLength(shared) && l.subarray(0, byte).equals(r.subarray(0, byte))
        && (byte === l.length || byte === r.length || l[byte] !== r[byte])
    }))
  })

  it('counts bytes, not UTF-16 code units, before a difference after non-ASCII text', () => {
    expect(firstDifferentByte('Größe: 1', 'Größe: 2')).to.equal(9)
  })

  it('places an offset in a piece, in the separator before the next piece, or past the last piece', () => {
    const text = pieced([{ name: 'a', text: 'one', owner: 'p' }, { name: 'b', text: 'two' }], '\n\n')
    expect(text.text).to.equal('one\n\ntwo')
    expect(text.pieces.map((p) => [p.start, p.end])).to.deep.equal([[0, 3], [5, 8]])
    expect(locate(text, 1)).to.deep.equal({ where: 'in', piece: { name: 'a', owner: 'p' } })
    expect(locate(text, 3)).to.deep.equal({ where: 'before', piece: { name: 'b' } })
    expect(locate(text, 8)).to.deep.equal({ where: 'end' })
  })

  it('builds the tools field as JSON.stringify would, with the range of each tool', () => {
    const tools = [{ name: 'a', x: 'é' }, { name: 'b' }]
    const text = pieced(tools.map((t) => ({ name: t.name, text: JSON.stringify(t) })), ',', '[', ']')
    expect(text.text).to.equal(JSON.stringify(tools))
    const bytes = Buffer.from(text.text)
    expect(text.pieces.map((p) => bytes.subarray(p.start, p.end).toString())).to.deep.equal(tools.map((t) => JSON.stringify(t)))
    expect(pieced([], ',', '[', ']').text).to.equal('')
  })

  it('reports identical parts without offsets, and differing ones with both locations', () => {
    const a = pieced([{ name: 'x', text: 'same' }, { name: 'y', text: 'old' }], '\n\n')
    const b = pieced([{ name: 'x', text: 'same' }, { name: 'y', text: 'new' }], '\n\n')
    expect(comparePart(a, a)).to.deep.equal({ identical: true, bytes: [9, 9] })
    expect(comparePart(a, b)).to.deep.equal({ identical: false, bytes: [9, 9], firstByte: 6, at: [{ where: 'in', piece: { name: 'y' } }, { where: 'in', piece: { name: 'y' } }] })
  })

  it('finds the first differing token, or the shorter length when one list is a prefix of the other', () => {
    expect(firstDifferentToken([1, 2, 3], [1, 2, 4])).to.equal(2)
    expect(firstDifferentToken([1, 2], [1, 2, 3])).to.equal(2)
    expect(firstDifferentToken([], [])).to.equal(0)
  })
})
