import { expect } from 'chai'
import { formatCount, plural, renderTable } from '../src/table.js'

describe('text tables', () => {
  it('pads each column to its widest cell, right-aligns numbers and trims line ends', () => {
    const table = renderTable([{ header: '#', align: 'right' }, { header: 'name' }, { header: 'bytes', align: 'right' }, { header: 'note' }], [
      ['1', 'harness:identity', '56', ''],
      ['10', 'é', '1,757', 'x'],
    ])
    expect(table).to.equal([
      ' #  name              bytes  note',
      ' 1  harness:identity     56',
      '10  é                 1,757  x',
    ].join('\n'))
  })

  it('formats counts with thousands separators and plurals', () => {
    expect(formatCount(1234567)).to.equal('1,234,567')
    expect(formatCount(999)).to.equal('999')
    expect(plural(1, 'section')).to.equal('1 section')
    expect(plural(2, 'section')).to.equal('2 sections')
  })
})
